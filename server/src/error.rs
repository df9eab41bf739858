//! The API's error policy, in one place.
//!
//! - Every error a client can see is an [`ApiError`] and goes out as
//!   `application/problem+json` (RFC 9457) with a stable slug in `type`.
//! - Client mistakes (4xx) say exactly what was wrong; nothing is written for them.
//! - [`ApiError::Internal`] wraps everything unexpected (database, I/O). Its cause is
//!   logged by the handler with the idempotency key; the client gets a generic 500.
//! - A database failure is read in one place, `storage::DbFailure::of`, for every route (reads,
//!   session lookups, writes): a busy database is 503 `database-busy`, a database that
//!   cannot be reached (connection lost or refused, server restarting, pool closed or out
//!   of time) is 503 `database-unavailable`, a full disk or database is 507
//!   `storage-full` — all with `Retry-After`, none stores anything, and the client
//!   retries each with the same key. Only what is none of these is a 500 (a bug).
//! - A 409 `idempotency-key-in-use` means one thing only: a request with the same key is
//!   running right now. The client retries it with the same key too.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use app::api::{Problem, ProblemSlug};

use crate::records::KeyError;
use crate::records::cursor::InvalidCursor;
pub use crate::storage::error::DbFailure;
use crate::storage::error::StorageError;

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
    /// A tag rename that would rewrite more text than one rename may (it holds every
    /// write of the database while it runs, on SQLite): nothing was renamed.
    #[error(
        "renaming #{from} would rewrite {notes} notes of {chars} characters in all; one rename \
         rewrites at most {max_chars} characters (ONCENOTE_RENAME_MAX_CHARS): nothing was \
         renamed. Rename a tag nested under it first, or fewer notes at a time"
    )]
    RenameTooLarge {
        from: String,
        notes: usize,
        chars: u64,
        max_chars: u64,
    },
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
    #[error(
        "an import of yours is running; importing the same file again after it ends adds nothing twice"
    )]
    ImportRunning,
    /// A `since` the change feed does not cover: older than what it keeps, or past its end
    /// (a database restored or swapped under the client).
    #[error("{0}")]
    ChangesExpired(String),
    #[error(
        "this account has as many live streams open as the server allows; close a tab or device"
    )]
    TooManyStreams,
    #[error("the server holds as many live streams as it allows; retry in a moment")]
    StreamsFull,
    /// The database could not be reached (connection lost or refused, server restarting).
    #[error("the database cannot be reached; nothing was saved, retry with the same key")]
    DatabaseUnavailable,
    /// The disk (or the database's size limit) is full: nothing more can be written until
    /// the operator makes room.
    #[error("the server's disk is full; nothing was saved, retry with the same key later")]
    StorageFull,
    /// The database aborted the transaction for a conflict with another one (a deadlock
    /// or a serialization failure): nothing was written, and the write can run again.
    #[error("the write met another one in the database; retry in a moment")]
    TransactionConflict,
    #[error("{0}")]
    NotFound(String),
    /// An upload whose bytes do not hash to the name it was sent under: nothing stored.
    #[error("the bytes hash to {actual}, not to the file's name")]
    HashMismatch { actual: String },
    /// An upload that would take the person past their room for files.
    #[error(
        "this file ({size} bytes; each file counts as at least 4 KiB) does not fit: {used} of {quota} bytes are used"
    )]
    QuotaExceeded { size: u64, used: u64, quota: u64 },
    #[error("this account has as many uploads running as the server allows; retry when one ends")]
    TooManyUploads,
    #[error("the server runs as many uploads at once as it allows; retry in a moment")]
    UploadsFull,
    #[error("this account has an export being written or sent; retry when it ends")]
    TooManyExports,
    #[error("the server writes as many exports at once as it allows; retry in a moment")]
    ExportsFull,
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
    /// As many attempts as a sign-in limit allows are being checked right now (eight right
    /// passwords sent at once): nothing failed and nothing is locked, so the answer says
    /// so and asks for a retry in a second.
    #[error("too many sign-ins to this account are being checked at once; try again in a second")]
    AttemptsCrowded,
    #[error("only an admin can do this")]
    AdminOnly,
    /// Unknown, revoked, malformed, or its person disabled: never a fall back to a cookie.
    #[error("this token is not valid (revoked, mistyped, or its account is disabled)")]
    InvalidToken,
    #[error(
        "a personal access token does not open account management; sign in on the site for this"
    )]
    TokenNotAllowed,
    #[error("this account has {0} tokens, as many as it may; revoke one first")]
    TooManyTokens(usize),
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
        StorageError::from(error).into()
    }
}

