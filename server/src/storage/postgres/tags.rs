//! Tags on PostgreSQL: counted for the tag list; the notes a rename rewrites, read
//! outside its transaction; inside it, their versions (locked) and the rename's record.

use app::api::{Note, TagCount};

use super::PgStore;
use super::note_writes::PgTx;
use crate::records::{Fingerprint, IdempotencyKey};
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};
use crate::storage::{StorageError, TaggedRead};

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

/// The ids of the person's notes carrying `$2` or a tag nested under it (`$4` is `$2/`,
/// `$3` its length). The range (tag ≤ t < tag + "0": the tag and every `tag/…`, in the
/// column's byte order) lets the tag index read that range only, not every tag of the
/// person.
const TAGGED_IDS: &str = "SELECT note_id FROM note_tags WHERE scope = $1 AND tag >= $2 \
     AND tag < $2 || '0' AND (tag = $2 OR substr(tag, 1, $3) = $4)";

impl PgStore {
    /// What a rename of `tag` would rewrite, read outside its transaction: the notes, or
    /// only how many and how long they are when their text passes `max_chars`.
    pub async fn tagged_for_rename(
        &self,
        scope: &str,
        tag: &str,
        max_chars: u64,
    ) -> Result<TaggedRead, StorageError> {
        let nested = format!("{tag}/");
        let nested_chars = nested.chars().count() as i32;
        let (notes, chars): (i64, i64) = sqlx::query_as(&format!(
            "SELECT count(*), coalesce(sum(length(title) + length(body)), 0)::bigint FROM notes \
             WHERE scope = $1 AND id IN ({TAGGED_IDS})"
        ))
        .bind(scope)
        .bind(tag)
        .bind(nested_chars)
        .bind(&nested)
        .fetch_one(&self.reader)
        .await?;
        let chars = u64::try_from(chars).unwrap_or(0);
        if chars > max_chars {
            return Ok(TaggedRead::TooLarge {
                notes: usize::try_from(notes).unwrap_or(0),
                chars,
            });
        }
        let rows: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND id IN ({TAGGED_IDS}) \
             ORDER BY created_at, id"
        ))
        .bind(scope)
        .bind(tag)
        .bind(nested_chars)
        .bind(&nested)
        .fetch_all(&self.reader)
        .await?;
        Ok(TaggedRead::Notes(
            rows.into_iter().map(Note::from).collect(),
        ))
    }
}

impl PgTx {
    pub(super) async fn tagged_note_versions(
        &mut self,
        scope: &str,
        tag: &str,
    ) -> Result<Vec<(String, i64)>, StorageError> {
        let nested = format!("{tag}/");
        // FOR UPDATE: an edit of one of these notes on another replica waits for the rename.
        let rows: Vec<(String, i64)> = sqlx::query_as(&format!(
            "SELECT id, version FROM notes WHERE scope = $1 AND id IN ({TAGGED_IDS}) \
             ORDER BY created_at, id FOR UPDATE"
        ))
        .bind(scope)
        .bind(tag)
        .bind(nested.chars().count() as i32)
        .bind(&nested)
        .fetch_all(&mut *self.0)
        .await?;
        Ok(rows)
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
