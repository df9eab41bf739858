//! `GET /api/openapi.json` tells the truth: it is OpenAPI 3.1, every route it describes
//! answers on the real router with a status it lists, and every `/api` route the router
//! has (read from the routers' source, `.route(PATH, allow(…, "METHODS"))`) is in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use app::api::ProblemSlug;
use serde_json::Value;

use crate::helpers::{TestApp, anonymous, spawn_app};

/// Routes documented ahead of the branch that serves them: missing from the router they
/// are skipped, and checked like every other once they are there. (None now.)
const LANDING: &[&str] = &[];

/// What a router's source names a path by, besides a literal.
fn path_constants() -> BTreeMap<&'static str, &'static str> {
    BTreeMap::from([
        ("NOTES_PATH", app::api::NOTES_PATH),
        ("TAGS_PATH", app::api::TAGS_PATH),
        ("CHANGES_PATH", app::api::CHANGES_PATH),
        ("EVENTS_PATH", app::api::EVENTS_PATH),
        ("FILES_API_PATH", app::api::FILES_API_PATH),
        ("FILES_PATH", app::api::FILES_PATH),
        ("IMPORT_PATH", app::api::IMPORT_PATH),
        ("TOKENS_PATH", app::api::TOKENS_PATH),
        (
            "TOKENS_FORM_PATH",
            app::components::account_tokens::TOKENS_FORM_PATH,
        ),
        ("FORM_PATH", app::api::FORM_PATH),
        ("OPENAPI_PATH", server::openapi::OPENAPI_PATH),
    ])
}

async fn document(app: &TestApp) -> Value {
    let response = anonymous()
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().ok(),
        Some("application/json")
    );
    response.json().await.expect("the document is JSON")
}

/// Every operation of the document: (path, method) → its documented statuses.
fn operations(document: &Value) -> BTreeMap<(String, String), BTreeSet<u16>> {
    let mut found = BTreeMap::new();
    let paths = document["paths"].as_object().expect("paths");
    for (path, item) in paths {
        for (method, operation) in item.as_object().expect("a path item") {
            let statuses = operation["responses"]
                .as_object()
                .expect("responses")
                .keys()
                .map(|s| s.parse::<u16>().expect("a status"))
                .collect();
            found.insert((path.clone(), method.to_uppercase()), statuses);
        }
    }
    found
}

/// Every `.route(…)` of the server's source: its path and the methods its `allow` names.
fn routes_in_source() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let constants = path_constants();
    let mut routes = BTreeMap::new();
    for file in rust_files(&src) {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for (at, _) in flat.match_indices(".route(") {
            let call = balanced(&flat[at + ".route".len()..]);
            let (first, rest) = split_first_argument(call);
            let path = resolve(first.trim(), &constants).unwrap_or_else(|| {
                panic!("{}: a route path I cannot read: {first}", file.display())
            });
            if !path.starts_with("/api/") || path == "/api/{*rest}" {
                continue;
            }
            let methods = rest
                .rsplit_once('"')
                .and_then(|(before, _)| before.rsplit_once('"'))
                .map(|(_, methods)| methods)
                .filter(|_| rest.contains("allow("))
                .unwrap_or_else(|| {
                    panic!("{}: {path} has no allow(…, \"METHODS\")", file.display())
                });
            routes.insert(
                path,
                methods.split(',').map(|m| m.trim().to_owned()).collect(),
            );
        }
    }
    routes
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The text inside the parentheses that open `text`.
fn balanced(text: &str) -> &str {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &text[1..i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced .route( in {text:.80}")
}

/// A call's first argument and the rest, split at the first comma outside parentheses.
fn split_first_argument(call: &str) -> (&str, &str) {
    let mut depth = 0;
    for (i, c) in call.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => return (&call[..i], &call[i + 1..]),
            _ => {}
        }
    }
    (call, "")
}

