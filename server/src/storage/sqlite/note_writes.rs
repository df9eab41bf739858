//! The writes of notes on SQLite, inside a write's transaction: new notes, new states
//! and the revisions that record them, deletes for good and their tombstones.

use app::api::{ChangeKind, Note, Revision, RevisionKind};
use sqlx::SqliteConnection;

use super::changes::record_change;
use super::file_refs::{forget_refs_of, refer_to_files};
use super::notes::note_by_id;
use super::search::cjk_of;
use crate::records::{Fingerprint, IdempotencyKey};
use crate::storage::StorageError;
use crate::storage::rows::{
    NOTE_COLUMNS, NoteRow, PAST_WRITE, PastWriteRow, RevisionRow, kind_name, past_write_of,
    tags_column, tags_of,
};
use crate::storage::{NewRevision, NoteWrites, PastWrite};

/// The batch's write transaction, inside the savepoint of one write.
pub struct SqliteTx<'c>(pub(super) &'c mut SqliteConnection);

impl NoteWrites for SqliteTx<'_> {
    async fn insert_note(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, StorageError> {
        if !insert_note(&mut *self.0, scope, key, fingerprint, note).await? {
            return Ok(false);
        }
        insert_tags(self.0, scope, &note.id, &tags_of(note)).await?;
        refer_to_files(self.0, scope, note).await?;
        record_change(
            self.0,
            scope,
            &note.id,
            ChangeKind::Upsert,
            &note.updated_at,
        )
        .await?;
        insert_revision(
            self.0,
            scope,
            note,
            NewRevision {
                version: note.version,
                kind: RevisionKind::Create,
                key,
                fingerprint,
            },
        )
        .await?;
        Ok(true)
    }

    async fn note_created_by(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(Note, Fingerprint)>, StorageError> {
        #[derive(sqlx::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            note: NoteRow,
            request_fingerprint: String,
        }
        let row: Option<Row> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS}, request_fingerprint FROM notes \
             WHERE scope = ? AND idempotency_key = ?"
        ))
        .bind(scope)
        .bind(key.as_str())
        .fetch_optional(&mut *self.0)
        .await?;
        Ok(row.map(|r| {
            (
                r.note.into(),
                Fingerprint::from_stored(r.request_fingerprint),
            )
        }))
    }

    async fn past_write(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(PastWrite, Fingerprint)>, StorageError> {
        let row: Option<PastWriteRow> = sqlx::query_as(PAST_WRITE)
            .bind(scope)
            .bind(key.as_str())
            .fetch_optional(&mut *self.0)
            .await?;
        row.map(past_write_of).transpose()
    }

    async fn note(&mut self, scope: &str, id: &str) -> Result<Option<Note>, StorageError> {
        note_by_id(&mut *self.0, scope, id).await
    }

    async fn revision_at(
        &mut self,
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
        .fetch_optional(&mut *self.0)
        .await?;
        row.map(Revision::try_from).transpose()
    }

    async fn save_note(
        &mut self,
        scope: &str,
        note: &Note,
        revision: NewRevision<'_>,
    ) -> Result<(), StorageError> {
        let tags = tags_of(note);
        sqlx::query(
            "UPDATE notes SET title = ?, body = ?, cjk = ?, version = ?, updated_at = ?, \
             trashed_at = ?, pinned = ?, tags = ? WHERE scope = ? AND id = ?",
        )
        .bind(&note.title)
        .bind(&note.body)
        .bind(cjk_of(note))
        .bind(note.version)
        .bind(&note.updated_at)
        .bind(&note.trashed_at)
        .bind(note.pinned)
        .bind(tags_column(&tags))
        .bind(scope)
        .bind(&note.id)
        .execute(&mut *self.0)
        .await?;
        sqlx::query("DELETE FROM note_tags WHERE note_id = ?")
            .bind(&note.id)
            .execute(&mut *self.0)
            .await?;
        insert_tags(self.0, scope, &note.id, &tags).await?;
        refer_to_files(self.0, scope, note).await?;
        record_change(
            self.0,
            scope,
            &note.id,
            ChangeKind::Upsert,
            &note.updated_at,
        )
        .await?;
        insert_revision(self.0, scope, note, revision).await
    }

    async fn is_purged(&mut self, scope: &str, id: &str) -> Result<bool, StorageError> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM tombstones WHERE scope = ? AND note_id = ?")
                .bind(scope)
                .bind(id)
                .fetch_optional(&mut *self.0)
                .await?;
        Ok(found.is_some())
    }

    async fn purge(
        &mut self,
        scope: &str,
        id: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        at: &str,
    ) -> Result<(), StorageError> {
        purge_note(self.0, scope, id, Some(key), Some(fingerprint), at).await
    }

    async fn tagged(&mut self, scope: &str, tag: &str) -> Result<Vec<Note>, StorageError> {
        self.tagged_notes(scope, tag).await
    }

    async fn past_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(i64, Fingerprint)>, StorageError> {
        self.rename_record(scope, key).await
    }

    async fn record_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        renamed: i64,
        at: &str,
    ) -> Result<(), StorageError> {
        self.keep_rename(scope, key, fingerprint, renamed, at).await
    }
}

