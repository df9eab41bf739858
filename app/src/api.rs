//! Wire types of the notes API, shared by the browser client and the server so the
//! two sides cannot drift apart. See `PROTOCOL.md` (docs/) for the contract.

use serde::{Deserialize, Serialize};

mod changes;
mod files;
mod imports;
mod problem;
mod tags;
mod tasks;
mod tokens;

pub use changes::{
    CHANGE_EVENT, CHANGES_MAX_LIMIT, CHANGES_PATH, Change, ChangeEvent, ChangeKind, ChangesPage,
    EVENTS_PATH, SIGNED_OUT_EVENT,
};
pub use files::{
    FILE_MAX_BYTES_DEFAULT, FILE_MIN_CHARGE_BYTES, FILES_API_PATH, FILES_PATH, FileAnswer,
    FileInfo, FileList, file_href, is_file_name, quota_charge, referred_files,
};
pub use imports::{
    IMPORT_PATH, IMPORT_PROGRESS_TYPE, ImportLine, ImportProblem, ImportProgress, ImportReport,
    TagMapping,
};
pub use problem::{Problem, ProblemSlug};
pub use tags::{
    TAG_MAX_CHARS, TAGS_PATH, TagCount, TagError, TagList, TagRename, TagRenamed, carries_tag,
    is_tag_char, tag_name,
};
pub use tasks::{same_task, task_state, toggle_task};
pub use tokens::{NewToken, TOKEN_NAME_MAX_CHARS, TOKENS_PATH, TokenInfo, TokenList, TokenMade};

/// The API path for notes.
pub const NOTES_PATH: &str = "/api/notes";
/// The request header that carries a save intent's idempotency key.
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";
/// The response header set on a replayed answer.
pub const IDEMPOTENT_REPLAYED_HEADER: &str = "Idempotent-Replayed";
/// Whose a write is: the id of the person the page that made it was opened for. A page
/// keeps its person while the browser's cookie can change under it (sign out in another
/// tab, someone else signs in), so the server refuses a write that names someone other
/// than the signed-in person ([`ProblemSlug::SignedInAsSomeoneElse`]). On a page's answer the
/// same header says whose page it is (for the service worker).
pub const OWNER_HEADER: &str = "x-oncenote-user";

/// Longest title, in characters, after trimming.
pub const TITLE_MAX_CHARS: usize = 200;
/// Longest body, in characters.
pub const BODY_MAX_CHARS: usize = 100_000;
/// The largest request body the server reads. It fits the largest valid note in any
/// script and any JSON encoding: every character of title and body at its most expensive
/// (a character outside the Basic Multilingual Plane written as two `\uXXXX` escapes,
/// 12 bytes), plus room for the field names and the other fields.
pub const MAX_REQUEST_BYTES: usize = (TITLE_MAX_CHARS + BODY_MAX_CHARS) * 12 + 4096;
/// Where the page's form posts when the browser sends it itself (no JavaScript yet).
pub const FORM_PATH: &str = "/notes";
/// The form field that carries the key the server minted into the page's form (for
/// saves made without JavaScript).
pub const FORM_KEY_FIELD: &str = "idempotency_key";
/// The form field that names the person the page's form was rendered for (the form's
/// [`OWNER_HEADER`]).
pub const FORM_OWNER_FIELD: &str = "owner";

/// What the client sends to create a note: the draft plus the moment Save was pressed.
/// Unknown fields are ignored, so a newer client still works against an older server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewNote {
    pub title: String,
    pub body: String,
    /// When Save was pressed, RFC 3339. Part of the payload so an offline note keeps its time.
    pub written_at: String,
}

/// A stored note as the API returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Note {
    pub id: String,
    pub title: String,
    pub body: String,
    pub written_at: String,
    pub created_at: String,
    pub updated_at: String,
    /// 1 when created; every accepted write (edit, trash, restore) adds 1.
    pub version: i64,
    /// When the note went to the trash; `None` while it is not there.
    #[serde(default)]
    pub trashed_at: Option<String>,
    /// On a conflict copy: the note whose edit overlapped.
    #[serde(default)]
    pub conflict_of: Option<String>,
    /// The `#tags` of its title and body, folded and sorted (see [`tag_name`]).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Pinned notes list first.
    #[serde(default)]
    pub pinned: bool,
    /// The body rendered from Markdown and sanitized: on `GET /api/notes/{id}` and every
    /// write's answer about one note, never in lists or search results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}