/// A route's path as written: a literal, a constant, or `&format!("{CONST}/{{x}}")`.
fn resolve(written: &str, constants: &BTreeMap<&str, &str>) -> Option<String> {
    if let Some(literal) = written.strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
        return Some(literal.to_owned());
    }
    if let Some(value) = constants.get(written) {
        return Some((*value).to_owned());
    }
    let template = written
        .strip_prefix("&format!(\"")
        .and_then(|w| w.strip_suffix("\")"))?;
    let mut path = template.replace("{{", "\u{1}").replace("}}", "\u{2}");
    for (name, value) in constants {
        path = path.replace(&format!("{{{name}}}"), value);
    }
    (!path.contains('{')).then(|| path.replace('\u{1}', "{").replace('\u{2}', "}"))
}

/// A documented path with its parameters filled in.
fn concrete(path: &str) -> String {
    path.replace("{sha256}", &"0".repeat(64))
        .replace("{id}", "no-such-id")
        .replace("{token}", "no-such-token")
        .replace("{version}", "1")
}

fn method_of(name: &str) -> reqwest::Method {
    reqwest::Method::from_bytes(name.as_bytes()).expect("a method")
}

#[tokio::test]
async fn the_document_is_openapi_3_1_served_to_anyone_with_both_ways_to_sign_in() {
    let app = spawn_app().await;
    let document = document(&app).await;
    assert!(
        document["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "{}",
        document["openapi"]
    );
    let schemes = &document["components"]["securitySchemes"];
    assert_eq!(schemes["session"]["in"], "cookie");
    assert_eq!(schemes["session"]["name"], "oncenote_session");
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    let notes = &document["paths"]["/api/notes"]["post"];
    assert_eq!(
        notes["security"],
        serde_json::json!([{"session": []}, {"bearer": []}])
    );
}

#[tokio::test]
async fn every_api_route_of_the_router_is_in_the_document_with_each_of_its_methods() {
    let app = spawn_app().await;
    let documented = operations(&document(&app).await);
    let routed = routes_in_source();
    assert!(routed.len() > 20, "found only {routed:?}");
    for (path, methods) in &routed {
        for method in methods {
            assert!(
                documented.contains_key(&(path.clone(), method.clone())),
                "{method} {path} is routed but not in the document"
            );
        }
    }
    for (path, method) in documented.keys() {
        let served = routed.get(path).is_some_and(|m| m.contains(method));
        assert!(
            served || LANDING.contains(&path.as_str()),
            "{method} {path} is in the document but no router serves it"
        );
    }
}

/// Sends every documented operation with no body and no key, as `client`, and checks the
/// status it gets is one the document lists for it.
async fn each_answers_as_documented(app: &TestApp, client: &reqwest::Client, who: &str) {
    let document = document(app).await;
    let routed = routes_in_source();
    let mut operations: Vec<_> = operations(&document).into_iter().collect();
    // Signing out last, so the signed-in pass stays signed in until then.
    operations.sort_by_key(|((path, method), _)| path == "/api/session" && method == "DELETE");
    let mut checked = 0;
    for ((path, method), statuses) in operations {
        if !routed.contains_key(&path) && LANDING.contains(&path.as_str()) {
            continue;
        }
        let response = client
            .request(method_of(&method), app.url(&concrete(&path)))
            .send()
            .await
            .expect("the server answers");
        let status = response.status().as_u16();
        assert!(
            statuses.contains(&status),
            "{who}: {method} {path} answered {status}, the document lists {statuses:?}"
        );
        checked += 1;
    }
    assert!(checked > 25, "{who}: checked only {checked}");
}

#[tokio::test]
async fn every_documented_operation_answers_someone_signed_out_with_a_status_it_lists() {
    let app = spawn_app().await;
    each_answers_as_documented(&app, &anonymous(), "signed out").await;
}

#[tokio::test]
async fn every_documented_operation_answers_the_admin_with_a_status_it_lists() {
    let app = spawn_app().await;
    each_answers_as_documented(&app, &app.client, "the admin").await;
}

#[tokio::test]
async fn a_signed_in_route_documents_401_and_answers_it_signed_out() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let unauthenticated = &document["paths"]["/api/notes"]["get"]["responses"]["401"];
    let types = unauthenticated
        .pointer("/content/application~1problem+json/schema/allOf/1/properties/type/enum");
    assert_eq!(
        types,
        Some(&serde_json::json!([
            "/problems/unauthenticated",
            "/problems/invalid-token"
        ]))
    );
    let response = anonymous().get(app.url("/api/notes")).send().await.unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn every_problem_answer_names_the_slugs_it_can_carry_and_each_is_one_the_api_has() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let known: BTreeSet<String> = ProblemSlug::ALL.iter().map(|s| s.type_uri()).collect();
    let mut answers = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for (status, response) in operation["responses"].as_object().unwrap() {
                let Some(problem) = response.pointer("/content/application~1problem+json") else {
                    assert!(
                        !status.starts_with('4') && !status.starts_with('5'),
                        "{method} {path} {status} is an error that is not a problem"
                    );
                    continue;
                };
                let exact = &problem["schema"]["allOf"][1]["properties"];
                let types = exact["type"]["enum"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{method} {path} {status}: no slugs named"));
                assert!(
                    !types.is_empty(),
                    "{method} {path} {status}: no slugs named"
                );
                for t in types {
                    let t = t.as_str().unwrap_or_default();
                    assert!(
                        known.contains(t),
                        "{method} {path} {status}: {t} is not a slug"
                    );
                }
                assert_eq!(exact["status"]["enum"][0].to_string(), *status);
                answers += 1;
            }
        }
    }
    assert!(answers > 100, "only {answers} problem answers");
}