impl From<KeyError> for ApiError {
    fn from(error: KeyError) -> Self {
        match error {
            KeyError::Missing => ApiError::MissingIdempotencyKey,
            KeyError::Invalid(reason) => ApiError::InvalidIdempotencyKey(reason),
        }
    }
}

impl From<InvalidCursor> for ApiError {
    fn from(error: InvalidCursor) -> Self {
        ApiError::InvalidQuery(error.0)
    }
}

/// What a storage failure is told as.
impl From<StorageError> for ApiError {
    fn from(error: StorageError) -> Self {
        match error {
            StorageError::Busy => ApiError::Busy,
            StorageError::Conflict => ApiError::TransactionConflict,
            StorageError::Unavailable => ApiError::DatabaseUnavailable,
            StorageError::Full => ApiError::StorageFull,
            StorageError::KeyInUse => ApiError::IdempotencyKeyInUse,
            StorageError::KeyReused => ApiError::IdempotencyKeyReused,
            // The pipeline replays the stored answer instead; were it gone, the client
            // sends again with its key.
            StorageError::KeyTaken => ApiError::IdempotencyKeyInUse,
            StorageError::UsernameTaken => ApiError::UsernameTaken,
            // The domain's own refusal, carried through the write transaction: itself.
            StorageError::Refused(refusal) => match refusal.downcast::<ApiError>() {
                Ok(error) => *error,
                Err(other) => ApiError::Internal(anyhow::anyhow!(other)),
            },
            StorageError::Other(cause) => ApiError::Internal(cause),
        }
    }
}

impl ApiError {
    /// This error as the work inside a write transaction hands it to storage: a database
    /// failure as storage's own (so a conflict is run again, a full disk is a full disk),
    /// anything else as a refusal storage carries back unchanged.
    pub fn into_storage(self) -> StorageError {
        match self {
            ApiError::Busy => StorageError::Busy,
            ApiError::TransactionConflict => StorageError::Conflict,
            ApiError::DatabaseUnavailable => StorageError::Unavailable,
            ApiError::StorageFull => StorageError::Full,
            other => StorageError::Refused(Box::new(other)),
        }
    }
}

/// Seconds a client should wait before retrying after a 409 in-use or a 503 busy.
pub const RETRY_AFTER_SECS: u32 = 1;
/// Seconds a client should wait before retrying when the database cannot be reached: a
/// PostgreSQL server restarting is back in a few seconds.
pub const UNAVAILABLE_RETRY_AFTER_SECS: u32 = 2;
/// Seconds a client should wait before retrying when the disk is full: room comes back
/// only when the operator makes it, and every attempt until then is refused.
pub const STORAGE_FULL_RETRY_AFTER_SECS: u32 = 30;