/// `PATCH /api/notes/{id}`: a title or a body (or both) as the user saved them, and the
/// version the user started from. An absent field stays as it was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NoteEdit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_version: Option<i64>,
    /// Pin (`true`) or unpin (`false`): sent alone, without title, body or base version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    /// When Save was pressed, RFC 3339.
    pub written_at: String,
}

/// How an edit was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum EditOutcome {
    /// The note was at the version the edit started from: saved as sent.
    Applied,
    /// The note had changed meanwhile, elsewhere in other lines: both changes are kept.
    Merged,
    /// The changes overlapped: the note is as it was, and the edit is a new note.
    ConflictCopy,
}

/// The answer to an edit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct EditAnswer {
    pub outcome: EditOutcome,
    /// The note as it now is (`None` only when it was deleted for good before the edit).
    pub note: Option<Note>,
    /// The conflict copy, for `conflict-copy`.
    pub copy: Option<Note>,
}

/// The answer to a move to the trash or out of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NoteAnswer {
    pub note: Note,
}

/// What kind of write made a revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RevisionKind {
    Create,
    Edit,
    Merge,
    Trash,
    Restore,
    Pin,
    Unpin,
    /// A tag renamed in every note that had it (`POST /api/tags/rename`).
    TagRename,
}

/// One accepted write, with the note's title and body as it left them
/// (`GET /api/notes/{id}/revisions/{version}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Revision {
    pub version: i64,
    pub title: String,
    pub body: String,
    pub created_at: String,
    pub kind: RevisionKind,
}

/// One accepted write as the history lists it: which, when and the title it left, but
/// not the body — a list of every version's body grew without bound (issue #60).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RevisionSummary {
    pub version: i64,
    pub title: String,
    pub created_at: String,
    pub kind: RevisionKind,
}

/// A page of a note's history: `GET /api/notes/{id}/revisions`, oldest first (the history
/// page lists it newest first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RevisionsPage {
    pub revisions: Vec<RevisionSummary>,
    /// Cursor for the next page (the last version on this one), or `None` at the end.
    pub next: Option<String>,
}

/// The signed-in person, as the pages know them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Me {
    pub user_id: String,
    pub username: String,
    pub admin: bool,
}

/// A person with an account, as the admin's list shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AccountUser {
    pub id: String,
    pub username: String,
    pub admin: bool,
    pub disabled: bool,
    pub created_at: String,
}

/// One search hit: the note, and an HTML snippet in which only `<mark>` is markup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SearchHit {
    pub note: Note,
    pub snippet: String,
}

/// Results per page of the search page (the server's and the browser's).
pub const SEARCH_PAGE_RESULTS: u32 = 20;

/// `GET /api/search`, best match first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SearchPage {
    pub results: Vec<SearchHit>,
    pub next: Option<String>,
}

/// One page of `GET /api/notes`, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NotesPage {
    pub notes: Vec<Note>,
    /// Cursor for the next (older) page, or `None` at the end.
    pub next: Option<String>,
}

/// Why a draft cannot be saved. The same checks run in the browser before a key is made
/// and on the server before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DraftError {
    TitleEmpty,
    TitleTooLong {
        chars: usize,
    },
    BodyTooLong {
        chars: usize,
    },
    /// A control character (a NUL, a bell, a line break in the title…) that no editor
    /// types; the body may hold line breaks and tabs.
    ControlCharacter {
        field: &'static str,
    },
}

impl std::fmt::Display for DraftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DraftError::TitleEmpty => write!(f, "the title is empty"),
            DraftError::TitleTooLong { chars } => write!(
                f,
                "the title has {} characters; at most {} are allowed",
                grouped(*chars),
                grouped(TITLE_MAX_CHARS)
            ),
            DraftError::BodyTooLong { chars } => write!(
                f,
                "the body has {} characters; at most {} are allowed",
                grouped(*chars),
                grouped(BODY_MAX_CHARS)
            ),
            DraftError::ControlCharacter { field } => {
                write!(f, "the {field} holds a control character")
            }
        }
    }
}

/// `100000` → `100,000`: counts as people read them.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Checks a title alone (an edit that changes only the title).
pub fn validate_title(title: &str) -> Result<(), DraftError> {
    validate_draft(title, "")
}

/// Checks a body alone (an edit that changes only the body).
pub fn validate_body(body: &str) -> Result<(), DraftError> {
    validate_draft("t", body)
}

