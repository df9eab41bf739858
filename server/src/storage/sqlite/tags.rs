//! Tags on SQLite: counted for the tag list; the notes a rename rewrites, read outside
//! the writer; inside its transaction, their versions and the rename's own record.

use app::api::{Note, TagCount};
use rusqlite::{OptionalExtension, params};

use super::SqliteStore;
use super::note_writes::SqliteTx;
use super::tag_range::{TAGGED_IDS, TagRange};
use crate::records::{Fingerprint, IdempotencyKey};
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};
use crate::storage::{StorageError, TaggedRead};

impl SqliteStore {
    pub async fn tag_counts(&self, scope: &str) -> Result<Vec<TagCount>, StorageError> {
        let rows: Vec<(String, i64)> = sqlx::query_as(TAG_COUNTS)
            .bind(scope)
            .bind(scope)
            .fetch_all(&self.reader)
            .await?;
        Ok(rows
            .into_iter()
            .map(|(name, count)| TagCount { name, count })
            .collect())
    }
}

/// Each tag of the person with the number of their notes outside the trash that carry it.
/// The trash is read once, by its own index, and each tag row is checked against it: a
/// join read every tagged note's row for its `trashed_at` instead. Python's SQLite 3.40,
/// 100,000 notes: 165 → 51 ms at 60,000 tag rows (a copy of the benchmark's notes), 291-309
/// → 80-84 ms at 53,433 (made-up notes of 250-1,500 bytes), the same counts. A tag row's
/// note is always there (`ON DELETE CASCADE`).
pub(super) const TAG_COUNTS: &str = "SELECT t.tag, count(*) FROM note_tags t \
     WHERE t.scope = ? AND t.note_id NOT IN \
     (SELECT id FROM notes WHERE scope = ? AND trashed_at IS NOT NULL) \
     GROUP BY t.tag ORDER BY t.tag";

/// The notes of the person carrying a tag or one nested under it (`work` and `work/…`),
/// read by the ids the tag index gives. Both `+scope` and the tag's range matter: without
/// them SQLite's planner (it has no statistics) walks every note of the person, and
/// every tag of theirs, to find a few (171 ms at 100,000 notes, inside the write lock of
/// a rename; 22 ms for a tag on 3,755 of them, measured). `what` is the columns read.
pub(super) fn tagged_sql(what: &str) -> String {
    format!(
        "SELECT {what} FROM notes WHERE +scope = ? AND id IN ({TAGGED_IDS}) ORDER BY created_at, id"
    )
}

impl SqliteStore {
    /// What a rename of `tag` would rewrite, read outside the writer: the notes, or only
    /// how many and how long they are when their text passes `max_chars`.
    pub async fn tagged_for_rename(
        &self,
        scope: &str,
        tag: &str,
        max_chars: u64,
    ) -> Result<TaggedRead, StorageError> {
        let range = TagRange::of(tag);
        let sizes = format!(
            "SELECT count(*), coalesce(sum(length(title) + length(body)), 0) FROM notes \
             WHERE +scope = ? AND id IN ({TAGGED_IDS})"
        );
        let (notes, chars): (i64, i64) = range
            .bound(scope, sqlx::query_as(&sizes))
            .fetch_one(&self.reader)
            .await?;
        let chars = u64::try_from(chars).unwrap_or(0);
        if chars > max_chars {
            return Ok(TaggedRead::TooLarge {
                notes: usize::try_from(notes).unwrap_or(0),
                chars,
            });
        }
        let notes_sql = tagged_sql(NOTE_COLUMNS);
        let rows: Vec<NoteRow> = range
            .bound(scope, sqlx::query_as(&notes_sql))
            .fetch_all(&self.reader)
            .await?;
        Ok(TaggedRead::Notes(
            rows.into_iter().map(Note::from).collect(),
        ))
    }
}

impl SqliteTx<'_> {
    pub(super) fn tagged_note_versions(
        &mut self,
        scope: &str,
        tag: &str,
    ) -> Result<Vec<(String, i64)>, StorageError> {
        let range = TagRange::of(tag);
        let mut select = self.0.prepare_cached(&tagged_sql("id, version"))?;
        let rows = select.query_map(
            params![
                scope,
                scope,
                range.tag,
                range.tag,
                range.tag,
                range.nested_chars,
                range.nested
            ],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?)),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub(super) fn rename_record(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(i64, Fingerprint)>, StorageError> {
        let row: Option<(i64, String)> = self
            .0
            .prepare_cached(
                "SELECT renamed, request_fingerprint FROM tag_renames \
                 WHERE scope = ? AND idempotency_key = ?",
            )?
            .query_row(params![scope, key.as_str()], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?;
        Ok(row.map(|(n, f)| (n, Fingerprint::from_stored(f))))
    }

    pub(super) fn keep_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        renamed: i64,
        at: &str,
    ) -> Result<(), StorageError> {
        self.0
            .prepare_cached(
                "INSERT INTO tag_renames (scope, idempotency_key, request_fingerprint, renamed, \
                 created_at) VALUES (?, ?, ?, ?, ?)",
            )?
            .execute(params![
                scope,
                key.as_str(),
                fingerprint.as_str(),
                renamed,
                at
            ])?;
        Ok(())
    }
}
