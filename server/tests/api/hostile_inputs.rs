//! A corpus of hostile requests against the real server. Every refusal is a 4xx
//! problem+json (never a 5xx), nothing is written for it, and the server keeps serving.
//! Boundary cases that are valid (at the limits, SQL or script text as plain content)
//! must be stored exactly as sent.

use app::api::MAX_REQUEST_BYTES;

use crate::helpers::{RawAnswer, TestApp, spawn_app};

const KEY: &str = "corpus-key";
const WHEN: &str = "2026-11-30T05:00:00.000Z";

enum Expect {
    /// Refused by the app: this status, `application/problem+json`, this slug.
    Problem(u16, &'static str),
    /// Refused by the HTTP parser before any handler ran (a header byte HTTP forbids):
    /// a bare 400, which is all HTTP/1.1 allows there.
    MalformedHttp,
    /// Valid: stored, 201.
    Created,
}

struct Case {
    name: String,
    request: Vec<u8>,
    expect: Expect,
}

/// A request with exactly these header lines (each without CRLF) and body.
fn raw(method: &str, path: &str, headers: &[&[u8]], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n")
        .into_bytes();
    for header in headers {
        out.extend_from_slice(header);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    out
}

/// `POST /api/notes` with a JSON content type, the key header line given, and the body.
fn post(key_line: &[u8], body: &[u8]) -> Vec<u8> {
    raw(
        "POST",
        "/api/notes",
        &[b"Content-Type: application/json", key_line],
        body,
    )
}

fn key_line(key: &str) -> Vec<u8> {
    format!("Idempotency-Key: {key}").into_bytes()
}

fn note(title: &str, body: &str) -> Vec<u8> {
    serde_json::json!({ "title": title, "body": body, "written_at": WHEN })
        .to_string()
        .into_bytes()
}

fn case(name: impl Into<String>, request: Vec<u8>, expect: Expect) -> Case {
    Case {
        name: name.into(),
        request,
        expect,
    }
}

fn corpus() -> Vec<Case> {
    use Expect::*;
    let k = key_line(KEY);
    let mut cases = Vec::new();

    // Bodies that are not a note: 400 invalid-json.
    let not_notes: Vec<(&str, Vec<u8>)> = vec![
        ("empty body", b"".to_vec()),
        ("truncated object", b"{".to_vec()),
        (
            "object cut before its last brace",
            br#"{"title": "a", "body": "b", "written_at": "2026-11-30T05:00:00Z""#.to_vec(),
        ),
        ("string cut in the middle", br#"{"title": "a"#.to_vec()),
        ("null", b"null".to_vec()),
        ("array", b"[]".to_vec()),
        ("bare string", br#""a note""#.to_vec()),
        ("bare number", b"42".to_vec()),
        (
            "title is a number",
            br#"{"title": 5, "body": "b", "written_at": "2026-11-30T05:00:00Z"}"#.to_vec(),
        ),
        (
            "title is null",
            br#"{"title": null, "body": "b", "written_at": "2026-11-30T05:00:00Z"}"#.to_vec(),
        ),
        (
            "title is an array",
            br#"{"title": ["a"], "body": "b", "written_at": "2026-11-30T05:00:00Z"}"#.to_vec(),
        ),
        (
            "body is an object",
            br#"{"title": "a", "body": {}, "written_at": "2026-11-30T05:00:00Z"}"#.to_vec(),
        ),
        (
            "written_at is a number",
            br#"{"title": "a", "body": "b", "written_at": 1700000000}"#.to_vec(),
        ),
        (
            "title missing",
            br#"{"body": "b", "written_at": "2026-11-30T05:00:00Z"}"#.to_vec(),
        ),
        (
            "body missing",
            br#"{"title": "a", "written_at": "2026-11-30T05:00:00Z"}"#.to_vec(),
        ),
        (
            "written_at missing",
            br#"{"title": "a", "body": "b"}"#.to_vec(),
        ),
        (
            "a field twice",
            br#"{"title": "a", "title": "b", "body": "b", "written_at": "2026-11-30T05:00:00Z"}"#
                .to_vec(),
        ),
        (
            "bytes that are not UTF-8",
            b"{\"title\": \"\xff\xfe\", \"body\": \"b\", \"written_at\": \"2026-11-30T05:00:00Z\"}"
                .to_vec(),
        ),
        (
            "a byte-order mark first",
            [&b"\xef\xbb\xbf"[..], &note("a", "b")].concat(),
        ),
        (
            "garbage after the object",
            [note("a", "b"), b"xyz".to_vec()].concat(),
        ),
        ("two objects", [note("a", "b"), note("c", "d")].concat()),
        (
            "nesting 10,000 deep",
            [vec![b'['; 10_000], vec![b']'; 10_000]].concat(),
        ),
        (
            "a lone surrogate",
            br#"{"title": "\ud800", "body": "b", "written_at": "2026-11-30T05:00:00Z"}"#.to_vec(),
        ),
        (
            "single quotes",
            b"{'title': 'a', 'body': 'b', 'written_at': '2026-11-30T05:00:00Z'}".to_vec(),
        ),
        (
            "a trailing comma",
            br#"{"title": "a", "body": "b", "written_at": "2026-11-30T05:00:00Z",}"#.to_vec(),
        ),
        (
            "form encoding sent as JSON",
            b"title=a&body=b&written_at=now".to_vec(),
        ),
    ];
    for (name, body) in not_notes {
        cases.push(case(name, post(&k, &body), Problem(400, "invalid-json")));
    }

    // Notes out of bounds: 422 validation-failed.
    let out_of_bounds: Vec<(&str, Vec<u8>)> = vec![
        ("empty title", note("", "b")),
        ("title of spaces and tabs", note(" \t ", "b")),
        ("title of 201 characters", note(&"t".repeat(201), "")),
        (
            "title of 201 two-byte characters",
            note(&"é".repeat(201), ""),
        ),
        ("title of 201 emoji", note(&"🦀".repeat(201), "")),
        (
            "body of 100,001 characters",
            note("t", &"b".repeat(100_001)),
        ),
        ("title with a NUL", note("a\u{0}b", "")),
        ("title with a line break", note("first\nsecond", "")),
        ("title with a bell", note("ding\u{7}", "")),
        ("body with a NUL", note("t", "a\u{0}b")),
        ("body with an escape sequence", note("t", "\u{1b}[2J")),
        (
            "written_at that is a word",
            br#"{"title": "a", "body": "b", "written_at": "tomorrow"}"#.to_vec(),
        ),
        (
            "written_at without a time",
            br#"{"title": "a", "body": "b", "written_at": "2026-11-30"}"#.to_vec(),
        ),
        (
            "written_at out of range",
            br#"{"title": "a", "body": "b", "written_at": "2026-13-45T99:99:99Z"}"#.to_vec(),
        ),
        (
            "written_at empty",
            br#"{"title": "a", "body": "b", "written_at": ""}"#.to_vec(),
        ),
        (
            "written_at with SQL in it",
            br#"{"title": "a", "body": "b", "written_at": "2026-11-30'; DROP TABLE notes;--"}"#
                .to_vec(),
        ),
    ];
    for (name, body) in out_of_bounds {
        cases.push(case(
            name,
            post(&k, &body),
            Problem(422, "validation-failed"),
        ));
    }

    // Size, and bodies that break off.
    cases.push(case(
        "a body one byte over the limit",
        post(&k, &vec![b' '; MAX_REQUEST_BYTES + 1]),
        Problem(413, "payload-too-large"),
    ));
    cases.push(case(
        "a chunked body that breaks off with a malformed chunk",
        b"POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"tit\r\nzz\r\n".to_vec(),
        Problem(400, "invalid-body"),
    ));
    cases.push(case(
        "a body of 100,001 CJK characters (over the character limit, under the byte limit)",
        post(&k, &note("long", &"字".repeat(100_001))),
        Problem(422, "validation-failed"),
    ));
    cases.push(case(
        "a Content-Length over the limit",
        [b"POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nContent-Length: 9999999\r\n\r\n{}".to_vec()].concat(),
        Problem(413, "payload-too-large"),
    ));

    // Content types.
    let body = note("a", "b");
    cases.push(case(
        "no Content-Type",
        raw("POST", "/api/notes", &[&k], &body),
        Problem(415, "unsupported-media-type"),
    ));
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "application/xml",
        "*/*",
    ] {
        let line = format!("Content-Type: {content_type}");
        cases.push(case(
            format!("Content-Type {content_type}"),
            raw("POST", "/api/notes", &[line.as_bytes(), &k], &body),
            Problem(415, "unsupported-media-type"),
        ));
    }

    // Idempotency keys.
    cases.push(case(
        "no key",
        raw(
            "POST",
            "/api/notes",
            &[b"Content-Type: application/json"],
            &body,
        ),
        Problem(400, "missing-idempotency-key"),
    ));
    for (name, value) in [
        ("empty key", "".to_owned()),
        ("key of 256 characters", "k".repeat(256)),
        (
            "quoted key of 256 characters",
            format!("\"{}\"", "k".repeat(256)),
        ),
        ("key with a space inside", "two words".to_owned()),
        ("quoted key with a bad escape", r#""a\nb""#.to_owned()),
        ("quoted key without its closing quote", "\"abc".to_owned()),
        ("quoted key with text after it", "\"abc\"def".to_owned()),
        ("empty quoted key", "\"\"".to_owned()),
        ("quoted key holding only a space", "\" \"".to_owned()),
    ] {
        cases.push(case(
            name,
            post(&key_line(&value), &body),
            Problem(400, "invalid-idempotency-key"),
        ));
    }
    cases.push(case(
        "key with UTF-8 letters",
        post("Idempotency-Key: clé".as_bytes(), &body),
        Problem(400, "invalid-idempotency-key"),
    ));
    cases.push(case(
        "key with Latin-1 bytes",
        post(b"Idempotency-Key: cl\xe9", &body),
        Problem(400, "invalid-idempotency-key"),
    ));
    cases.push(case(
        "key with DEL",
        post(b"Idempotency-Key: a\x7fb", &body),
        MalformedHttp,
    ));
    cases.push(case(
        "key with a control character",
        post(b"Idempotency-Key: a\x01b", &body),
        MalformedHttp,
    ));
    cases.push(case(
        "two key headers",
        raw(
            "POST",
            "/api/notes",
            &[
                b"Content-Type: application/json",
                b"Idempotency-Key: a",
                b"Idempotency-Key: b",
            ],
            &body,
        ),
        Problem(400, "invalid-idempotency-key"),
    ));

    // Methods.
    for method in ["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"] {
        cases.push(case(
            format!("{method} /api/notes"),
            raw(method, "/api/notes", &[], b""),
            Problem(405, "method-not-allowed"),
        ));
    }
    cases.push(case(
        "POST to a note",
        raw(
            "POST",
            "/api/notes/abc",
            &[b"Content-Type: application/json", &k],
            &body,
        ),
        Problem(405, "method-not-allowed"),
    ));
    cases.push(case(
        "DELETE a note without a key",
        raw("DELETE", "/api/notes/abc", &[], b""),
        Problem(400, "missing-idempotency-key"),
    ));
    cases.push(case(
        "PUT a note",
        raw(
            "PUT",
            "/api/notes/abc",
            &[b"Content-Type: application/json", &k],
            &body,
        ),
        Problem(405, "method-not-allowed"),
    ));

    // Paths.
    for path in [
        "/api/notes/..%2f..%2fetc%2fpasswd",
        "/api/notes/'%20OR%201=1%20--",
        "/api/notes/%00",
        "/api/notes/%3Cscript%3E",
        "/api/nothing",
        "/api/notes/x/y",
        "/pkg/../Cargo.toml",
        "/pkg/%2e%2e/%2e%2e/Cargo.toml",
        "/pkg/..%5c..%5cCargo.toml",
        "/pkg/%2e%2e%2f%2e%2e%2fCargo.toml",
        "/pkg/oncenote.does-not-exist.wasm",
    ] {
        cases.push(case(
            format!("GET {path}"),
            raw("GET", path, &[], b""),
            Problem(404, "not-found"),
        ));
    }
    for query in [
        "limit=-1",
        "limit=0",
        "limit=99999999999999999999",
        "limit=1.5",
        "cursor='%20OR%201=1%20--",
        "cursor=",
        "limit=1&limit=2",
    ] {
        cases.push(case(
            format!("GET /api/notes?{query}"),
            raw("GET", &format!("/api/notes?{query}"), &[], b""),
            Problem(400, "invalid-query"),
        ));
    }

    // Valid boundary cases, stored as sent.
    cases.push(case(
        "key of 255 characters",
        post(&key_line(&"k".repeat(255)), &note("at the key limit", "")),
        Created,
    ));
    cases.push(case(
        "quoted key with escapes",
        post(&key_line(r#""a\"b\\c""#), &note("quoted key", "")),
        Created,
    ));
    cases.push(case(
        "title of exactly 200 emoji",
        post(&key_line("emoji-200"), &note(&"🦀".repeat(200), "")),
        Created,
    ));
    cases.push(case(
        "body of exactly 100,000 characters",
        post(&key_line("body-100k"), &note("long", &"b".repeat(100_000))),
        Created,
    ));
    cases.push(case(
        "an extra field (a newer client)",
        post(
            &key_line("extra-field"),
            br#"{"title": "a", "body": "b", "written_at": "2026-11-30T05:00:00Z", "id": "x"}"#,
        ),
        Created,
    ));
    cases.push(case(
        "the largest note in bytes: 200 + 100,000 astral characters, each \\u-escaped",
        post(
            &key_line("escaped-max"),
            format!(
                r#"{{"title": "{}", "body": "{}", "written_at": "{WHEN}"}}"#,
                "\\ud83e\\udd80".repeat(200),
                "\\ud83d\\ude00".repeat(100_000)
            )
            .as_bytes(),
        ),
        Created,
    ));
    cases.push(case(
        "SQL in the title",
        post(
            &key_line("sql-title"),
            &note("'); DROP TABLE notes; --", "x' OR '1'='1"),
        ),
        Created,
    ));
    cases.push(case(
        "script in the body",
        post(
            &key_line("script-body"),
            &note("<script>alert(1)</script>", "<img src=x onerror=alert(1)>"),
        ),
        Created,
    ));
    cases
}

fn is_problem(answer: &RawAnswer, status: u16, slug: &str) -> Result<(), String> {
    if answer.status != status {
        return Err(format!("status {} (wanted {status})", answer.status));
    }
    if answer.header("content-type") != Some("application/problem+json") {
        return Err(format!("content-type {:?}", answer.header("content-type")));
    }
    let problem: app::api::Problem =
        serde_json::from_slice(&answer.body).map_err(|e| format!("not a problem document: {e}"))?;
    if problem.slug() != slug || problem.status != status {
        return Err(format!("problem {problem:?} (wanted slug {slug})"));
    }
    Ok(())
}

async fn counts(app: &TestApp) -> (i64, i64) {
    (app.note_count().await, app.key_count().await)
}

#[tokio::test]
async fn every_hostile_request_is_refused_with_a_problem_and_writes_nothing() {
    let app = spawn_app().await;
    let cases = corpus();
    let refusals = cases
        .iter()
        .filter(|c| !matches!(c.expect, Expect::Created))
        .count();
    assert!(
        refusals >= 60,
        "the corpus has {refusals} hostile requests; keep at least 60"
    );

    let mut failures = Vec::new();
    for case in &cases {
        let before = counts(&app).await;
        let answer = app.send_raw(&case.request).await;
        let after = counts(&app).await;
        let verdict = match case.expect {
            Expect::Problem(status, slug) => is_problem(&answer, status, slug).and_then(|()| {
                (after == before)
                    .then_some(())
                    .ok_or_else(|| format!("wrote {before:?} -> {after:?}"))
            }),
            Expect::MalformedHttp => {
                if answer.status == 400 && after == before {
                    Ok(())
                } else {
                    Err(format!(
                        "status {} and counts {before:?} -> {after:?}",
                        answer.status
                    ))
                }
            }
            Expect::Created => {
                if answer.status == 201 && after == (before.0 + 1, before.1 + 1) {
                    Ok(())
                } else {
                    Err(format!(
                        "status {} and counts {before:?} -> {after:?}",
                        answer.status
                    ))
                }
            }
        };
        if answer.status >= 500 {
            failures.push(format!("{}: a 5xx ({})", case.name, answer.status));
        } else if let Err(why) = verdict {
            failures.push(format!("{}: {why}", case.name));
        }
        // The server keeps serving after every case.
        let health = app.get("/healthz").await;
        assert_eq!(health.status(), 200, "after {}", case.name);
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn sql_and_script_text_is_stored_verbatim() {
    let app = spawn_app().await;
    let title = "'); DROP TABLE notes; --";
    let body = "<script>alert(1)</script>";
    let response = app
        .send_raw(&post(&key_line("verbatim"), &note(title, body)))
        .await;
    assert_eq!(response.status, 201);
    let stored: (String, String) = sqlx::query_as("SELECT title, body FROM notes")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, (title.to_owned(), body.to_owned()));
}
