//! The change feed and its live stream as the document describes them (`live::routes`
//! serves them).

use app::api::{CHANGE_EVENT, ChangesPage, Problem, SIGNED_OUT_EVENT};
use serde_json::{Value, json};

/// `GET /api/changes`.
#[utoipa::path(
    get, path = "/api/changes", tag = "changes",
    summary = "Page the person's change feed: each changed note as it stands now",
    params(
        ("since" = Option<i64>, Query, minimum = 0, description = "The `next` of the page before; 0 (the default) from the start."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Changes on a page, 1–200 (default 200)."),
    ),
    responses(
        (status = 200, description = "A page of changes, oldest first.", body = ChangesPage),
        (status = 400, description = "`invalid-query`.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`changes-expired`: the feed no longer covers that point; start over from 0.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn list_changes() {}

/// `GET /api/events`.
#[utoipa::path(
    get, path = "/api/events", tag = "changes",
    summary = "Follow the change feed as server-sent events",
    description = "Each `change` event's `data` is a `ChangeEvent` (JSON) and its `id` the \
                   change's seq; `signed-out` (`data` `{}`) ends the stream when the session \
                   ends. The first event sets only the `id` the stream starts after and the \
                   `retry` delay; comments keep it alive. It ends after the server's stream \
                   lifetime (ONCENOTE_STREAM_LIFETIME_SECS), and the client reconnects with \
                   `Last-Event-ID`. The answer's schema is that of one event, as the HTML \
                   standard parses it (OpenAPI 3.1 has no item schema for a stream).",
    params(
        ("since" = Option<i64>, Query, minimum = 0, description = "Start after this seq (default: the person's latest)."),
        ("Last-Event-ID" = Option<String>, Header, description = "Where a reconnecting client stands; wins over `since`."),
    ),
    responses(
        (status = 200, description = "The stream: a sequence of events.", content_type = "text/event-stream"),
        (status = 400, description = "`invalid-query`: a since or Last-Event-ID that is not a seq.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`cross-site-request`: a stream opened by another site's page.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`changes-expired`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too-many-streams`: this person has as many streams open as allowed.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`streams-full`: the server holds as many streams as it allows.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn follow_events() {}

/// The schema of one event of `GET /api/events`, put where utoipa can only say "a string":
/// each event as the HTML standard parses it (`event`, `data`, `id`, `retry`). Fuzzers
/// that read event streams check each event against the media type's schema (OpenAPI 3.1
/// has no `itemSchema`); a string schema made every event of the stream a violation.
pub fn describe_events(document: &mut Value) {
    let Some(media) =
        document.pointer_mut("/paths/~1api~1events/get/responses/200/content/text~1event-stream")
    else {
        return;
    };
    media["schema"] = json!({
        "title": "LiveEvent",
        "description": "One event of the stream; events without `data` (the first, which sets \
                        only `id` and `retry`) and comments are not events to a reader.",
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": { "type": "string", "enum": [CHANGE_EVENT, SIGNED_OUT_EVENT] },
            "data": { "type": "string" },
            "id": { "type": "string", "pattern": "^[0-9]+$" },
            "retry": { "type": "integer", "minimum": 0 }
        },
        "oneOf": [
            {
                "properties": {
                    "event": { "const": CHANGE_EVENT },
                    "data": {
                        "contentMediaType": "application/json",
                        "contentSchema": { "$ref": "#/components/schemas/ChangeEvent" }
                    }
                },
                "required": ["id"]
            },
            {
                "properties": {
                    "event": { "const": SIGNED_OUT_EVENT },
                    "data": { "const": "{}" }
                }
            }
        ]
    });
}