impl ApiError {
    /// The HTTP status and the stable slug of this error.
    pub fn status_and_slug(&self) -> (StatusCode, ProblemSlug) {
        match self {
            ApiError::PayloadTooLarge { .. } | ApiError::UnpacksTooLarge(_) => {
                (StatusCode::PAYLOAD_TOO_LARGE, ProblemSlug::PayloadTooLarge)
            }
            ApiError::InvalidBody(_) => (StatusCode::BAD_REQUEST, ProblemSlug::InvalidBody),
            ApiError::RequestTimeout => (StatusCode::REQUEST_TIMEOUT, ProblemSlug::RequestTimeout),
            ApiError::UnknownHost(_) => (StatusCode::MISDIRECTED_REQUEST, ProblemSlug::UnknownHost),
            ApiError::MissingIdempotencyKey => {
                (StatusCode::BAD_REQUEST, ProblemSlug::MissingIdempotencyKey)
            }
            ApiError::InvalidIdempotencyKey(_) => {
                (StatusCode::BAD_REQUEST, ProblemSlug::InvalidIdempotencyKey)
            }
            ApiError::UnsupportedMediaType(_) => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ProblemSlug::UnsupportedMediaType,
            ),
            ApiError::InvalidJson(_) => (StatusCode::BAD_REQUEST, ProblemSlug::InvalidJson),
            ApiError::ValidationFailed(_) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                ProblemSlug::ValidationFailed,
            ),
            ApiError::InvalidQuery(_) => (StatusCode::BAD_REQUEST, ProblemSlug::InvalidQuery),
            ApiError::RenameTooLarge { .. } => (
                StatusCode::UNPROCESSABLE_ENTITY,
                ProblemSlug::RenameTooLarge,
            ),
            ApiError::DeletedElsewhere(_) => (StatusCode::GONE, ProblemSlug::DeletedElsewhere),
            ApiError::TooManyImports => {
                (StatusCode::SERVICE_UNAVAILABLE, ProblemSlug::TooManyImports)
            }
            ApiError::ChangesExpired(_) => (StatusCode::GONE, ProblemSlug::ChangesExpired),
            ApiError::TooManyStreams => {
                (StatusCode::TOO_MANY_REQUESTS, ProblemSlug::TooManyStreams)
            }
            ApiError::StreamsFull => (StatusCode::SERVICE_UNAVAILABLE, ProblemSlug::StreamsFull),
            ApiError::IdempotencyKeyReused => (
                StatusCode::UNPROCESSABLE_ENTITY,
                ProblemSlug::IdempotencyKeyReused,
            ),
            ApiError::IdempotencyKeyInUse => {
                (StatusCode::CONFLICT, ProblemSlug::IdempotencyKeyInUse)
            }
            ApiError::Busy | ApiError::TransactionConflict => {
                (StatusCode::SERVICE_UNAVAILABLE, ProblemSlug::DatabaseBusy)
            }
            ApiError::DatabaseUnavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                ProblemSlug::DatabaseUnavailable,
            ),
            ApiError::StorageFull => (StatusCode::INSUFFICIENT_STORAGE, ProblemSlug::StorageFull),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, ProblemSlug::NotFound),
            ApiError::HashMismatch { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, ProblemSlug::HashMismatch)
            }
            ApiError::QuotaExceeded { .. } => {
                (StatusCode::PAYLOAD_TOO_LARGE, ProblemSlug::QuotaExceeded)
            }
            ApiError::TooManyUploads => {
                (StatusCode::TOO_MANY_REQUESTS, ProblemSlug::TooManyUploads)
            }
            ApiError::UploadsFull => (StatusCode::SERVICE_UNAVAILABLE, ProblemSlug::UploadsFull),
            ApiError::ImportRunning => (StatusCode::TOO_MANY_REQUESTS, ProblemSlug::ImportRunning),
            ApiError::TooManyExports => {
                (StatusCode::TOO_MANY_REQUESTS, ProblemSlug::TooManyExports)
            }
            ApiError::ExportsFull => (StatusCode::SERVICE_UNAVAILABLE, ProblemSlug::ExportsFull),
            ApiError::PreconditionFailed { .. } => (
                StatusCode::PRECONDITION_FAILED,
                ProblemSlug::PreconditionFailed,
            ),
            ApiError::PreconditionRequired => (
                StatusCode::PRECONDITION_REQUIRED,
                ProblemSlug::PreconditionRequired,
            ),
            ApiError::MethodNotAllowed { .. } => (
                StatusCode::METHOD_NOT_ALLOWED,
                ProblemSlug::MethodNotAllowed,
            ),
            ApiError::Unauthenticated => (StatusCode::UNAUTHORIZED, ProblemSlug::Unauthenticated),
            ApiError::SignedInAsSomeoneElse => {
                (StatusCode::CONFLICT, ProblemSlug::SignedInAsSomeoneElse)
            }
            ApiError::InvalidCredentials => {
                (StatusCode::UNAUTHORIZED, ProblemSlug::InvalidCredentials)
            }
            ApiError::TooManyAttempts { .. } | ApiError::AttemptsCrowded => {
                (StatusCode::TOO_MANY_REQUESTS, ProblemSlug::TooManyAttempts)
            }
            ApiError::AdminOnly => (StatusCode::FORBIDDEN, ProblemSlug::AdminOnly),
            ApiError::InvalidToken => (StatusCode::UNAUTHORIZED, ProblemSlug::InvalidToken),
            ApiError::TokenNotAllowed => (StatusCode::FORBIDDEN, ProblemSlug::TokenNotAllowed),
            ApiError::TooManyTokens(_) => (StatusCode::CONFLICT, ProblemSlug::TooManyTokens),
            ApiError::CrossSite => (StatusCode::FORBIDDEN, ProblemSlug::CrossSiteRequest),
            ApiError::InvitationGone => (StatusCode::GONE, ProblemSlug::InvitationGone),
            ApiError::SetupDone => (StatusCode::GONE, ProblemSlug::SetupDone),
            ApiError::SetupLinkInvalid => (StatusCode::FORBIDDEN, ProblemSlug::SetupLinkInvalid),
            ApiError::UsernameTaken => (StatusCode::CONFLICT, ProblemSlug::UsernameTaken),
            ApiError::SignupClosed => (StatusCode::FORBIDDEN, ProblemSlug::SignupClosed),
            ApiError::WrongPassword => (StatusCode::FORBIDDEN, ProblemSlug::WrongPassword),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, ProblemSlug::Internal),
        }
    }

    /// The class of a database failure this error stands for, if it is one.
    pub fn db_failure(&self) -> Option<DbFailure> {
        match self {
            ApiError::TransactionConflict => Some(DbFailure::Conflict),
            ApiError::Busy => Some(DbFailure::Busy),
            ApiError::DatabaseUnavailable => Some(DbFailure::Unavailable),
            ApiError::StorageFull => Some(DbFailure::StorageFull),
            _ => None,
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
            kind: slug.type_uri(),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail,
        }
    }

    /// Logs this error at a level that fits it, one line each: only a bug (500) with its
    /// cause chain (and a backtrace, when captured); a full disk once a minute.
    pub fn log(&self, key: Option<&str>) {
        let key = key.unwrap_or("-");
        match self {
            ApiError::Internal(cause) => {
                tracing::error!(key, class = "bug", error = ?cause, "request failed")
            }
            ApiError::Busy | ApiError::IdempotencyKeyInUse | ApiError::TransactionConflict => {
                tracing::warn!(key, class = "database-busy", "database busy: {self}")
            }
            ApiError::DatabaseUnavailable => {
                tracing::warn!(
                    key,
                    class = "database-unavailable",
                    "request refused: {self}"
                )
            }
            ApiError::StorageFull => {
                if let Some(refused) = STORAGE_FULL_LOG.due() {
                    tracing::error!(
                        key,
                        class = "storage-full",
                        refused,
                        "the database's disk is full: writes are refused (507) until there is room; \
                         logged once a minute, `refused` counts the requests since the last line"
                    )
                }
            }
            other => {
                let class = other.status_and_slug().1.as_str();
                tracing::info!(key, class, "request refused: {other}")
            }
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
        let retry_after = match self {
            ApiError::IdempotencyKeyInUse
            | ApiError::Busy
            | ApiError::TransactionConflict
            | ApiError::TooManyImports
            | ApiError::UploadsFull
            | ApiError::ExportsFull
            | ApiError::StreamsFull
            | ApiError::AttemptsCrowded => Some(RETRY_AFTER_SECS),
            ApiError::TooManyUploads | ApiError::TooManyExports | ApiError::ImportRunning => {
                Some(UPLOADS_RETRY_AFTER_SECS)
            }
            ApiError::TooManyStreams => Some(STREAMS_RETRY_AFTER_SECS),
            ApiError::DatabaseUnavailable => Some(UNAVAILABLE_RETRY_AFTER_SECS),
            ApiError::StorageFull => Some(STORAGE_FULL_RETRY_AFTER_SECS),
            _ => None,
        };
        if let Some(seconds) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let ApiError::TooManyAttempts { retry_after_secs } = self {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        if let ApiError::InvalidToken = self {
            // RFC 6750: a refused bearer says which scheme the route takes.
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer error=\"invalid_token\""),
            );
        }
        if let ApiError::MethodNotAllowed { allow } = self {
            headers.insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        response
    }
}

