//! The Big List of Naughty Strings (shared test data, see its SOURCE.md) through every
//! text field: each is taken and given back byte for byte — its body rendered safe — or
//! refused with a 4xx problem, never a 5xx. (As a search query: `search.rs`.)

use app::api::{EditAnswer, Note};

use crate::helpers::{TestApp, spawn_app};
use crate::html_safety::assert_safe;

const WHEN: &str = "2026-11-30T05:00:00.000Z";

/// Beside the checkout, never copied into it: `/work/main` and `/work/shared`, or in CI the
/// clone and `../shared`.
const BLNS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/naughty-strings/blns.base64.json"
);

/// The file's base64 was written wrapped at 76 characters (57 bytes) and every line became
/// an entry, so a string longer than 57 bytes is cut across entries (sometimes inside a
/// character): an entry of exactly 57 bytes goes on in the next one.
const WRAPPED_LINE_BYTES: usize = 57;

/// Every naughty string (the search's tests read them too).
pub fn naughty_strings() -> Vec<String> {
    let text = std::fs::read_to_string(BLNS).unwrap_or_else(|error| {
        panic!(
            "the naughty strings are shared test data, read from {BLNS} \
             (beside the checkout, never in it): {error}"
        )
    });
    let entries: Vec<String> =
        serde_json::from_str(&text).expect("blns.base64.json is a JSON array of strings");
    let mut strings = Vec::new();
    let mut pending = Vec::new();
    for entry in &entries {
        let bytes = base64_decode(entry);
        let goes_on = bytes.len() == WRAPPED_LINE_BYTES;
        pending.extend(bytes);
        if !goes_on {
            strings.push(utf8(std::mem::take(&mut pending)));
        }
    }
    if !pending.is_empty() {
        strings.push(utf8(pending));
    }
    assert!(
        strings.len() > 400,
        "{} naughty strings in {BLNS}",
        strings.len()
    );
    strings
}

fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| panic!("a naughty string is not UTF-8: {e}"))
}

/// Standard base64 (RFC 4648, `=` padding): the server needs no base64 crate for this.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("{c:?} is not base64, in {text:?}"),
        }
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut bits = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            bits |= value(c) << (18 - 6 * i);
        }
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

#[test]
fn base64_decodes_as_the_standard_says() {
    assert_eq!(base64_decode(""), b"");
    assert_eq!(base64_decode("Zg=="), b"f");
    assert_eq!(base64_decode("Zm8="), b"fo");
    assert_eq!(base64_decode("Zm9v"), b"foo");
    assert_eq!(base64_decode("Zm9vYmFy"), b"foobar");
    assert_eq!(base64_decode("4pyT/w=="), b"\xe2\x9c\x93\xff");
}

fn note(title: &str, body: &str) -> serde_json::Value {
    serde_json::json!({ "title": title, "body": body, "written_at": WHEN })
}

/// A fresh idempotency key.
fn key() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Panics unless a refusal is a 4xx problem of one of `allowed` statuses.
fn assert_refused(what: &str, status: u16, allowed: &[u16], text: &str) {
    assert!(
        allowed.contains(&status),
        "{what}: {status} (expected {allowed:?} or success): {text}"
    );
}

#[tokio::test]
async fn every_naughty_title_is_stored_as_given_trimmed_or_refused_with_422() {
    let app = spawn_app().await;
    for s in naughty_strings() {
        let response = app.post_note(Some(&key()), &note(&s, "body")).await;
        let status = response.status().as_u16();
        if status != 201 {
            assert_refused(
                &format!("title {s:?}"),
                status,
                &[422],
                &response.text().await.unwrap(),
            );
            continue;
        }
        let made: Note = response.json().await.unwrap();
        assert_eq!(made.title, s.trim(), "the title as sent, trimmed");
        assert_eq!(app.note(&made.id).await.title, s.trim(), "read back: {s:?}");
    }
}