/// Checks a draft against the protocol's bounds (title 1–200 characters after trimming,
/// body at most 100,000 characters).
pub fn validate_draft(title: &str, body: &str) -> Result<(), DraftError> {
    let title_chars = title.trim().chars().count();
    if title_chars == 0 {
        return Err(DraftError::TitleEmpty);
    }
    if title_chars > TITLE_MAX_CHARS {
        return Err(DraftError::TitleTooLong { chars: title_chars });
    }
    let body_chars = body.chars().count();
    if body_chars > BODY_MAX_CHARS {
        return Err(DraftError::BodyTooLong { chars: body_chars });
    }
    if title.trim().chars().any(char::is_control) {
        return Err(DraftError::ControlCharacter { field: "title" });
    }
    if body
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(DraftError::ControlCharacter { field: "body" });
    }
    Ok(())
}

/// `next` if it is a path on this site to go to after signing in, else `None`. A browser
/// drops tabs and line breaks inside a URL and reads `\\` as `/`, so `/\t/evil.example`
/// would take a person to another site: any control character, whitespace or backslash
/// refuses the path, as does a leading `//` (another host).
pub fn local_path(next: &str) -> Option<&str> {
    let plain = next
        .chars()
        .all(|c| !c.is_control() && !c.is_whitespace() && c != '\\');
    (plain && next.starts_with('/') && !next.starts_with("//")).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_bounds_count_characters_after_trimming() {
        assert_eq!(validate_draft("   ", ""), Err(DraftError::TitleEmpty));
        assert!(validate_draft(&"é".repeat(200), "").is_ok());
        assert_eq!(
            validate_draft(&"é".repeat(201), ""),
            Err(DraftError::TitleTooLong { chars: 201 })
        );
        assert!(validate_draft(&format!("  {}  ", "a".repeat(200)), "").is_ok());
    }

    #[test]
    fn body_may_hold_exactly_one_hundred_thousand_characters() {
        assert!(validate_draft("t", &"x".repeat(100_000)).is_ok());
        assert_eq!(
            validate_draft("t", &"x".repeat(100_001)),
            Err(DraftError::BodyTooLong { chars: 100_001 })
        );
    }

    #[test]
    fn control_characters_are_refused_but_the_body_keeps_its_line_breaks() {
        assert!(validate_draft("t", "line one\nline two\r\n\tindented").is_ok());
        assert_eq!(
            validate_draft("a\nb", ""),
            Err(DraftError::ControlCharacter { field: "title" })
        );
        assert_eq!(
            validate_draft("t", "nul\u{0}"),
            Err(DraftError::ControlCharacter { field: "body" })
        );
        assert_eq!(
            validate_draft("bell\u{7}", ""),
            Err(DraftError::ControlCharacter { field: "title" })
        );
    }

    #[test]
    fn counts_are_grouped_in_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(100_000), "100,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn a_next_path_stays_on_this_site() {
        assert_eq!(local_path("/notes/1?x=2"), Some("/notes/1?x=2"));
        assert_eq!(local_path("/"), Some("/"));
        for bad in [
            "//evil.example/",
            "https://evil.example/",
            "/\\evil.example",
            "/\t/evil.example/x",
            "/\n/evil.example/x",
            "/\r//evil.example",
            " //evil.example",
            "/\u{0}/evil.example",
            "/\u{3000}/evil.example",
            "evil.example",
            "",
        ] {
            assert_eq!(local_path(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_import_report_keeps_its_wire_shape_and_reads_missing_fields_as_none() {
        let report = ImportReport {
            kind: "keep".into(),
            imported: 2,
            already_there: 1,
            skipped: 1,
            skipped_notes: vec![ImportProblem {
                name: "Old".into(),
                reason: "in the other app's trash".into(),
            }],
            failed: vec![ImportProblem {
                name: "x".into(),
                reason: "too long".into(),
            }],
            files: 3,
            tags_renamed: vec![TagMapping {
                from: "Home & Garden".into(),
                to: "home-garden".into(),
            }],
        };
        let wire = serde_json::to_value(&report).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({
                "kind": "keep", "imported": 2, "already_there": 1, "skipped": 1,
                "skipped_notes": [{"name": "Old", "reason": "in the other app's trash"}],
                "failed": [{"name": "x", "reason": "too long"}], "files": 3,
                "tags_renamed": [{"from": "Home & Garden", "to": "home-garden"}]
            })
        );
        assert_eq!(
            serde_json::from_value::<ImportReport>(wire).unwrap(),
            report
        );
        let partial: ImportReport = serde_json::from_str(r#"{"imported": 3}"#).unwrap();
        assert_eq!((partial.imported, partial.already_there), (3, 0));
        assert!(partial.failed.is_empty());
    }
}
