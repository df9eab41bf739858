//! The API's error policy, in one place.
//!
//! - Every error a client can see is an [`ApiError`] and goes out as
//!   `application/problem+json` (RFC 9457) with a stable slug in `type`.
//! - Client mistakes (4xx) say exactly what was wrong; nothing is written for them.
//! - [`ApiError::Internal`] wraps everything unexpected (database, I/O). Its cause is
//!   logged by the handler with the idempotency key; the client gets a generic 500.
//! - A busy database is not an internal error: it is a 503 `database-busy` with
//!   `Retry-After`. A 409 `idempotency-key-in-use` means one thing only: a request with
//!   the same key is running right now. The client retries both with the same key.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use app::api::Problem;

/// Every error the API answers with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("the request body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// An uploaded archive that unpacks to more than the server reads from it.
    #[error("{0}")]
    UnpacksTooLarge(String),
    #[error("{0}")]
    InvalidBody(String),
    #[error("the request body did not arrive in time")]
    RequestTimeout,
    #[error("this server does not answer to the host {0:?}")]
    UnknownHost(String),
    #[error("the Idempotency-Key header is missing")]
    MissingIdempotencyKey,
    #[error("{0}")]
    InvalidIdempotencyKey(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    InvalidJson(String),
    #[error("{0}")]
    ValidationFailed(String),
    #[error("{0}")]
    InvalidQuery(String),
    #[error("this Idempotency-Key was already used with a different request")]
    IdempotencyKeyReused,
    /// A late retry of a write that was done, to a note deleted for good since.
    #[error(
        "this write was done, and its note ({0}) has since been deleted for good on another device"
    )]
    DeletedElsewhere(String),
    #[error("a request with this Idempotency-Key is still being processed")]
    IdempotencyKeyInUse,
    #[error("the database is busy; retry in a moment")]
    Busy,
    #[error("as many imports as the server runs at once are running; retry in a moment")]
    TooManyImports,
    /// The database aborted the transaction for a conflict with another one (a deadlock
    /// or a serialization failure): nothing was written, and the write can run again.
    #[error("the write met another one in the database; retry in a moment")]
    TransactionConflict,
    #[error("{0}")]
    NotFound(String),
    #[error("the note is at version {}, not the one in If-Match", current.version)]
    PreconditionFailed { current: Box<app::api::Note> },
    #[error("say which version of the note the edit starts from: If-Match or base_version")]
    PreconditionRequired,
    #[error("this route answers {allow}")]
    MethodNotAllowed { allow: &'static str },
    #[error("sign in first")]
    Unauthenticated,
    /// The write names its person (`X-Oncenote-User`, or the form's `owner`) and someone
    /// else is signed in on this browser now. Nothing was stored; the page keeps the write
    /// and sends it again once its person has signed in.
    #[error(
        "this browser is signed in as another account now; sign in again as the account this was written in to send it"
    )]
    SignedInAsSomeoneElse,
    #[error("the username or the password is wrong")]
    InvalidCredentials,
    #[error("too many failed sign-ins; try again in {} minute(s)", retry_after_secs.div_ceil(60))]
    TooManyAttempts { retry_after_secs: u64 },
    #[error("only an admin can do this")]
    AdminOnly,
    #[error("this request came from another site")]
    CrossSite,
    #[error("this invitation was used already or has expired")]
    InvitationGone,
    #[error("the first account exists already; sign in instead")]
    SetupDone,
    #[error("this setup link is not one this server gave out")]
    SetupLinkInvalid,
    #[error("this username is taken")]
    UsernameTaken,
    #[error("new accounts come by invitation on this server")]
    SignupClosed,
    #[error("the current password is wrong")]
    WrongPassword,
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for ApiError {
    fn from(error: sqlx::Error) -> Self {
        if is_conflict(&error) {
            ApiError::TransactionConflict
        } else if is_busy(&error) {
            ApiError::Busy
        } else {
            ApiError::Internal(error.into())
        }
    }
}

/// A lock not free in time: SQLite's SQLITE_BUSY / SQLITE_LOCKED (and their extended
/// codes), PostgreSQL's `lock_not_available` (past `lock_timeout`) and `query_canceled`
/// (past `statement_timeout`), a PostgreSQL server restarting or out of connections — or a
/// pool that had no connection to give. The client retries with the same key.
pub fn is_busy(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut => true,
        sqlx::Error::Database(db) => {
            let code = db.code();
            if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                // SQLite's result codes are numbers; the primary code is the low byte.
                code.and_then(|c| c.parse::<i32>().ok())
                    .is_some_and(|c| c & 0xff == 5 || c & 0xff == 6)
            } else {
                // PostgreSQL's SQLSTATE: lock_not_available, query_canceled; the server
                // shutting down, starting, or out of connections; a broken connection.
                code.as_deref().is_some_and(|c| {
                    matches!(c, "55P03" | "57014" | "57P01" | "57P02" | "57P03" | "53300")
                        || c.starts_with("08")
                })
            }
        }
        _ => false,
    }
}

/// PostgreSQL aborted the transaction for another one: `serialization_failure` or
/// `deadlock_detected`. Nothing was written; the transaction can run again.
pub fn is_conflict(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if matches!(db.code().as_deref(), Some("40001" | "40P01")))
}

/// Seconds a client should wait before retrying after a 409 in-use or a 503 busy.
pub const RETRY_AFTER_SECS: u32 = 1;

