//! The page's form without JavaScript (or clicked before the page hydrated): a real
//! `POST /notes`. The server rendered a fresh idempotency key into the form, so sending
//! the same rendered form twice (a double click, the browser's "resend") stores one note;
//! the answer is a redirect back to the page (post/redirect/get), so the note's text never
//! lands in the URL or the history.

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;

use app::api::{FORM_KEY_FIELD, FORM_OWNER_FIELD, FORM_PATH, NewNote};

use super::answers;
use super::create::CreateNote;
use super::new_note::ValidNewNote;
use crate::accounts::session::{SignedIn, check_owner};
use crate::error::ApiError;
use crate::http::body::read_limited;
use crate::http::html::escape;
use crate::http::routing::allow;
use crate::idempotency::{self, IdempotencyKey};
use crate::state::AppState;
use crate::timestamp;

pub fn router() -> Router<AppState> {
    Router::new().route(FORM_PATH, allow(post(submit), "POST"))
}

#[derive(Deserialize)]
struct Fields {
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: String,
    #[serde(rename = "idempotency_key", default)]
    key: String,
    /// The person the page's form was rendered for (absent from older pages).
    #[serde(default)]
    owner: Option<String>,
}

#[tracing::instrument(name = "form_create", skip_all, fields(key = tracing::field::Empty))]
async fn submit(
    State(state): State<AppState>,
    viewer: Result<SignedIn, ApiError>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    // A form sent after the session ended: sign in again (the text is in the browser's
    // back history; the page's own saves keep it in the queue).
    let Ok(SignedIn(viewer)) = viewer else {
        return (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, "/sign-in?next=/&error=unauthenticated")],
        )
            .into_response();
    };
    let bytes = match read_limited(&headers, body, state.config.body_timeout).await {
        Ok(bytes) => bytes,
        Err(error) => return refused(&state, error, None, None, None),
    };
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        let error =
            ApiError::UnsupportedMediaType("the form must be sent as a web form".to_owned());
        return refused(&state, error, None, None, None);
    }
    let fields: Fields = match serde_urlencoded::from_bytes(&bytes) {
        Ok(fields) => fields,
        Err(e) => {
            return refused(
                &state,
                ApiError::InvalidBody(e.to_string()),
                None,
                None,
                None,
            );
        }
    };
    // Browsers send a textarea's line breaks as CRLF; the app's own saves use LF.
    let body = fields.body.replace("\r\n", "\n");
    let owner = fields.owner.as_deref().filter(|o| !o.is_empty());
    // A form rendered for someone else than the person signed in now (they signed out in
    // another tab and someone else signed in): not theirs to store.
    if let Some(named) = owner
        && let Err(error) = check_owner(Some(named), &viewer)
    {
        let key = IdempotencyKey::parse(&fields.key).map(|_| fields.key.as_str());
        return refused(&state, error, Some((&fields.title, &body)), owner, key.ok());
    }
    let draft = Some((fields.title.as_str(), body.as_str()));
    let key = match IdempotencyKey::parse(&fields.key) {
        Ok(key) => key,
        Err(error) => return refused(&state, error.into(), draft, owner, None),
    };
    tracing::Span::current().record("key", key.as_str());
    let request = NewNote {
        title: fields.title.clone(),
        body: body.clone(),
        written_at: timestamp::format(timestamp::now()),
    };
    let note = match ValidNewNote::parse(request) {
        Ok(note) => note,
        Err(error) => return refused(&state, error, draft, owner, Some(&fields.key)),
    };
    let create = CreateNote::from_form(note);
    let answer = answers::created_from_form;
    match idempotency::execute(state.pipeline(), &viewer.user_id, &key, create, answer).await {
        Ok(answer) => answer.into_response(),
        Err(error) => {
            error.log(Some(key.as_str()));
            // A key that holds another request's answer cannot save this text; any other
            // refusal leaves the key free or its outcome unknown, so the form keeps it.
            let kept = (!matches!(error, ApiError::IdempotencyKeyReused)).then_some(&*fields.key);
            refused(&state, error, draft, owner, kept)
        }
    }
}

/// A page that says why the note was not saved (or that it is not known whether it was)
/// and gives the text back in a form, so nothing typed is lost. The form keeps `key`, the
/// key as the form sent it, when there is one: the write under it may still be running
/// (409) or may have been stored before its answer was lost (5xx), and sending the form
/// again with the same key stores the note once either way, where a new key would store
/// it twice; a refusal stores nothing under it. Without a key (none usable was sent, it
/// holds another request's answer, or the refusal came before the key was read) the form
/// gets a new one.
fn refused(
    state: &AppState,
    error: ApiError,
    draft: Option<(&str, &str)>,
    owner: Option<&str>,
    key: Option<&str>,
) -> Response {
    let (status, _) = error.status_and_slug();
    let (title, body) = draft.unwrap_or_default();
    let (heading, notice) = notice(&error, status);
    let key = key.map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
    let owner_field = owner.map_or(String::new(), |owner| {
        format!(
            r#"<input type="hidden" name="{FORM_OWNER_FIELD}" value="{}">
"#,
            escape(owner)
        )
    });
    let page = format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{heading} — oncenote</title><link rel="stylesheet" href="{css}"></head>
<body><main>
<h1>oncenote</h1>
<p class="notice" role="alert">{notice}</p>
<form class="compose" method="post" action="{FORM_PATH}" aria-label="New note">
<input type="hidden" name="{FORM_KEY_FIELD}" value="{key}">
{owner_field}<label for="note-title">Title</label>
<input id="note-title" name="title" type="text" autocomplete="off" value="{title}">
<label for="note-body">Body</label>
<textarea id="note-body" name="body" rows="6">{body}</textarea>
<div class="actions"><button type="submit">Save</button></div>
</form>
<p><a href="/">Back to your notes</a></p>
</main></body></html>"#,
        css = escape(&state.shell.stylesheet),
        key = escape(&key),
        title = escape(title),
        body = escape(body),
    );
    (status, Html(page)).into_response()
}

/// The page's title and its notice (HTML), for what the refusal says about the note: not
/// saved, or — while an earlier send is still saving, or after a server failure — not
/// known yet, and what to do.
fn notice(error: &ApiError, status: StatusCode) -> (&'static str, String) {
    let unknown = "send the form again, unchanged,";
    match error {
        ApiError::IdempotencyKeyInUse => (
            "Not confirmed yet",
            format!("Not confirmed yet: an earlier send of this form is still being saved. To see that it was, {unknown} in a moment: the note is stored once."),
        ),
        ApiError::StorageFull => (
            "Not confirmed",
            "Not confirmed: the server’s disk is full. Once there is room, send the form again, unchanged: the note is stored once, whether or not this send stored it.".to_owned(),
        ),
        _ if status.is_server_error() => (
            "Not confirmed",
            format!("Not confirmed: the server could not finish the save (it answered {}). It may or may not have been saved: {unknown} in a moment; the note is stored once either way.", status.as_u16()),
        ),
        ApiError::IdempotencyKeyReused => (
            "Not saved",
            "Not saved: this form already saved a different text. The text below is not saved yet: send it to save it as a note of its own.".to_owned(),
        ),
        ApiError::SignedInAsSomeoneElse => (
            "Not saved",
            format!("Not saved: {}. Nothing was saved.", escape(&error.problem().detail)),
        ),
        _ => (
            "Not saved",
            format!("Not saved: {}.", escape(&error.problem().detail)),
        ),
    }
}
