//! Tags on PostgreSQL: counted for the tag list; inside a rename's transaction, the notes
//! that carry one and the rename's own record.

use app::api::{Note, TagCount};

use super::PgStore;
use super::note_writes::PgTx;
use crate::records::{Fingerprint, IdempotencyKey};
use crate::storage::StorageError;
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};

impl PgStore {
    pub async fn tag_counts(&self, scope: &str) -> Result<Vec<TagCount>, StorageError> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT t.tag, count(*) FROM note_tags t JOIN notes n ON n.id = t.note_id \
             WHERE t.scope = $1 AND n.trashed_at IS NULL GROUP BY t.tag ORDER BY t.tag",
        )
        .bind(scope)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(name, count)| TagCount { name, count })
            .collect())
    }
}

impl PgTx {
    pub(super) async fn tagged_notes(
        &mut self,
        scope: &str,
        tag: &str,
    ) -> Result<Vec<Note>, StorageError> {
        let nested = format!("{tag}/");
        // FOR UPDATE: an edit of one of these notes on another replica waits for the rename.
        // The range (tag ≤ t < tag + "0": the tag and every `tag/…`, in the column's byte
        // order) lets the tag index read that range only, not every tag of the person.
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND id IN \
             (SELECT note_id FROM note_tags WHERE scope = $1 AND tag >= $2 AND tag < $2 || '0' \
             AND (tag = $2 OR substr(tag, 1, $3) = $4)) \
             ORDER BY created_at, id FOR UPDATE"
        ))
        .bind(scope)
        .bind(tag)
        .bind(nested.chars().count() as i32)
        .bind(&nested)
        .fetch_all(&mut *self.0)
        .await?;
        Ok(rows.into_iter().map(Note::from).collect())
    }

    pub(super) async fn rename_record(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(i64, Fingerprint)>, StorageError> {
        let row: Option<(i64, String)> = sqlx::query_as(
            "SELECT renamed, request_fingerprint FROM tag_renames \
             WHERE scope = $1 AND idempotency_key = $2",
        )
        .bind(scope)
        .bind(key.as_str())
        .fetch_optional(&mut *self.0)
        .await?;
        Ok(row.map(|(n, f)| (n, Fingerprint::from_stored(f))))
    }

    pub(super) async fn keep_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        renamed: i64,
        at: &str,
    ) -> Result<(), StorageError> {
        sqlx::query(
            "INSERT INTO tag_renames (scope, idempotency_key, request_fingerprint, renamed, \
             created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(scope)
        .bind(key.as_str())
        .bind(fingerprint.as_str())
        .bind(renamed)
        .bind(at)
        .execute(&mut *self.0)
        .await?;
        Ok(())
    }
}