/// A person at their uploads' cap: one of theirs must end first, which takes seconds.
const UPLOADS_RETRY_AFTER_SECS: u32 = 5;

/// A person at their streams' cap: a tab closed frees a place, but not in a second.
const STREAMS_RETRY_AFTER_SECS: u32 = 30;

/// A full disk refuses every write until there is room: its line is logged once a
/// minute, with how many refusals it stands for, not once a request.
static STORAGE_FULL_LOG: LogThrottle = LogThrottle::new(60);

/// Lets a line through at most once per period, counting the ones held back.
struct LogThrottle {
    period_secs: u64,
    /// Seconds since the process started (plus one) when a line last went out; 0: never.
    last: AtomicU64,
    held: AtomicU64,
}

impl LogThrottle {
    const fn new(period_secs: u64) -> Self {
        Self {
            period_secs,
            last: AtomicU64::new(0),
            held: AtomicU64::new(0),
        }
    }

    /// `Some(count)` when a line is due now (`count`: this one and those held back since
    /// the last line); `None` when it is held back.
    fn due(&self) -> Option<u64> {
        static START: OnceLock<Instant> = OnceLock::new();
        let now = START.get_or_init(Instant::now).elapsed().as_secs() + 1;
        let held = self.held.fetch_add(1, Ordering::Relaxed) + 1;
        let last = self.last.load(Ordering::Relaxed);
        let due = last == 0 || now >= last + self.period_secs;
        if due
            && self
                .last
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.held.fetch_sub(held, Ordering::Relaxed);
            return Some(held);
        }
        None
    }
}

