//! The SQL for notes. Writes take the transaction the route owns; reads take the pool.

use app::api::{Note, NotesPage};
use sqlx::{SqliteConnection, SqlitePool};

use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey};

#[derive(sqlx::FromRow)]
struct NoteRow {
    id: String,
    title: String,
    body: String,
    written_at: String,
    created_at: String,
    updated_at: String,
    version: i64,
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
        }
    }
}

/// The note a key created, with the fingerprint of the request that created it.
pub async fn find_by_key(
    conn: &mut SqliteConnection,
    scope: &str,
    key: &IdempotencyKey,
) -> Result<Option<(Note, Fingerprint)>, sqlx::Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        note: NoteRow,
        request_fingerprint: String,
    }
    let row: Option<Row> = sqlx::query_as(
        "SELECT id, title, body, written_at, created_at, updated_at, version, request_fingerprint \
         FROM notes WHERE scope = ? AND idempotency_key = ?",
    )
    .bind(scope)
    .bind(key.as_str())
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|r| {
        (
            r.note.into(),
            Fingerprint::from_stored(r.request_fingerprint),
        )
    }))
}

/// Inserts `note` carrying the key that created it. Returns false, writing nothing, if
/// a note with this key already exists (a retry after its idempotency row expired).
pub async fn insert(
    conn: &mut SqliteConnection,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    note: &Note,
) -> Result<bool, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
         written_at, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
         ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )
    .bind(&note.id)
    .bind(scope)
    .bind(key.as_str())
    .bind(fingerprint.as_str())
    .bind(&note.title)
    .bind(&note.body)
    .bind(&note.written_at)
    .bind(&note.created_at)
    .bind(&note.updated_at)
    .bind(note.version)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

/// One note by id.
pub async fn get(pool: &SqlitePool, id: &str) -> Result<Option<Note>, sqlx::Error> {
    let row: Option<NoteRow> = sqlx::query_as(
        "SELECT id, title, body, written_at, created_at, updated_at, version FROM notes WHERE id = ?",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Note::from))
}

/// Where a page of the list starts: after the note with this creation time and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    created_at: String,
    id: String,
}

impl Cursor {
    fn after(note: &Note) -> Self {
        Self {
            created_at: note.created_at.clone(),
            id: note.id.clone(),
        }
    }

    /// The cursor's text form: `{created_at}_{id}` (neither part contains `_`).
    pub fn encode(&self) -> String {
        format!("{}_{}", self.created_at, self.id)
    }

    pub fn decode(text: &str) -> Result<Self, ApiError> {
        let bad =
            || ApiError::InvalidQuery(format!("cursor {text:?} is not one this server gave out"));
        let (created_at, id) = text.split_once('_').ok_or_else(bad)?;
        let well_formed = chrono::DateTime::parse_from_rfc3339(created_at).is_ok()
            && uuid::Uuid::parse_str(id).is_ok();
        if !well_formed {
            return Err(bad());
        }
        Ok(Self {
            created_at: created_at.to_owned(),
            id: id.to_owned(),
        })
    }
}

/// Notes newest first, `limit` at a time, starting after `cursor`.
pub async fn list(
    pool: &SqlitePool,
    limit: u32,
    cursor: Option<&Cursor>,
) -> Result<NotesPage, sqlx::Error> {
    // One more than asked tells whether another page exists.
    let fetch = i64::from(limit) + 1;
    let rows: Vec<NoteRow> =
        match cursor {
            None => sqlx::query_as(
                "SELECT id, title, body, written_at, created_at, updated_at, version FROM notes \
                 ORDER BY created_at DESC, id DESC LIMIT ?",
            )
            .bind(fetch)
            .fetch_all(pool)
            .await?,
            Some(c) => sqlx::query_as(
                "SELECT id, title, body, written_at, created_at, updated_at, version FROM notes \
                 WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?",
            )
            .bind(&c.created_at)
            .bind(&c.id)
            .bind(fetch)
            .fetch_all(pool)
            .await?,
        };
    let mut notes: Vec<Note> = rows.into_iter().map(Note::from).collect();
    let next = if notes.len() > limit as usize {
        notes.truncate(limit as usize);
        notes.last().map(|n| Cursor::after(n).encode())
    } else {
        None
    };
    Ok(NotesPage { notes, next })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_what_it_wrote() {
        let c = Cursor {
            created_at: "2026-11-30T05:00:00.123456Z".into(),
            id: "0b7a3c52-6f0e-4c51-9a0e-4a0c8f7e2d11".into(),
        };
        assert_eq!(Cursor::decode(&c.encode()).unwrap(), c);
    }

    #[test]
    fn a_forged_cursor_is_refused() {
        assert!(Cursor::decode("nonsense").is_err());
        assert!(Cursor::decode("2026-11-30T05:00:00Z_'; DROP TABLE notes;--").is_err());
    }
}