impl ApiError {
    /// The HTTP status and the stable slug of this error.
    pub fn status_and_slug(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::PayloadTooLarge { .. } | ApiError::UnpacksTooLarge(_) => {
                (StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large")
            }
            ApiError::InvalidBody(_) => (StatusCode::BAD_REQUEST, "invalid-body"),
            ApiError::RequestTimeout => (StatusCode::REQUEST_TIMEOUT, "request-timeout"),
            ApiError::UnknownHost(_) => (StatusCode::MISDIRECTED_REQUEST, "unknown-host"),
            ApiError::MissingIdempotencyKey => (StatusCode::BAD_REQUEST, "missing-idempotency-key"),
            ApiError::InvalidIdempotencyKey(_) => {
                (StatusCode::BAD_REQUEST, "invalid-idempotency-key")
            }
            ApiError::UnsupportedMediaType(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type")
            }
            ApiError::InvalidJson(_) => (StatusCode::BAD_REQUEST, "invalid-json"),
            ApiError::ValidationFailed(_) => {
                (StatusCode::UNPROCESSABLE_ENTITY, "validation-failed")
            }
            ApiError::InvalidQuery(_) => (StatusCode::BAD_REQUEST, "invalid-query"),
            ApiError::DeletedElsewhere(_) => (StatusCode::GONE, "deleted-elsewhere"),
            ApiError::TooManyImports => (StatusCode::SERVICE_UNAVAILABLE, "too-many-imports"),
            ApiError::IdempotencyKeyReused => {
                (StatusCode::UNPROCESSABLE_ENTITY, "idempotency-key-reused")
            }
            ApiError::IdempotencyKeyInUse => (StatusCode::CONFLICT, "idempotency-key-in-use"),
            ApiError::Busy | ApiError::TransactionConflict => {
                (StatusCode::SERVICE_UNAVAILABLE, "database-busy")
            }
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found"),
            ApiError::PreconditionFailed { .. } => {
                (StatusCode::PRECONDITION_FAILED, "precondition-failed")
            }
            ApiError::PreconditionRequired => {
                (StatusCode::PRECONDITION_REQUIRED, "precondition-required")
            }
            ApiError::MethodNotAllowed { .. } => {
                (StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed")
            }
            ApiError::Unauthenticated => (StatusCode::UNAUTHORIZED, "unauthenticated"),
            ApiError::SignedInAsSomeoneElse => {
                (StatusCode::CONFLICT, app::api::SIGNED_IN_AS_SOMEONE_ELSE)
            }
            ApiError::InvalidCredentials => (StatusCode::UNAUTHORIZED, "invalid-credentials"),
            ApiError::TooManyAttempts { .. } => {
                (StatusCode::TOO_MANY_REQUESTS, "too-many-attempts")
            }
            ApiError::AdminOnly => (StatusCode::FORBIDDEN, "admin-only"),
            ApiError::CrossSite => (StatusCode::FORBIDDEN, "cross-site-request"),
            ApiError::InvitationGone => (StatusCode::GONE, "invitation-gone"),
            ApiError::SetupDone => (StatusCode::GONE, "setup-done"),
            ApiError::SetupLinkInvalid => (StatusCode::FORBIDDEN, "setup-link-invalid"),
            ApiError::UsernameTaken => (StatusCode::CONFLICT, "username-taken"),
            ApiError::SignupClosed => (StatusCode::FORBIDDEN, "signup-closed"),
            ApiError::WrongPassword => (StatusCode::FORBIDDEN, "wrong-password"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }

    /// The problem document sent to the client. Internal detail never leaves the server.
    pub fn problem(&self) -> Problem {
        let (status, slug) = self.status_and_slug();
        let detail = match self {
            ApiError::Internal(_) => {
                "the server failed; nothing was saved, retry with the same key".to_owned()
            }
            other => other.to_string(),
        };
        Problem {
            kind: format!("/problems/{slug}"),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail,
        }
    }

    /// Logs this error at a level that fits it: internal failures with their cause chain.
    pub fn log(&self, key: Option<&str>) {
        match self {
            ApiError::Internal(cause) => {
                tracing::error!(key = key.unwrap_or("-"), error = ?cause, "request failed")
            }
            ApiError::Busy | ApiError::IdempotencyKeyInUse | ApiError::TransactionConflict => {
                tracing::warn!(key = key.unwrap_or("-"), "database busy: {self}")
            }
            other => tracing::info!(key = key.unwrap_or("-"), "request refused: {other}"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let problem = self.problem();
        let status =
            StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = match &self {
            // A 412 carries the note as it is, so the client can start again from it.
            ApiError::PreconditionFailed { current } => {
                let mut value = serde_json::to_value(&problem).unwrap_or_default();
                value["current"] = serde_json::to_value(current).unwrap_or_default();
                serde_json::to_vec(&value).unwrap_or_default()
            }
            _ => serde_json::to_vec(&problem).unwrap_or_default(),
        };
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let ApiError::PreconditionFailed { current } = &self
            && let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", current.version))
        {
            headers.insert(header::ETAG, etag);
        }
        if matches!(
            self,
            ApiError::IdempotencyKeyInUse
                | ApiError::Busy
                | ApiError::TransactionConflict
                | ApiError::TooManyImports
        ) {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        }
        if let ApiError::TooManyAttempts { retry_after_secs } = self {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        if let ApiError::MethodNotAllowed { allow } = self {
            headers.insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        response
    }
}

/// The answer for a path nothing serves (under `/api/` and `/pkg/`): a problem, not a page.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("nothing is served at {}", uri.path()))
}
