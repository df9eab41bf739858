//! The writes of notes on SQLite, inside a write's transaction: new notes, new states
//! and the revisions that record them, deletes for good and their tombstones.
//!
//! They run on the write connection's own handle, in the writing thread's batch
//! ([`super::writer`]): each statement is a call into SQLite on that thread, prepared once
//! per batch, not a trip to sqlx's worker thread and back.

use app::api::{ChangeKind, Note, Revision, RevisionKind};
use rusqlite::{Connection, OptionalExtension, params};

use super::changes::record_change;
use super::file_refs::{forget_refs_of, refer_to_files};
use super::handle::Lent;
use super::search::cjk_of;
use crate::records::{Fingerprint, IdempotencyKey};
use crate::storage::StorageError;
use crate::storage::rows::{
    NOTE_COLUMNS, NoteRow, PAST_WRITE, RevisionRow, kind_name, past_write_of, tags_column, tags_of,
};
use crate::storage::{NewRevision, NoteWrites, PastWrite};

/// The batch's write transaction, inside the savepoint of one write (the write
/// connection's handle, borrowed for the batch).
pub struct SqliteTx<'c>(pub(super) &'c mut Lent);

impl NoteWrites for SqliteTx<'_> {
    async fn insert_note(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, StorageError> {
        let tx = &*self.0;
        if !insert_note(tx, scope, key, fingerprint, note)? {
            return Ok(false);
        }
        insert_tags(tx, scope, &note.id, &tags_of(note))?;
        refer_to_files(tx, scope, note)?;
        record_change(tx, scope, &note.id, ChangeKind::Upsert, &note.updated_at)?;
        insert_revision(
            tx,
            scope,
            note,
            NewRevision {
                version: note.version,
                kind: RevisionKind::Create,
                key,
                fingerprint,
            },
        )?;
        Ok(true)
    }

    async fn note_created_by(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(Note, Fingerprint)>, StorageError> {
        let found = self
            .0
            .prepare_cached(&format!(
                "SELECT {NOTE_COLUMNS}, request_fingerprint FROM notes \
                 WHERE scope = ? AND idempotency_key = ?"
            ))?
            .query_row(params![scope, key.as_str()], |row| {
                Ok((NoteRow::from_sqlite(row)?, row.get::<_, String>(11)?))
            })
            .optional()?;
        Ok(found.map(|(note, by)| (note.into(), Fingerprint::from_stored(by))))
    }

    async fn past_write(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(PastWrite, Fingerprint)>, StorageError> {
        let row = self
            .0
            .prepare_cached(PAST_WRITE)?
            .query_row(params![scope, key.as_str()], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .optional()?;
        row.map(past_write_of).transpose()
    }

    async fn note(&mut self, scope: &str, id: &str) -> Result<Option<Note>, StorageError> {
        note_by_id(self.0, scope, id)
    }

    async fn revision_at(
        &mut self,
        scope: &str,
        id: &str,
        version: i64,
    ) -> Result<Option<Revision>, StorageError> {
        let row = self
            .0
            .prepare_cached(
                "SELECT version, title, body, created_at, kind FROM revisions \
                 WHERE scope = ? AND note_id = ? AND version = ?",
            )?
            .query_row(params![scope, id, version], RevisionRow::from_sqlite)
            .optional()?;
        row.map(Revision::try_from).transpose()
    }

    async fn save_note(
        &mut self,
        scope: &str,
        note: &Note,
        revision: NewRevision<'_>,
    ) -> Result<(), StorageError> {
        let tx = &*self.0;
        let tags = tags_of(note);
        tx.prepare_cached(
            "UPDATE notes SET title = ?, body = ?, cjk = ?, version = ?, updated_at = ?, \
             trashed_at = ?, pinned = ?, tags = ? WHERE scope = ? AND id = ?",
        )?
        .execute(params![
            note.title,
            note.body,
            cjk_of(note),
            note.version,
            note.updated_at,
            note.trashed_at,
            note.pinned,
            tags_column(&tags),
            scope,
            note.id,
        ])?;
        tx.prepare_cached("DELETE FROM note_tags WHERE note_id = ?")?
            .execute([&note.id])?;
        insert_tags(tx, scope, &note.id, &tags)?;
        refer_to_files(tx, scope, note)?;
        record_change(tx, scope, &note.id, ChangeKind::Upsert, &note.updated_at)?;
        insert_revision(tx, scope, note, revision)
    }

    async fn is_purged(&mut self, scope: &str, id: &str) -> Result<bool, StorageError> {
        Ok(self
            .0
            .prepare_cached("SELECT 1 FROM tombstones WHERE scope = ? AND note_id = ?")?
            .exists(params![scope, id])?)
    }

    async fn purge(
        &mut self,
        scope: &str,
        id: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        at: &str,
    ) -> Result<(), StorageError> {
        purge_note(self.0, scope, id, Some(key), Some(fingerprint), at)
    }

    async fn tagged_versions(
        &mut self,
        scope: &str,
        tag: &str,
    ) -> Result<Vec<(String, i64)>, StorageError> {
        self.tagged_note_versions(scope, tag)
    }

    async fn past_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<(i64, Fingerprint)>, StorageError> {
        self.rename_record(scope, key)
    }

    async fn record_rename(
        &mut self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        renamed: i64,
        at: &str,
    ) -> Result<(), StorageError> {
        self.keep_rename(scope, key, fingerprint, renamed, at)
    }
}

/// One note (in the trash or not), inside the write's transaction.
fn note_by_id(tx: &Connection, scope: &str, id: &str) -> Result<Option<Note>, StorageError> {
    let row = tx
        .prepare_cached(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = ? AND id = ?"
        ))?
        .query_row(params![scope, id], NoteRow::from_sqlite)
        .optional()?;
    Ok(row.map(Note::from))
}

/// Deletes a note (its revisions and its references to files go with it) and leaves its
/// tombstone.
pub(super) fn purge_note(
    tx: &Connection,
    scope: &str,
    id: &str,
    key: Option<&IdempotencyKey>,
    fingerprint: Option<&Fingerprint>,
    at: &str,
) -> Result<(), StorageError> {
    // Every key that wrote to the note, kept past the note (see `PastWrite::Deleted`).
    tx.prepare_cached(
        "INSERT INTO purged_keys (scope, idempotency_key, note_id, kind, request_fingerprint, purged_at) \
         SELECT scope, idempotency_key, note_id, kind, request_fingerprint, ? FROM revisions \
         WHERE scope = ? AND note_id = ? ON CONFLICT (scope, idempotency_key) DO NOTHING",
    )?
    .execute(params![at, scope, id])?;
    forget_refs_of(tx, scope, id, at)?;
    tx.prepare_cached("DELETE FROM notes WHERE scope = ? AND id = ?")?
        .execute(params![scope, id])?;
    tx.prepare_cached(
        "INSERT INTO tombstones (scope, note_id, idempotency_key, request_fingerprint, purged_at) \
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, note_id) DO NOTHING",
    )?
    .execute(params![
        scope,
        id,
        key.map(IdempotencyKey::as_str),
        fingerprint.map(Fingerprint::as_str),
        at,
    ])?;
    record_change(tx, scope, id, ChangeKind::Purge, at)
}

/// The rows that find a note by its tags: one prepared insert run per tag (a call into
/// SQLite each, on this thread).
fn insert_tags(
    tx: &Connection,
    scope: &str,
    note_id: &str,
    tags: &[String],
) -> Result<(), StorageError> {
    if tags.is_empty() {
        return Ok(());
    }
    let mut insert =
        tx.prepare_cached("INSERT INTO note_tags (scope, note_id, tag) VALUES (?, ?, ?)")?;
    for tag in tags {
        insert.execute(params![scope, note_id, tag])?;
    }
    Ok(())
}

fn insert_revision(
    tx: &Connection,
    scope: &str,
    note: &Note,
    revision: NewRevision<'_>,
) -> Result<(), StorageError> {
    tx.prepare_cached(
        "INSERT INTO revisions (scope, note_id, version, kind, title, body, created_at, \
         idempotency_key, request_fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )?
    .execute(params![
        scope,
        note.id,
        revision.version,
        kind_name(revision.kind),
        note.title,
        note.body,
        note.updated_at,
        revision.key.as_str(),
        revision.fingerprint.as_str(),
    ])?;
    Ok(())
}

/// Inserts a note carrying its key (with `ON CONFLICT … DO NOTHING`: one per key).
pub(super) const INSERT_NOTE: &str = "INSERT INTO notes (id, scope, idempotency_key, \
     request_fingerprint, title, body, written_at, created_at, updated_at, version, \
     trashed_at, conflict_of, cjk, pinned, tags) \
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
     ON CONFLICT (scope, idempotency_key) DO NOTHING";

/// Inserts a note carrying its key; false if the key already has its note.
fn insert_note(
    tx: &Connection,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
    note: &Note,
) -> Result<bool, StorageError> {
    let inserted = tx.prepare_cached(INSERT_NOTE)?.execute(params![
        note.id,
        scope,
        key.as_str(),
        fingerprint.as_str(),
        note.title,
        note.body,
        note.written_at,
        note.created_at,
        note.updated_at,
        note.version,
        note.trashed_at,
        note.conflict_of,
        cjk_of(note),
        note.pinned,
        tags_column(&tags_of(note)),
    ])?;
    Ok(inserted == 1)
}

impl super::SqliteStore {
    /// The benchmark's baseline: the same note insert in autocommit mode, with no
    /// idempotency at all, as an app on sqlx would write it: one statement through the
    /// write pool (`--features bench-plain-insert` only).
    #[cfg(feature = "bench-plain-insert")]
    pub async fn plain_insert(
        &self,
        scope: &str,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        note: &Note,
    ) -> Result<bool, StorageError> {
        let inserted = sqlx::query(INSERT_NOTE)
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
            .execute(&self.writer)
            .await?
            .rows_affected();
        Ok(inserted == 1)
    }
}
