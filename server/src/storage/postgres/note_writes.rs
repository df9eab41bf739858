//! The writes of notes on PostgreSQL, inside a write's transaction: new notes, new states
//! and the revisions that record them, deletes for good and their tombstones.

use app::api::{ChangeKind, Note, Revision, RevisionKind};
use sqlx::{Postgres, Transaction};

use super::changes::PendingChange;
use super::file_refs::{forget_refs_of, refer_to_files};
use super::search::{SEARCH_DOCUMENT, search_parts};
use super::unstorable;
use crate::records::{Fingerprint, IdempotencyKey};
use crate::storage::StorageError;
use crate::storage::rows::{
    NOTE_COLUMNS, NoteRow, PAST_WRITE, PastWriteRow, RevisionRow, kind_name, past_write_of,
    tags_column, tags_of,
};
use crate::storage::{NewRevision, NoteWrites, PastWrite};

/// A write transaction holding a claimed key, and the changes its writes leave for the
/// feed: recorded together just before it commits (`changes::record_changes`), so the
/// person's counter row is locked only for the commit itself.
pub struct PgTx(
    pub(super) Transaction<'static, Postgres>,
    pub(super) Vec<PendingChange>,
);

impl NoteWrites for PgTx {
    async fn insert_note(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, StorageError> {
        if !insert_note_and_revision(&mut self.0, scope, key, fingerprint, note).await? {
            return Ok(false);
        }
        insert_tags(&mut self.0, scope, &note.id, &tags_of(note)).await?;
        refer_to_files(&mut self.0, scope, note).await?;
        self.1.push(PendingChange::new(
            scope,
            &note.id,
            ChangeKind::Upsert,
            &note.updated_at,
        ));
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
             WHERE scope = $1 AND idempotency_key = $2"
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

    /// The note, locked until the transaction ends: a write on another replica waits.
    async fn note(&mut self, scope: &str, id: &str) -> Result<Option<Note>, StorageError> {
        if unstorable(id) {
            return Ok(None);
        }
        let row: Option<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND id = $2 FOR UPDATE"
        ))
        .bind(scope)
        .bind(id)
        .fetch_optional(&mut *self.0)
        .await?;
        Ok(row.map(Note::from))
    }