/// Deletes a note (its revisions and its references to files go with it) and leaves its
/// tombstone.
pub(super) async fn purge_note(
    tx: &mut SqliteConnection,
    scope: &str,
    id: &str,
    key: Option<&IdempotencyKey>,
    fingerprint: Option<&Fingerprint>,
    at: &str,
) -> Result<(), StorageError> {
    // Every key that wrote to the note, kept past the note (see `PastWrite::Deleted`).
    sqlx::query(
        "INSERT INTO purged_keys (scope, idempotency_key, note_id, kind, request_fingerprint, purged_at) \
         SELECT scope, idempotency_key, note_id, kind, request_fingerprint, ? FROM revisions \
         WHERE scope = ? AND note_id = ? ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )
    .bind(at)
    .bind(scope)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    forget_refs_of(tx, scope, id, at).await?;
    sqlx::query("DELETE FROM notes WHERE scope = ? AND id = ?")
        .bind(scope)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO tombstones (scope, note_id, idempotency_key, request_fingerprint, purged_at) \
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, note_id) DO NOTHING",
    )
    .bind(scope)
    .bind(id)
    .bind(key.map(IdempotencyKey::as_str))
    .bind(fingerprint.map(Fingerprint::as_str))
    .bind(at)
    .execute(&mut *tx)
    .await?;
    record_change(tx, scope, id, ChangeKind::Purge, at).await
}

/// The rows that find a note by its tags.
pub(super) async fn insert_tags(
    tx: &mut SqliteConnection,
    scope: &str,
    note_id: &str,
    tags: &[String],
) -> Result<(), StorageError> {
    // A statement per 300 tags, not one per tag (a note may hold thousands).
    for chunk in tags.chunks(300) {
        let rows = vec!["(?, ?, ?)"; chunk.len()].join(", ");
        let sql = format!("INSERT INTO note_tags (scope, note_id, tag) VALUES {rows}");
        let mut insert = sqlx::query(&sql);
        for tag in chunk {
            insert = insert.bind(scope).bind(note_id).bind(tag);
        }
        insert.execute(&mut *tx).await?;
    }
    Ok(())
}

async fn insert_revision(
    tx: &mut SqliteConnection,
    scope: &str,
    note: &Note,
    revision: NewRevision<'_>,
) -> Result<(), StorageError> {
    sqlx::query(
        "INSERT INTO revisions (scope, note_id, version, kind, title, body, created_at, \
         idempotency_key, request_fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(scope)
    .bind(&note.id)
    .bind(revision.version)
    .bind(kind_name(revision.kind))
    .bind(&note.title)
    .bind(&note.body)
    .bind(&note.updated_at)
    .bind(revision.key.as_str())
    .bind(revision.fingerprint.as_str())
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Inserts a note carrying its key; false if the key already has its note.
async fn insert_note<'e>(
    executor: impl sqlx::SqliteExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    note: &Note,
) -> Result<bool, StorageError> {
    let inserted = sqlx::query(
        "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
         written_at, created_at, updated_at, version, trashed_at, conflict_of, cjk, pinned, tags) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
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
    .bind(&note.trashed_at)
    .bind(&note.conflict_of)
    .bind(cjk_of(note))
    .bind(note.pinned)
    .bind(tags_column(&tags_of(note)))
    .execute(executor)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

impl super::SqliteStore {
    /// The benchmark's baseline: the same note insert in autocommit mode, with no
    /// idempotency at all (`--features bench-plain-insert` only).
    #[cfg(feature = "bench-plain-insert")]
    pub async fn plain_insert(
        &self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, StorageError> {
        insert_note(&self.writer, scope, key, fingerprint, note).await
    }
}
