//! The API's error shape: an RFC 9457 problem document whose `type` ends in a stable slug.
//! The slugs are one enum, [`ProblemSlug`], which the server writes problems with and the
//! client reads them into, so neither side ever compares a slug as text.

use serde::{Deserialize, Serialize};

/// Where every problem `type` lives: `/problems/{slug}`.
const TYPE_PREFIX: &str = "/problems/";

/// Declares [`ProblemSlug`] with each variant's wire text once, so `as_str` and `parse`
/// cannot disagree.
macro_rules! problem_slugs {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)*) => {
        /// Every slug the API answers with (the last segment of a problem's `type`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ProblemSlug {
            $($(#[$doc])* $variant,)*
        }

        impl ProblemSlug {
            /// Every slug, for tests that check the wire text both ways.
            pub const ALL: &'static [ProblemSlug] = &[$(ProblemSlug::$variant,)*];

            /// The slug as it is written on the wire (`validation-failed`, …).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ProblemSlug::$variant => $text,)*
                }
            }

            /// The slug for its wire text; `None` for one this version does not know.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some(ProblemSlug::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

problem_slugs! {
    /// 413: the body (or what an archive unpacks to) is larger than the server reads.
    PayloadTooLarge => "payload-too-large",
    /// 400: the body could not be read.
    InvalidBody => "invalid-body",
    /// 408: the body did not arrive in time.
    RequestTimeout => "request-timeout",
    /// 421: a host this server does not answer to.
    UnknownHost => "unknown-host",
    /// 400: a write without its `Idempotency-Key`.
    MissingIdempotencyKey => "missing-idempotency-key",
    /// 400: an `Idempotency-Key` that is not one.
    InvalidIdempotencyKey => "invalid-idempotency-key",
    /// 415: a body of a type the route does not take.
    UnsupportedMediaType => "unsupported-media-type",
    /// 400: a body that is not the JSON the route takes.
    InvalidJson => "invalid-json",
    /// 422: a draft (or a form) outside the protocol's bounds.
    ValidationFailed => "validation-failed",
    /// 400: a query string the route cannot read.
    InvalidQuery => "invalid-query",
    /// 422: a tag rename that would rewrite more text than one rename may; nothing renamed.
    RenameTooLarge => "rename-too-large",
    /// 410: a late retry of a write that was done, whose note was deleted for good since.
    DeletedElsewhere => "deleted-elsewhere",
    /// 503: as many imports as the server runs at once are running.
    TooManyImports => "too-many-imports",
    /// 429: this person has an import running already.
    ImportRunning => "import-running",
    /// 422: a key already used with a different request.
    IdempotencyKeyReused => "idempotency-key-reused",
    /// 409: a request with the same key is running now; retried with the key.
    IdempotencyKeyInUse => "idempotency-key-in-use",
    /// 503: the database is busy; retried with the key.
    DatabaseBusy => "database-busy",
    /// 503: the database cannot be reached (it restarts, a connection was lost).
    DatabaseUnavailable => "database-unavailable",
    /// 507: the server's disk (or its database) is full until the operator makes room.
    StorageFull => "storage-full",
    /// 404: nothing there.
    NotFound => "not-found",
    /// 412: the note is not at the version in `If-Match`.
    PreconditionFailed => "precondition-failed",
    /// 428: an edit that does not say which version it starts from.
    PreconditionRequired => "precondition-required",
    /// 405: a method the route does not answer.
    MethodNotAllowed => "method-not-allowed",
    /// 401: nobody is signed in (the session ended).
    Unauthenticated => "unauthenticated",
    /// 409: a write names someone other than the person signed in now; it waits for them.
    SignedInAsSomeoneElse => "signed-in-as-someone-else",
    /// 401: the username or the password is wrong.
    InvalidCredentials => "invalid-credentials",
    /// 429: too many failed sign-ins.
    TooManyAttempts => "too-many-attempts",
    /// 403: only an admin can do this.
    AdminOnly => "admin-only",
    /// 401: an `Authorization: Bearer` token that is no one's (unknown, revoked, malformed).
    InvalidToken => "invalid-token",
    /// 403: a personal access token on a route it does not open (account management).
    TokenNotAllowed => "token-not-allowed",
    /// 409: the person has as many personal access tokens as the server keeps.
    TooManyTokens => "too-many-tokens",
    /// 403: a request from another site.
    CrossSiteRequest => "cross-site-request",
    /// 410: an invitation used already or expired.
    InvitationGone => "invitation-gone",
    /// 410: the first account exists already.
    SetupDone => "setup-done",
    /// 403: a setup link this server did not give out.
    SetupLinkInvalid => "setup-link-invalid",
    /// 409: the username is taken.
    UsernameTaken => "username-taken",
    /// 403: new accounts come by invitation only.
    SignupClosed => "signup-closed",
    /// 403: the current password is wrong.
    WrongPassword => "wrong-password",
    /// 410: a `since` the change feed no longer covers (compacted, or from another
    /// database): start over from `since=0`.
    ChangesExpired => "changes-expired",
    /// 429: this person has as many live streams open as the server allows.
    TooManyStreams => "too-many-streams",
    /// 503: the server holds as many live streams as it allows; retried later.
    StreamsFull => "streams-full",
    /// 422: the bytes of an upload do not hash to the name they were sent under.
    HashMismatch => "hash-mismatch",
    /// 413: the upload would take the person past their room for files.
    QuotaExceeded => "quota-exceeded",
    /// 429: this person has as many uploads running as the server allows at once.
    TooManyUploads => "too-many-uploads",
    /// 503: the server runs as many uploads at once as it allows; retried later.
    UploadsFull => "uploads-full",
    /// 429: this person has an export being written or sent already.
    TooManyExports => "too-many-exports",
    /// 503: the server writes as many exports at once as it allows; retried later.
    ExportsFull => "exports-full",
    /// 500: the server failed (a bug); nothing was saved.
    Internal => "internal",
}

impl ProblemSlug {
    /// The problem `type` this slug is written as: `/problems/{slug}`.
    pub fn type_uri(self) -> String {
        format!("{TYPE_PREFIX}{}", self.as_str())
    }
}

impl std::fmt::Display for ProblemSlug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An RFC 9457 problem document, as every error of the API is shaped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Problem {
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
}

impl Problem {
    /// The stable slug at the end of `type` (`validation-failed`, …), as written.
    pub fn slug(&self) -> &str {
        self.kind.rsplit('/').next().unwrap_or(&self.kind)
    }

    /// The slug as the enum, when it is one this version knows.
    pub fn known_slug(&self) -> Option<ProblemSlug> {
        ProblemSlug::parse(self.slug())
    }

    /// Whether this problem is the one `slug` names.
    pub fn is(&self, slug: ProblemSlug) -> bool {
        self.known_slug() == Some(slug)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_slug_is_the_last_segment_of_its_type() {
        let p = Problem {
            kind: "/problems/validation-failed".into(),
            title: "t".into(),
            status: 422,
            detail: "d".into(),
        };
        assert_eq!(p.slug(), "validation-failed");
        assert_eq!(p.known_slug(), Some(ProblemSlug::ValidationFailed));
        assert!(p.is(ProblemSlug::ValidationFailed));
        assert!(!p.is(ProblemSlug::InvalidJson));
    }

    #[test]
    fn every_slug_reads_back_from_its_own_wire_text_and_type() {
        for &slug in ProblemSlug::ALL {
            assert_eq!(ProblemSlug::parse(slug.as_str()), Some(slug));
            assert_eq!(slug.type_uri(), format!("/problems/{slug}"));
        }
        assert_eq!(ProblemSlug::parse("teleport-failed"), None);
    }
}
