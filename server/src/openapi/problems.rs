//! The problem answers of the document, made exact after utoipa has written it.
//!
//! A route's description of a problem answer names its slugs in backticks, and nothing
//! else in backticks (`description = "\`not-found\`: no such note"`); [`annotate`]
//! turns each such answer's schema into `Problem` with `type` one of those slugs and
//! `status` the answer's own, so a client (and the fuzzer) can check the slug as well as
//! the status. It also adds to each operation the answers every route of its kind can give
//! (the host check, a sign-in, a body read, the database), so they are said once.

use app::api::ProblemSlug;
use serde_json::{Map, Value, json};

/// The media type of every problem answer (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Problems whose answer carries `Retry-After`.
const RETRY_AFTER: &[ProblemSlug] = &[
    ProblemSlug::IdempotencyKeyInUse,
    ProblemSlug::DatabaseBusy,
    ProblemSlug::DatabaseUnavailable,
    ProblemSlug::StorageFull,
    ProblemSlug::TooManyImports,
    ProblemSlug::ImportRunning,
    ProblemSlug::TooManyStreams,
    ProblemSlug::StreamsFull,
    ProblemSlug::TooManyUploads,
    ProblemSlug::UploadsFull,
    ProblemSlug::TooManyExports,
    ProblemSlug::ExportsFull,
    ProblemSlug::TooManyAttempts,
];

/// What an operation is, for the answers every operation of its kind can give.
struct Kind {
    signed_in: bool,
    /// Takes a personal access token (`bearer`) besides the session.
    bearer: bool,
    /// Takes a JSON body (checked for its media type and parsed).
    json_body: bool,
    writes: bool,
    /// The document itself: built once, read from memory, no database.
    static_answer: bool,
}

/// The answers an operation of `kind` can give besides its own: (status, slugs).
fn common(kind: &Kind) -> Vec<(u16, &'static [ProblemSlug])> {
    let mut answers: Vec<(u16, &'static [ProblemSlug])> = vec![(421, &[ProblemSlug::UnknownHost])];
    if kind.static_answer {
        return answers;
    }
    answers.push((500, &[ProblemSlug::Internal]));
    answers.push((
        503,
        &[ProblemSlug::DatabaseBusy, ProblemSlug::DatabaseUnavailable],
    ));
    if kind.signed_in {
        // No session, or a bearer token that is unknown, revoked or mistyped.
        answers.push((
            401,
            &[ProblemSlug::Unauthenticated, ProblemSlug::InvalidToken],
        ));
        if !kind.bearer {
            answers.push((403, &[ProblemSlug::TokenNotAllowed]));
        }
    }
    if kind.writes {
        // A write's body is read (bounded in size and time) whether or not it has one;
        // a write with the session cookie from another site is refused first.
        answers.push((400, &[ProblemSlug::InvalidBody]));
        answers.push((403, &[ProblemSlug::CrossSiteRequest]));
        answers.push((408, &[ProblemSlug::RequestTimeout]));
        answers.push((413, &[ProblemSlug::PayloadTooLarge]));
        answers.push((507, &[ProblemSlug::StorageFull]));
    }
    if kind.json_body {
        answers.push((400, &[ProblemSlug::InvalidJson]));
        answers.push((415, &[ProblemSlug::UnsupportedMediaType]));
    }
    answers
}

/// The slugs named in backticks in a description, in order, each once.
pub fn slugs_in(description: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (i, part) in description.split('`').enumerate() {
        let quoted = i % 2 == 1;
        let slug_like = !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if quoted && slug_like && !found.iter().any(|f| f == part) {
            found.push(part.to_owned());
        }
    }
    found
}

/// Adds every operation's common answers and makes every problem answer's schema exact.
pub fn annotate(document: &mut Value) {
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in item.iter_mut() {
            let Some(operation) = operation.as_object_mut() else {
                continue;
            };
            let kind = Kind {
                signed_in: operation
                    .get("security")
                    .and_then(Value::as_array)
                    .is_some_and(|s| !s.is_empty()),
                bearer: operation
                    .get("security")
                    .and_then(Value::as_array)
                    .is_some_and(|s| s.iter().any(|scheme| scheme.get("bearer").is_some())),
                json_body: operation
                    .get("requestBody")
                    .and_then(|body| body.pointer("/content/application~1json"))
                    .is_some(),
                writes: method != "get" && method != "head",
                static_answer: path == super::OPENAPI_PATH,
            };
            let responses = operation
                .entry("responses")
                .or_insert_with(|| json!({}))
                .as_object_mut();
            if let Some(responses) = responses {
                for (status, slugs) in common(&kind) {
                    add_problem(responses, status, slugs);
                }
                for (status, response) in responses.iter_mut() {
                    exact_problem(status, response);
                }
            }
        }
    }
}

