//! What both databases read back the same way: a note's and a revision's columns, and
//! the names revisions are stored under.

use app::api::{Note, Revision, RevisionKind};

use crate::records::User;
use crate::storage::StorageError;

/// The columns of a note, in `NoteRow`'s order.
pub const NOTE_COLUMNS: &str =
    "id, title, body, written_at, created_at, updated_at, version, trashed_at, conflict_of";

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
}

impl From<NoteRow> for Note {
    fn from(row: NoteRow) -> Self {
        Note {
            id: row.id,
            title: row.title,
            body: row.body,
            written_at: row.written_at,
            created_at: row.created_at,
            updated_at: row.updated_at,
            version: row.version,
            trashed_at: row.trashed_at,
            conflict_of: row.conflict_of,
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

pub fn kind_name(kind: RevisionKind) -> &'static str {
    match kind {
        RevisionKind::Create => "create",
        RevisionKind::Edit => "edit",
        RevisionKind::Merge => "merge",
        RevisionKind::Trash => "trash",
        RevisionKind::Restore => "restore",
    }
}

pub fn revision_kind(name: &str) -> Result<RevisionKind, StorageError> {
    Ok(match name {
        "create" => RevisionKind::Create,
        "edit" => RevisionKind::Edit,
        "merge" => RevisionKind::Merge,
        "trash" => RevisionKind::Trash,
        "restore" => RevisionKind::Restore,
        other => {
            return Err(StorageError::Other(anyhow::anyhow!(
                "a revision of unknown kind {other:?}"
            )));
        }
    })
}

/// Tables whose rows belong to a scope (moved from the shared scope to the first admin).
pub const SCOPED_TABLES: [&str; 5] = [
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
