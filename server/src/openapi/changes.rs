//! The change feed and its live stream as the document describes them (`live::routes`
//! serves them).

use app::api::{ChangesPage, Problem};

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
    description = "Each `change` event's `data` is a `ChangeEvent` and its `id` the change's seq; \
                   `signed-out` ends the stream when the session ends. The stream does not end \
                   by itself.",
    params(
        ("since" = Option<i64>, Query, minimum = 0, description = "Start after this seq (default: the person's latest)."),
        ("Last-Event-ID" = Option<String>, Header, description = "Where a reconnecting client stands; wins over `since`."),
    ),
    responses(
        (status = 200, description = "The stream.", content_type = "text/event-stream", body = String),
        (status = 400, description = "`invalid-query`: a since or Last-Event-ID that is not a seq.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`cross-site-request`: a stream opened by another site's page.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`changes-expired`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too-many-streams`: this person has as many streams open as allowed.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`streams-full`: the server holds as many streams as it allows.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn follow_events() {}