/// Adds `slugs` to the problem answer of `status`, making one if there is none.
fn add_problem(responses: &mut Map<String, Value>, status: u16, slugs: &[ProblemSlug]) {
    let response = responses.entry(status.to_string()).or_insert_with(|| {
        json!({
            "description": "",
            "content": { PROBLEM_JSON: { "schema": { "$ref": "#/components/schemas/Problem" } } }
        })
    });
    let Some(description) = response.get("description").and_then(Value::as_str) else {
        return;
    };
    let named = slugs_in(description);
    let missing: Vec<String> = slugs
        .iter()
        .filter(|slug| !named.iter().any(|n| n == slug.as_str()))
        .map(|slug| format!("`{slug}`"))
        .collect();
    if missing.is_empty() {
        return;
    }
    let description = match description {
        "" => format!("{}.", missing.join(", ")),
        told => format!("{told} Or {}.", missing.join(", ")),
    };
    response["description"] = Value::String(description);
    let content = response
        .as_object_mut()
        .map(|r| r.entry("content").or_insert_with(|| json!({})));
    if let Some(Value::Object(content)) = content {
        content
            .entry(PROBLEM_JSON)
            .or_insert_with(|| json!({ "schema": { "$ref": "#/components/schemas/Problem" } }));
    }
}

/// A problem answer's schema: `Problem` with its `type` one of the slugs its description
/// names and its `status` the answer's own; and `Retry-After` where those slugs carry it.
fn exact_problem(status: &str, response: &mut Value) {
    let Some(description) = response.get("description").and_then(Value::as_str) else {
        return;
    };
    let slugs = slugs_in(description);
    let Some(code) = status.parse::<u16>().ok() else {
        return;
    };
    let Some(problem) =
        response.pointer_mut(&format!("/content/{}", PROBLEM_JSON.replace('/', "~1")))
    else {
        return;
    };
    let types: Vec<String> = slugs.iter().map(|s| format!("/problems/{s}")).collect();
    problem["schema"] = json!({
        "allOf": [
            { "$ref": "#/components/schemas/Problem" },
            { "type": "object", "properties": {
                "type": { "type": "string", "enum": types },
                "status": { "type": "integer", "enum": [code] }
            } }
        ]
    });
    let retries = slugs
        .iter()
        .filter_map(|s| ProblemSlug::parse(s))
        .any(|s| RETRY_AFTER.contains(&s));
    if retries && let Some(response) = response.as_object_mut() {
        let headers = response.entry("headers").or_insert_with(|| json!({}));
        headers["Retry-After"] = json!({
            "description": "Seconds to wait before trying again (the same key for a write).",
            "schema": { "type": "integer", "minimum": 0 }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slugs_of_a_description_are_its_backticked_kebab_words() {
        assert_eq!(
            slugs_in("`not-found`: no `id`; or `Foo` or `a b` or `not-found` again"),
            vec!["not-found".to_owned(), "id".to_owned()]
        );
        assert!(slugs_in("no slugs here").is_empty());
    }

    #[test]
    fn a_common_answer_joins_the_routes_own_answer_of_that_status() {
        let mut responses = Map::new();
        responses.insert(
            "400".into(),
            json!({"description": "`invalid-json`.", "content": {PROBLEM_JSON: {}}}),
        );
        add_problem(&mut responses, 400, &[ProblemSlug::InvalidBody]);
        add_problem(&mut responses, 503, &[ProblemSlug::DatabaseBusy]);
        let told = responses["400"]["description"].as_str().unwrap_or("");
        assert_eq!(slugs_in(told), vec!["invalid-json", "invalid-body"]);
        let mut busy = responses["503"].clone();
        exact_problem("503", &mut busy);
        let exact = &busy["content"][PROBLEM_JSON]["schema"]["allOf"][1]["properties"];
        assert_eq!(exact["type"]["enum"], json!(["/problems/database-busy"]));
        assert_eq!(exact["status"]["enum"], json!([503]));
        assert!(busy["headers"]["Retry-After"].is_object());
    }
}
