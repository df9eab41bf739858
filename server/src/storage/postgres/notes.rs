//! Reading notes on PostgreSQL: the pages of notes and of the trash, one note, its
//! revisions, and every note of a person (for an export).

use app::api::{Note, NotesPage, Revision, RevisionSummary, RevisionsPage};

use super::{PgStore, unstorable};
use crate::records::cursor::{Cursor, Order};
use crate::storage::StorageError;
use crate::storage::history::{self, Versions};
use crate::storage::rows::{
    NOTE_COLUMNS, NoteRow, REVISION_SUMMARY_COLUMNS, RevisionRow, RevisionSummaryRow,
};

impl PgStore {
    pub async fn list_notes(
        &self,
        scope: &str,
        limit: u32,
        cursor: Option<&Cursor>,
        tag: Option<&str>,
    ) -> Result<NotesPage, StorageError> {
        let fetch = i64::from(limit) + 1;
        // $1 scope, $2 limit, $3–$5 the cursor, $6–$8 the tag (unused ones bound as NULL).
        let after = if cursor.is_some() {
            "AND (pinned, created_at, id) < ($3, $4, $5)"
        } else {
            "AND ($3::boolean IS NULL AND $4::text IS NULL AND $5::text IS NULL)"
        };
        let tagged = if tag.is_some() {
            "AND id IN (SELECT note_id FROM note_tags WHERE scope = $1 \
             AND tag >= $6 AND tag < $6 || '0' AND (tag = $6 OR substr(tag, 1, $7) = $8))"
        } else {
            "AND ($6::text IS NULL AND $7::int IS NULL AND $8::text IS NULL)"
        };
        let nested = tag.map(|t| format!("{t}/"));
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND trashed_at IS NULL {after} \
             {tagged} ORDER BY pinned DESC, created_at DESC, id DESC LIMIT $2"
        ))
        .bind(scope)
        .bind(fetch)
        .bind(cursor.map(|c| c.pinned))
        .bind(cursor.map(|c| c.at.as_str()))
        .bind(cursor.map(|c| c.id.as_str()))
        .bind(tag)
        .bind(nested.as_ref().map(|n| n.chars().count() as i32))
        .bind(nested.as_deref())
        .fetch_all(&self.reader)
        .await?;
        let notes = rows.into_iter().map(Note::from).collect();
        Ok(Cursor::page(notes, limit, Order::Created))
    }

    pub async fn list_trash(
        &self,
        scope: &str,
        limit: u32,
        cursor: Option<&Cursor>,
    ) -> Result<NotesPage, StorageError> {
        let fetch = i64::from(limit) + 1;
        let rows: Vec<NoteRow> =
            match cursor {
                None => sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND trashed_at IS NOT NULL \
                     ORDER BY trashed_at DESC, id DESC LIMIT $2"
                ))
                .bind(scope)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?,
                Some(c) => sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND trashed_at IS NOT NULL \
                     AND (trashed_at, id) < ($2, $3) ORDER BY trashed_at DESC, id DESC LIMIT $4"
                ))
                .bind(scope)
                .bind(&c.at)
                .bind(&c.id)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?,
            };
        let notes = rows.into_iter().map(Note::from).collect();
        Ok(Cursor::page(notes, limit, Order::Trashed))
    }

    pub async fn history(
        &self,
        scope: &str,
        id: &str,
        versions: Versions,
        limit: u32,
    ) -> Result<Option<RevisionsPage>, StorageError> {
        if unstorable(id) {
            return Ok(None);
        }
        let (after, order) = versions.sql();
        // One snapshot, so an empty page and the note's existence agree.
        let mut tx = self.reader.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        let rows: Vec<RevisionSummaryRow> = sqlx::query_as(&format!(
            "SELECT {REVISION_SUMMARY_COLUMNS} FROM revisions \
             WHERE scope = $1 AND note_id = $2 AND {after} $3 {order} LIMIT $4"
        ))
        .bind(scope)
        .bind(id)
        .bind(versions.bound())
        // One more than asked tells whether another page exists.
        .bind(i64::from(limit) + 1)
        .fetch_all(&mut *tx)
        .await?;
        // An empty page (past the last version) is a page of a note that exists, or none.
        if rows.is_empty() {
            let note: Option<i32> =
                sqlx::query_scalar("SELECT 1 FROM notes WHERE scope = $1 AND id = $2")
                    .bind(scope)
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
            if note.is_none() {
                return Ok(None);
            }
        }
        tx.commit().await?;
        let revisions = rows
            .into_iter()
            .map(RevisionSummary::try_from)
            .collect::<Result<_, _>>()?;
        Ok(Some(history::page(revisions, limit)))
    }

    pub async fn revision(
        &self,
        scope: &str,
        id: &str,
        version: i64,
    ) -> Result<Option<Revision>, StorageError> {
        if unstorable(id) {
            return Ok(None);
        }
        let row: Option<RevisionRow> = sqlx::query_as(
            "SELECT version, title, body, created_at, kind FROM revisions \
             WHERE scope = $1 AND note_id = $2 AND version = $3",
        )
        .bind(scope)
        .bind(id)
        .bind(version)
        .fetch_optional(&self.reader)
        .await?;
        row.map(Revision::try_from).transpose()
    }

    pub async fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, StorageError> {
        if unstorable(id) {
            return Ok(None);
        }
        let row: Option<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND id = $2"
        ))
        .bind(scope)
        .bind(id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(Note::from))
    }

    pub async fn all_notes(&self, scope: &str) -> Result<Vec<Note>, StorageError> {
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 ORDER BY created_at, id"
        ))
        .bind(scope)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }
}
