//! Requests that change a note (edit, trash, restore, delete for good) once they passed
//! every check, in the canonical form that is fingerprinted.

use axum::http::HeaderMap;

use app::api::{NOTES_PATH, NoteEdit, validate_body, validate_title};

use super::new_note::written_at;
use crate::error::ApiError;
use crate::idempotency::Fingerprint;

/// The `If-Match` precondition of a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IfMatch {
    /// No `If-Match`.
    Absent,
    /// `If-Match: *`: any version of an existing note.
    Any,
    /// `If-Match: "3"`.
    Version(i64),
    /// A value that names no version this server gives out: it never matches (412).
    Never,
}

impl IfMatch {
    /// Reads `If-Match`. Versions are strong entity tags (`"3"`); a weak tag never
    /// matches (RFC 9110 §13.1.1).
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let Some(value) = headers.get(axum::http::header::IF_MATCH) else {
            return IfMatch::Absent;
        };
        let Ok(text) = value.to_str() else {
            return IfMatch::Never;
        };
        let text = text.trim();
        if text == "*" {
            return IfMatch::Any;
        }
        text.strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .and_then(|t| t.parse::<i64>().ok())
            .map_or(IfMatch::Never, IfMatch::Version)
    }

    /// Whether a note at `version` meets the precondition.
    pub fn allows(&self, version: i64) -> bool {
        match self {
            IfMatch::Absent | IfMatch::Any => true,
            IfMatch::Version(v) => *v == version,
            IfMatch::Never => false,
        }
    }

    /// The version the write starts from, if `If-Match` names one.
    pub fn version(&self) -> Option<i64> {
        match self {
            IfMatch::Version(v) => Some(*v),
            _ => None,
        }
    }

    pub fn canonical(&self) -> String {
        match self {
            IfMatch::Absent => "-".into(),
            IfMatch::Any => "*".into(),
            IfMatch::Version(v) => v.to_string(),
            IfMatch::Never => "!".into(),
        }
    }
}

/// A valid edit: title trimmed, `written_at` in UTC to the millisecond.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidNoteEdit {
    pub id: String,
    pub title: Option<String>,
    pub body: Option<String>,
    pub base_version: Option<i64>,
    pub if_match: IfMatch,
    pub written_at: String,
}

impl ValidNoteEdit {
    pub fn parse(id: &str, request: NoteEdit, if_match: IfMatch) -> Result<Self, ApiError> {
        let invalid = |reason: String| ApiError::ValidationFailed(reason);
        if request.title.is_none() && request.body.is_none() {
            return Err(invalid("send a title, a body, or both".into()));
        }
        if let Some(title) = &request.title {
            validate_title(title).map_err(|e| invalid(e.to_string()))?;
        }
        if let Some(body) = &request.body {
            validate_body(body).map_err(|e| invalid(e.to_string()))?;
        }
        if let Some(base) = request.base_version
            && base < 1
        {
            return Err(invalid(format!(
                "base_version is a note's version (1 or more), got {base}"
            )));
        }
        let written_at = written_at(&request.written_at)?;
        if if_match == IfMatch::Absent && request.base_version.is_none() {
            return Err(ApiError::PreconditionRequired);
        }
        Ok(Self {
            id: id.to_owned(),
            title: request.title.map(|t| t.trim().to_owned()),
            body: request.body,
            base_version: request.base_version,
            if_match,
            written_at,
        })
    }

    /// The fingerprint of this `PATCH`: an absent field differs from an empty one.
    pub fn fingerprint(&self) -> Fingerprint {
        let field = |value: &Option<String>| match value {
            Some(v) => format!("+{v}"),
            None => "-".to_owned(),
        };
        Fingerprint::of(
            "PATCH",
            &format!("{NOTES_PATH}/{}", self.id),
            &[
                &field(&self.title),
                &field(&self.body),
                &self
                    .base_version
                    .map_or_else(|| "-".to_owned(), |v| v.to_string()),
                &self.if_match.canonical(),
                &self.written_at,
            ],
        )
    }
}

/// A move to the trash, out of it, or a delete for good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifecycle {
    Trash,
    Restore,
    Purge,
}

/// A valid lifecycle request on one note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidLifecycle {
    pub id: String,
    pub change: Lifecycle,
    pub if_match: IfMatch,
}

impl ValidLifecycle {
    pub fn fingerprint(&self) -> Fingerprint {
        let (method, route) = match self.change {
            Lifecycle::Trash => ("DELETE", format!("{NOTES_PATH}/{}", self.id)),
            Lifecycle::Restore => ("POST", format!("{NOTES_PATH}/{}/restore", self.id)),
            Lifecycle::Purge => ("DELETE", format!("{NOTES_PATH}/{}?permanent=true", self.id)),
        };
        Fingerprint::of(method, &route, &[&self.if_match.canonical()])
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn edit(title: Option<&str>, body: Option<&str>) -> NoteEdit {
        NoteEdit {
            title: title.map(str::to_owned),
            body: body.map(str::to_owned),
            base_version: Some(1),
            pinned: None,
            written_at: "2026-11-30T05:00:00Z".into(),
        }
    }

    #[test]
    fn if_match_reads_strong_versions_and_never_matches_anything_else() {
        let read = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert("if-match", HeaderValue::from_str(value).unwrap());
            IfMatch::from_headers(&headers)
        };
        assert_eq!(read("\"3\""), IfMatch::Version(3));
        assert_eq!(read("*"), IfMatch::Any);
        assert_eq!(read("W/\"3\""), IfMatch::Never);
        assert_eq!(read("3"), IfMatch::Never);
        assert_eq!(IfMatch::from_headers(&HeaderMap::new()), IfMatch::Absent);
        assert!(IfMatch::Version(3).allows(3) && !IfMatch::Version(3).allows(4));
    }

    #[test]
    fn an_edit_must_change_something_within_the_bounds() {
        assert!(ValidNoteEdit::parse("n", edit(None, None), IfMatch::Absent).is_err());
        assert!(ValidNoteEdit::parse("n", edit(Some("  "), None), IfMatch::Absent).is_err());
        assert!(ValidNoteEdit::parse("n", edit(None, Some("b")), IfMatch::Absent).is_ok());
        let unanchored = NoteEdit {
            base_version: None,
            ..edit(Some("t"), None)
        };
        assert!(matches!(
            ValidNoteEdit::parse("n", unanchored, IfMatch::Absent),
            Err(ApiError::PreconditionRequired)
        ));
        let body = "x".repeat(100_001);
        assert!(ValidNoteEdit::parse("n", edit(None, Some(&body)), IfMatch::Absent).is_err());
    }

    #[test]
    fn an_absent_field_and_an_empty_one_are_different_requests() {
        let absent = ValidNoteEdit::parse("n", edit(Some("t"), None), IfMatch::Absent).unwrap();
        let empty = ValidNoteEdit::parse("n", edit(Some("t"), Some("")), IfMatch::Absent).unwrap();
        assert_ne!(absent.fingerprint(), empty.fingerprint());
    }

    #[test]
    fn each_lifecycle_change_has_its_own_fingerprint() {
        let of = |change| {
            ValidLifecycle {
                id: "n".into(),
                change,
                if_match: IfMatch::Absent,
            }
            .fingerprint()
        };
        assert_ne!(of(Lifecycle::Trash), of(Lifecycle::Purge));
        assert_ne!(of(Lifecycle::Trash), of(Lifecycle::Restore));
    }
}