/// The answer for a path nothing serves (under `/api/` and `/pkg/`): a problem, not a page.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("nothing is served at {}", uri.path()))
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    /// A PostgreSQL-like error with a SQLSTATE (what matters here is its code).
    #[derive(Debug, thiserror::Error)]
    #[error("sqlstate {0}")]
    struct Sqlstate(&'static str);

    impl sqlx::error::DatabaseError for Sqlstate {
        fn message(&self) -> &str {
            self.0
        }
        fn code(&self) -> Option<Cow<'_, str>> {
            Some(Cow::Borrowed(self.0))
        }
        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }
        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    fn postgres(code: &'static str) -> sqlx::Error {
        sqlx::Error::Database(Box::new(Sqlstate(code)))
    }

    fn status_of(error: sqlx::Error) -> (u16, ProblemSlug) {
        let (status, slug) = ApiError::from(error).status_and_slug();
        (status.as_u16(), slug)
    }

    #[test]
    fn a_refusal_carried_through_a_write_transaction_comes_back_as_itself() {
        let refused = ApiError::NotFound("no note has the id \"x\"".into()).into_storage();
        assert!(matches!(refused, StorageError::Refused(_)));
        match ApiError::from(refused) {
            ApiError::NotFound(detail) => assert_eq!(detail, "no note has the id \"x\""),
            other => panic!("expected the 404 back, got {other:?}"),
        }
    }

    #[test]
    fn a_database_failure_inside_a_write_stays_storages_own() {
        // A conflict must reach PostgreSQL's retry loop as a conflict, and a full disk
        // must reach the writer as a full disk (it closes the connection for it).
        assert!(matches!(
            ApiError::TransactionConflict.into_storage(),
            StorageError::Conflict
        ));
        assert!(matches!(
            ApiError::StorageFull.into_storage(),
            StorageError::Full
        ));
        assert!(matches!(ApiError::Busy.into_storage(), StorageError::Busy));
        assert!(matches!(
            ApiError::from(StorageError::Conflict).status_and_slug().1,
            ProblemSlug::DatabaseBusy
        ));
    }

    #[test]
    fn a_full_disk_on_postgresql_is_507_storage_full() {
        assert_eq!(
            status_of(postgres("53100")),
            (507, ProblemSlug::StorageFull)
        );
    }

    #[test]
    fn a_lost_or_refused_connection_is_503_database_unavailable_not_a_bug() {
        let reset = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        for error in [
            sqlx::Error::Io(reset()),
            sqlx::Error::PoolTimedOut,
            sqlx::Error::PoolClosed,
            postgres("57P01"),
            postgres("57P02"),
            postgres("57P03"),
            postgres("08006"),
        ] {
            let shown = format!("{error:?}");
            assert_eq!(
                status_of(error),
                (503, ProblemSlug::DatabaseUnavailable),
                "{shown}"
            );
        }
    }

    #[test]
    fn a_lock_not_free_in_time_is_busy_and_anything_else_is_a_bug() {
        for code in ["55P03", "57014", "53300", "40001", "40P01"] {
            assert_eq!(
                status_of(postgres(code)),
                (503, ProblemSlug::DatabaseBusy),
                "{code}"
            );
        }
        assert_eq!(status_of(postgres("23505")), (500, ProblemSlug::Internal));
        assert_eq!(
            status_of(sqlx::Error::RowNotFound),
            (500, ProblemSlug::Internal)
        );
    }

    #[test]
    fn every_database_refusal_carries_retry_after() {
        for error in [
            ApiError::StorageFull,
            ApiError::DatabaseUnavailable,
            ApiError::Busy,
        ] {
            let response = error.into_response();
            assert!(response.headers().contains_key(header::RETRY_AFTER));
        }
    }

    #[test]
    fn a_throttled_line_goes_out_once_a_period_and_counts_the_ones_held_back() {
        let throttle = LogThrottle::new(3_600);
        assert_eq!(throttle.due(), Some(1));
        assert_eq!(throttle.due(), None);
        assert_eq!(throttle.due(), None);
        assert_eq!(throttle.held.load(Ordering::Relaxed), 2);
    }
}
