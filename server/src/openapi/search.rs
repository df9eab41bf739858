//! The search route as the document describes it (`search::routes` serves it).

use app::api::{Problem, SearchPage};

/// `GET /api/search`.
#[utoipa::path(
    get, path = "/api/search", tag = "search",
    summary = "Search the notes outside the trash, best match first",
    params(
        ("q" = Option<String>, Query, description = "Words to look for (accents and case do not matter)."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Results on a page, 1–200 (default 50)."),
        ("cursor" = Option<String>, Query, description = "The `next` of the page before."),
    ),
    responses(
        (status = 200, description = "A page of results (perhaps none).", body = SearchPage, headers(("Server-Timing" = String, description = "Only with `ONCENOTE_SERVER_TIMING=on`: the server's time on the search, in ms: `search;dur=` (the route's own work), `total;dur=` (the whole request, to the answer's head)."))),
        (status = 400, description = "`invalid-query`: a limit or cursor that is not one.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`: no word to look for.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []), ("bearer" = []))
)]
pub fn search() {}
