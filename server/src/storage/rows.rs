//! What both databases read back the same way: a note's and a revision's columns, and
//! the names revisions are stored under.

use app::api::{Note, Revision, RevisionKind, RevisionSummary};

use crate::records::{Fingerprint, User};
use crate::storage::{PastWrite, StorageError};

/// The columns of a note, in `NoteRow`'s order.
pub const NOTE_COLUMNS: &str = "id, title, body, written_at, created_at, updated_at, version, \
     trashed_at, conflict_of, pinned, tags";

#[derive(Clone, sqlx::FromRow)]
pub struct NoteRow {
    id: String,
    title: String,
    body: String,
    written_at: String,
    created_at: String,
    updated_at: String,
    version: i64,
    trashed_at: Option<String>,
    conflict_of: Option<String>,
    pinned: bool,
    /// The note's tags, one per line (`NULL` until the backfill of an older database).
    tags: Option<String>,
}

impl NoteRow {
    /// A row whose first columns are [`NOTE_COLUMNS`], as the SQLite writer reads it.
    pub fn from_sqlite(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: row.get(0)?,
            title: row.get(1)?,
            body: row.get(2)?,
            written_at: row.get(3)?,
            created_at: row.get(4)?,
            updated_at: row.get(5)?,
            version: row.get(6)?,
            trashed_at: row.get(7)?,
            conflict_of: row.get(8)?,
            pinned: row.get(9)?,
            tags: row.get(10)?,
        })
    }
}

impl From<NoteRow> for Note {
    fn from(row: NoteRow) -> Self {
        Note {
            id: row.id,
            written_at: row.written_at,
            created_at: row.created_at,
            updated_at: row.updated_at,
            version: row.version,
            trashed_at: row.trashed_at,
            conflict_of: row.conflict_of,
            pinned: row.pinned,
            tags: match row.tags {
                Some(tags) => tags_from_column(&tags),
                None => crate::text::tags::of_note(&row.title, &row.body),
            },
            title: row.title,
            body: row.body,
            html: None,
        }
    }
}

#[derive(sqlx::FromRow)]
pub struct RevisionRow {
    version: i64,
    title: String,
    body: String,
    created_at: String,
    kind: String,
}

impl RevisionRow {
    /// A row of `version, title, body, created_at, kind`, as the SQLite writer reads it.
    pub fn from_sqlite(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            version: row.get(0)?,
            title: row.get(1)?,
            body: row.get(2)?,
            created_at: row.get(3)?,
            kind: row.get(4)?,
        })
    }
}

impl TryFrom<RevisionRow> for Revision {
    type Error = StorageError;

    fn try_from(row: RevisionRow) -> Result<Self, StorageError> {
        Ok(Revision {
            version: row.version,
            title: row.title,
            body: row.body,
            created_at: row.created_at,
            kind: revision_kind(&row.kind)?,
        })
    }
}

/// The columns of a version as the history lists it, in `RevisionSummaryRow`'s order.
pub const REVISION_SUMMARY_COLUMNS: &str = "version, title, created_at, kind";

#[derive(sqlx::FromRow)]
pub struct RevisionSummaryRow {
    version: i64,
    title: String,
    created_at: String,
    kind: String,
}

impl TryFrom<RevisionSummaryRow> for RevisionSummary {
    type Error = StorageError;

    fn try_from(row: RevisionSummaryRow) -> Result<Self, StorageError> {
        Ok(RevisionSummary {
            version: row.version,
            title: row.title,
            created_at: row.created_at,
            kind: revision_kind(&row.kind)?,
        })
    }
}

/// A note's tags as its writer found them in its text. Not found again here: that is a
/// full Markdown parse of up to 100,000 characters inside the write (on SQLite, while
/// every person's writes wait), and every writer has just made them. The test build
/// checks they agree with the text on every write.
pub fn tags_of(note: &Note) -> Vec<String> {
    debug_assert_eq!(
        crate::text::tags::of_note(&note.title, &note.body),
        note.tags,
        "the tags of note {}",
        note.id
    );
    note.tags.clone()
}

/// The files a note's title and body refer to (`/files/{sha256}`), each once: the rows
/// `file_refs` gains when the note is written.
pub fn files_of(note: &Note) -> Vec<String> {
    app::api::referred_files(&format!("{}\n{}", note.title, note.body))
}