    async fn revision_at(
        &mut self,
        scope: &str,
        id: &str,
        version: i64,
    ) -> Result<Option<Revision>, StorageError> {
        let row: Option<RevisionRow> = sqlx::query_as(
            "SELECT version, title, body, created_at, kind FROM revisions \
             WHERE scope = $1 AND note_id = $2 AND version = $3",
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
        let (title, body, cjk) = search_parts(note);
        let tags = tags_of(note);
        sqlx::query(&format!(
            "UPDATE notes SET title = $4, body = $5, version = $6, updated_at = $7, \
             trashed_at = $8, search = {}, pinned = $11, tags = $12 \
             WHERE scope = $9 AND id = $10",
            SEARCH_DOCUMENT
        ))
        .bind(title)
        .bind(body)
        .bind(cjk)
        .bind(&note.title)
        .bind(&note.body)
        .bind(note.version)
        .bind(&note.updated_at)
        .bind(&note.trashed_at)
        .bind(scope)
        .bind(&note.id)
        .bind(note.pinned)
        .bind(tags_column(&tags))
        .execute(&mut *self.0)
        .await?;
        sqlx::query("DELETE FROM note_tags WHERE note_id = $1")
            .bind(&note.id)
            .execute(&mut *self.0)
            .await?;
        insert_tags(&mut self.0, scope, &note.id, &tags).await?;
        refer_to_files(&mut self.0, scope, note).await?;
        self.1.push(PendingChange::new(
            scope,
            &note.id,
            ChangeKind::Upsert,
            &note.updated_at,
        ));
        insert_revision(&mut self.0, scope, note, revision).await
    }

    async fn is_purged(&mut self, scope: &str, id: &str) -> Result<bool, StorageError> {
        if unstorable(id) {
            return Ok(false);
        }
        let found: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM tombstones WHERE scope = $1 AND note_id = $2")
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
        purge_note(&mut self.0, scope, id, Some(key), Some(fingerprint), at).await?;
        self.1
            .push(PendingChange::new(scope, id, ChangeKind::Purge, at));
        Ok(())
    }

    async fn tagged_versions(
        &mut self,
        scope: &str,
        tag: &str,
    ) -> Result<Vec<(String, i64)>, StorageError> {
        self.tagged_note_versions(scope, tag).await
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
/// tombstone (its change is the caller's to record).
pub(super) async fn purge_note(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    id: &str,
    key: Option<&IdempotencyKey>,
    fingerprint: Option<&Fingerprint>,
    at: &str,
) -> Result<(), StorageError> {
    // Every key that wrote to the note, kept past the note (see `PastWrite::Deleted`).
    sqlx::query(
        "INSERT INTO purged_keys (scope, idempotency_key, note_id, kind, request_fingerprint, purged_at) \
         SELECT scope, idempotency_key, note_id, kind, request_fingerprint, $1 FROM revisions \
         WHERE scope = $2 AND note_id = $3 ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )
    .bind(at)
    .bind(scope)
    .bind(id)
    .execute(&mut **tx)
    .await?;
    forget_refs_of(tx, scope, id, at).await?;
    sqlx::query("DELETE FROM notes WHERE scope = $1 AND id = $2")
        .bind(scope)
        .bind(id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO tombstones (scope, note_id, idempotency_key, request_fingerprint, purged_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (scope, note_id) DO NOTHING",
    )
    .bind(scope)
    .bind(id)
    .bind(key.map(IdempotencyKey::as_str))
    .bind(fingerprint.map(Fingerprint::as_str))
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The rows that find a note by its tags.
pub(in crate::storage) async fn insert_tags(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    note_id: &str,
    tags: &[String],
) -> Result<(), StorageError> {
    if tags.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO note_tags (scope, note_id, tag) SELECT $1, $2, tag FROM UNNEST($3::text[]) AS tag",
    )
    .bind(scope)
    .bind(note_id)
    .bind(tags)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn insert_revision(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    note: &Note,
    revision: NewRevision<'_>,
) -> Result<(), StorageError> {
    sqlx::query(
        "INSERT INTO revisions (scope, note_id, version, kind, title, body, created_at, \
         idempotency_key, request_fingerprint) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
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
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The insert of a note carrying its key (nothing when the key has its note already):
/// `$1`–`$3` the search document's parts, `$4`–`$17` the note's columns (see
/// [`note_insert`]).
fn note_insert_sql() -> String {
    format!("{NOTE_INSERT} VALUES ({}) {NOTE_KEY_TAKEN}", note_values())
}

/// The start of a note's insert: the columns [`note_values`] fills.
pub(super) const NOTE_INSERT: &str = "INSERT INTO notes (id, scope, idempotency_key, \
     request_fingerprint, title, body, written_at, created_at, updated_at, version, \
     trashed_at, conflict_of, search, pinned, tags)";

/// The end of a note's insert: nothing when the key has its note already.
const NOTE_KEY_TAKEN: &str = "ON CONFLICT (scope, idempotency_key) DO NOTHING";

/// A note's row as [`note_insert`] binds it: `$1`–`$3` the search document's parts,
/// `$4`–`$17` the note's columns.
pub(super) fn note_values() -> String {
    format!("$4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, {SEARCH_DOCUMENT}, $16, $17")
}

/// `sql` (which starts with [`note_insert_sql`]'s parameters) bound to `note`.
pub(super) fn note_insert<'q>(
    sql: &'q str,
    scope: &'q str,
    key: &'q IdempotencyKey,
    fingerprint: &'q Fingerprint,
    note: &'q Note,
) -> sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments> {
    let (title, body, cjk) = search_parts(note);
    sqlx::query(sql)
        .bind(title)
        .bind(body)
        .bind(cjk)
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
        .bind(note.pinned)
        .bind(tags_column(&tags_of(note)))
}

/// Inserts a note carrying its key; false if the key already has its note.
pub(in crate::storage) async fn insert_note<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    note: &Note,
) -> Result<bool, StorageError> {
    let sql = note_insert_sql();
    let inserted = note_insert(&sql, scope, key, fingerprint, note)
        .execute(executor)
        .await?
        .rows_affected();
    Ok(inserted == 1)
}

/// Inserts a note carrying its key and the revision that records its creation, in one
/// statement; false if the key already has its note (then neither is written).
async fn insert_note_and_revision(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    note: &Note,
) -> Result<bool, StorageError> {
    let sql = format!(
        "WITH note AS ({} RETURNING id) \
         INSERT INTO revisions (scope, note_id, version, kind, title, body, created_at, \
         idempotency_key, request_fingerprint) \
         SELECT $5, id, $13, '{}', $8, $9, $12, $6, $7 FROM note",
        note_insert_sql(),
        kind_name(RevisionKind::Create)
    );
    let inserted = note_insert(&sql, scope, key, fingerprint, note)
        .execute(&mut **tx)
        .await?
        .rows_affected();
    Ok(inserted == 1)
}

impl super::PgStore {
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
        insert_note(&self.pool, scope, key, fingerprint, note).await
    }
}
