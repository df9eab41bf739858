//! Reading notes on SQLite: the pages of notes and of the trash, one note, its
//! revisions, and every note of a person (for an export).

use app::api::{Note, NotesPage, Revision, RevisionSummary, RevisionsPage};

use super::SqliteStore;
use super::tag_range::{TAGGED_IDS, TagRange};
use crate::records::cursor::{Cursor, Order};
use crate::storage::StorageError;
use crate::storage::history::{self, Versions};
use crate::storage::rows::{
    NOTE_COLUMNS, NoteRow, REVISION_SUMMARY_COLUMNS, RevisionRow, RevisionSummaryRow,
};

/// A page of the person's notes outside the trash, pinned first, then newest first;
/// `after` and `tagged` narrow it (a cursor, a tag's [`TAGGED_IDS`]).
pub(super) fn list_notes_sql(after: &str, tagged: &str) -> String {
    format!(
        "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND trashed_at IS NULL {after} \
         {tagged} ORDER BY pinned DESC, created_at DESC, id DESC LIMIT ?"
    )
}

impl SqliteStore {
    pub async fn list_notes(
        &self,
        scope: &str,
        limit: u32,
        cursor: Option<&Cursor>,
        tag: Option<&str>,
    ) -> Result<NotesPage, StorageError> {
        // One more than asked tells whether another page exists.
        let fetch = i64::from(limit) + 1;
        let after = if cursor.is_some() {
            "AND (pinned, created_at, id) < (?, ?, ?)"
        } else {
            ""
        };
        let tagged = if tag.is_some() {
            format!("AND id IN ({TAGGED_IDS})")
        } else {
            String::new()
        };
        let sql = list_notes_sql(after, &tagged);
        let mut query = sqlx::query_as::<_, NoteRow>(&sql).bind(scope);
        if let Some(c) = cursor {
            query = query.bind(c.pinned).bind(&c.at).bind(&c.id);
        }
        if let Some(tag) = tag {
            let range = TagRange::of(tag);
            query = query
                .bind(scope)
                .bind(range.tag)
                .bind(range.tag)
                .bind(range.tag)
                .bind(range.nested_chars)
                .bind(range.nested);
        }
        let rows = query.bind(fetch).fetch_all(&self.reader).await?;
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
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND trashed_at IS NOT NULL \
                     ORDER BY trashed_at DESC, id DESC LIMIT ?"
                ))
                .bind(scope)
                .bind(fetch)
                .fetch_all(&self.reader)
                .await?,
                Some(c) => sqlx::query_as(&format!(
                    "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND trashed_at IS NOT NULL \
                     AND (trashed_at, id) < (?, ?) ORDER BY trashed_at DESC, id DESC LIMIT ?"
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
        let (after, order) = versions.sql();
        // One read transaction, so an empty page and the note's existence agree.
        let mut tx = self.reader.begin().await?;
        let rows: Vec<RevisionSummaryRow> = sqlx::query_as(&format!(
            "SELECT {REVISION_SUMMARY_COLUMNS} FROM revisions \
             WHERE scope = ? AND note_id = ? AND {after} ? {order} LIMIT ?"
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
            let note: Option<i64> =
                sqlx::query_scalar("SELECT 1 FROM notes WHERE scope = ? AND id = ?")
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
        let row: Option<RevisionRow> = sqlx::query_as(
            "SELECT version, title, body, created_at, kind FROM revisions \
             WHERE scope = ? AND note_id = ? AND version = ?",
        )
        .bind(scope)
        .bind(id)
        .bind(version)
        .fetch_optional(&self.reader)
        .await?;
        row.map(Revision::try_from).transpose()
    }

    pub async fn get_note(&self, scope: &str, id: &str) -> Result<Option<Note>, StorageError> {
        note_by_id(&self.reader, scope, id).await
    }

    pub async fn all_notes(&self, scope: &str) -> Result<Vec<Note>, StorageError> {
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? ORDER BY created_at, id"
        ))
        .bind(scope)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }
}

pub(super) async fn note_by_id<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    scope: &str,
    id: &str,
) -> Result<Option<Note>, StorageError> {
    let row: Option<NoteRow> = sqlx::query_as(&format!(
        "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND id = ?"
    ))
    .bind(scope)
    .bind(id)
    .fetch_optional(executor)
    .await?;
    Ok(row.map(Note::from))
}