/// A note's tags as its `tags` column keeps them: one per line (a tag holds no line break).
pub fn tags_column(tags: &[String]) -> String {
    tags.join("\n")
}

fn tags_from_column(column: &str) -> Vec<String> {
    column
        .split('\n')
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

pub fn kind_name(kind: RevisionKind) -> &'static str {
    match kind {
        RevisionKind::Create => "create",
        RevisionKind::Edit => "edit",
        RevisionKind::Merge => "merge",
        RevisionKind::Trash => "trash",
        RevisionKind::Restore => "restore",
        RevisionKind::Pin => "pin",
        RevisionKind::Unpin => "unpin",
        RevisionKind::TagRename => "tag-rename",
    }
}

/// Where a key may have left its mark after its idempotency row expired, looked up in
/// one statement (the same on both databases: `$1` the scope, `$2` the key), the first
/// place found in this order: a revision, a delete for good, a key the delete kept, a
/// tag rename. Read back by [`past_write_of`].
pub const PAST_WRITE: &str = "SELECT place, note_id, kind, request_fingerprint FROM ( \
     SELECT 1 AS place, note_id, kind, request_fingerprint FROM revisions \
     WHERE scope = $1 AND idempotency_key = $2 \
     UNION ALL SELECT 2, note_id, NULL, request_fingerprint FROM tombstones \
     WHERE scope = $1 AND idempotency_key = $2 \
     UNION ALL SELECT 3, note_id, kind, request_fingerprint FROM purged_keys \
     WHERE scope = $1 AND idempotency_key = $2 \
     UNION ALL SELECT 4, NULL, NULL, request_fingerprint FROM tag_renames \
     WHERE scope = $1 AND idempotency_key = $2 \
     ) AS found ORDER BY place LIMIT 1";

/// A row of [`PAST_WRITE`]: the place, the note, the revision's kind, the fingerprint.
pub type PastWriteRow = (i32, Option<String>, Option<String>, Option<String>);

/// The earlier write a [`PAST_WRITE`] row tells of, with the fingerprint of its request.
pub fn past_write_of(row: PastWriteRow) -> Result<(PastWrite, Fingerprint), StorageError> {
    let (place, note_id, kind, fingerprint) = row;
    let note_id = || {
        note_id.clone().ok_or_else(|| {
            StorageError::Other(anyhow::anyhow!("a past write of place {place} has no note"))
        })
    };
    let kind = || revision_kind(kind.as_deref().unwrap_or_default());
    let past = match place {
        1 => PastWrite::Revision {
            note_id: note_id()?,
            kind: kind()?,
        },
        2 => PastWrite::Purge {
            note_id: note_id()?,
        },
        3 => PastWrite::Deleted {
            note_id: note_id()?,
            kind: kind()?,
        },
        _ => PastWrite::TagRename,
    };
    // A delete for good without a key of its own (the trash's expiry) keeps none.
    Ok((
        past,
        Fingerprint::from_stored(fingerprint.unwrap_or_default()),
    ))
}

pub fn revision_kind(name: &str) -> Result<RevisionKind, StorageError> {
    Ok(match name {
        "create" => RevisionKind::Create,
        "edit" => RevisionKind::Edit,
        "merge" => RevisionKind::Merge,
        "trash" => RevisionKind::Trash,
        "restore" => RevisionKind::Restore,
        "pin" => RevisionKind::Pin,
        "unpin" => RevisionKind::Unpin,
        "tag-rename" => RevisionKind::TagRename,
        other => {
            return Err(StorageError::Other(anyhow::anyhow!(
                "a revision of unknown kind {other:?}"
            )));
        }
    })
}

/// Tables whose rows belong to a scope (moved from the shared scope to the first admin).
pub const SCOPED_TABLES: [&str; 7] = [
    "note_tags",
    "tag_renames",
    "notes",
    "revisions",
    "tombstones",
    "purged_keys",
    "idempotency_keys",
];

#[derive(sqlx::FromRow)]
pub struct UserRow {
    id: String,
    username: String,
    is_admin: bool,
    disabled_at: Option<String>,
    created_at: String,
}

impl From<UserRow> for User {
    fn from(row: UserRow) -> Self {
        User {
            id: row.id,
            username: row.username,
            admin: row.is_admin,
            disabled: row.disabled_at.is_some(),
            created_at: row.created_at,
        }
    }
}