#[tokio::test]
async fn every_naughty_body_is_stored_byte_for_byte_with_safe_html_or_refused_with_422() {
    let app = spawn_app().await;
    for s in naughty_strings() {
        let response = app.post_note(Some(&key()), &note("Naughty", &s)).await;
        let status = response.status().as_u16();
        if status != 201 {
            assert_refused(
                &format!("body {s:?}"),
                status,
                &[422],
                &response.text().await.unwrap(),
            );
            continue;
        }
        let made: Note = response.json().await.unwrap();
        assert_eq!(made.body, s);
        assert_safe(&s, made.html.as_deref().expect("html"));
        let read = app.note(&made.id).await;
        assert_eq!(read.body, s, "read back byte for byte");
        assert_eq!(read.html, made.html);
    }
}

#[tokio::test]
async fn every_naughty_string_in_an_edit_is_stored_byte_for_byte_or_refused_with_422() {
    let app = spawn_app().await;
    let id = app.create("Edited", "start").await.id;
    let mut version = 1;
    for s in naughty_strings() {
        for field in ["title", "body"] {
            let mut edit = serde_json::json!({ "base_version": version, "written_at": WHEN });
            edit[field] = s.clone().into();
            let response = app.patch_note(&id, &key(), &edit, &[]).await;
            let status = response.status().as_u16();
            if status != 200 {
                let text = response.text().await.unwrap();
                assert_refused(&format!("{field} edit {s:?}"), status, &[422], &text);
                continue;
            }
            let answer: EditAnswer = response.json().await.unwrap();
            let now = answer.note.expect("the note");
            version = now.version;
            let read = app.note(&id).await;
            if field == "title" {
                assert_eq!(now.title, s.trim());
                assert_eq!(read.title, s.trim(), "read back: {s:?}");
            } else {
                assert_eq!(now.body, s);
                assert_eq!(read.body, s, "read back byte for byte");
                assert_safe(&s, now.html.as_deref().expect("html"));
                assert_eq!(read.html, now.html);
            }
        }
    }
}

/// `POST /api/tags/rename`.
async fn rename(app: &TestApp, from: &str, to: &str) -> (u16, String) {
    let response = app
        .client
        .post(app.url("/api/tags/rename"))
        .header(app::api::IDEMPOTENCY_KEY_HEADER, key())
        .json(&serde_json::json!({ "from": from, "to": to, "written_at": WHEN }))
        .send()
        .await
        .expect("the server answers");
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn every_naughty_string_as_a_tag_renames_or_is_refused_with_422() {
    let app = spawn_app().await;
    let id = app.create("Tagged", "about #plain things").await.id;
    for s in naughty_strings() {
        let (status, text) = rename(&app, "plain", &s).await;
        if status != 200 {
            assert_refused(&format!("to {s:?}"), status, &[422], &text);
            let (status, text) = rename(&app, &s, "plain").await;
            if status != 200 {
                assert_refused(&format!("from {s:?}"), status, &[422], &text);
            }
            continue;
        }
        let renamed = app.note(&id).await;
        let written = s.trim().trim_start_matches('#');
        assert!(
            renamed.body.contains(&format!("#{written} things")),
            "renamed to {s:?}: {}",
            renamed.body
        );
        assert_safe(&s, renamed.html.as_deref().expect("html"));
        let (status, text) = rename(&app, &s, "plain").await;
        assert_eq!(status, 200, "renamed back from {s:?}: {text}");
        assert_eq!(app.note(&id).await.body, "about #plain things");
    }
}

#[tokio::test]
async fn every_naughty_tag_filter_is_answered_or_refused_with_400() {
    let app = spawn_app().await;
    app.create("Listed", "#listed").await;
    for s in naughty_strings() {
        let response = app
            .client
            .get(app.url("/api/notes"))
            .query(&[("tag", &s)])
            .send()
            .await
            .expect("the server answers");
        let status = response.status().as_u16();
        if status != 200 {
            let text = response.text().await.unwrap();
            assert_refused(&format!("tag {s:?}"), status, &[400], &text);
        }
    }
}