#[tokio::test]
async fn a_body_of_raw_bytes_is_described_as_binary_not_as_a_list_of_numbers() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let binary = serde_json::json!({"type": "string", "format": "binary"});
    let upload = &document["paths"]["/api/files/{sha256}"]["put"]["requestBody"]["content"];
    assert_eq!(upload["*/*"]["schema"], binary);
    let import = &document["paths"]["/api/import"]["post"]["requestBody"]["content"];
    assert_eq!(import["*/*"]["schema"], binary);
    let export = &document["paths"]["/api/export"]["get"]["responses"]["200"]["content"];
    assert_eq!(export["application/zip"]["schema"], binary);
}

#[tokio::test]
async fn the_event_stream_is_described_as_events_and_the_stream_s_events_fit_the_description() {
    let app = spawn_app().await;
    let document = document(&app).await;
    let schema = document
        .pointer("/paths/~1api~1events/get/responses/200/content/text~1event-stream/schema")
        .expect("the stream's answer has a schema");
    // Not "a string": a fuzzer that reads the stream checks each event against it.
    assert_eq!(schema["type"], "object", "{schema}");
    let names: Vec<&str> = schema["properties"]["event"]["enum"]
        .as_array()
        .expect("the event names")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(names, [app::api::CHANGE_EVENT, app::api::SIGNED_OUT_EVENT]);
    let change = &schema["oneOf"][0]["properties"]["data"]["contentSchema"]["$ref"];
    assert_eq!(change, "#/components/schemas/ChangeEvent");
    assert!(
        document
            .pointer("/components/schemas/ChangeEvent")
            .is_some()
    );

    // A real event has the fields the schema requires, each as it says.
    let mut stream =
        crate::live_events::EventStream::open(&app.client, &app.address, Some(0), None).await;
    app.create("Described", "as it is").await;
    let event = stream.expect(std::time::Duration::from_secs(10)).await;
    assert!(names.contains(&event.event.as_str()));
    let id = event.id.expect("a change carries its seq as its id");
    assert!(
        !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()),
        "{id}"
    );
    let data: Value = serde_json::from_str(&event.data).expect("data is JSON");
    let required = document["components"]["schemas"]["ChangeEvent"]["required"]
        .as_array()
        .expect("ChangeEvent's required fields")
        .clone();
    for field in required {
        assert!(
            data.get(field.as_str().unwrap()).is_some(),
            "{field} in {data}"
        );
    }
}
