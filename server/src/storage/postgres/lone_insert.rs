//! A create under a new key in one statement, committed on its own: the note, its first
//! revision, its tags, the key's row with the answer, and the change the feed shows, in one
//! trip to PostgreSQL where a transaction takes five. (A key this process answered lately
//! is read first, on the reading pool; another key comes here, and a used one finds
//! `fresh` empty and goes the usual way, which replays.)
//!
//! Every part is written only if all are: the statement starts only when the key has left
//! nothing anywhere (no row of its own, revision, tombstone, kept key of a deleted note or
//! tag rename: what [`PAST_WRITE`](crate::storage::rows::PAST_WRITE) finds), each part is
//! inserted from the `RETURNING` of the one before, and none has `ON CONFLICT … DO
//! NOTHING` that could drop it alone: a key or a note's key that another request took
//! meanwhile fails the whole statement on its unique index. Then, and whenever the key was
//! used before, the write goes the usual way (`keys`), which claims the key, replays or
//! refuses.
//!
//! It waits on the locks the transaction would take, in the same order (the key's row,
//! the note's key, the person's feed counter), each for at most `key_wait`: the write
//! pool's connections carry that `lock_timeout` (`open`). Past it the answer is 503
//! `database-busy`, even when what it waited for was another replica's claim on the key
//! (the transaction's claim would say 409): both mean "retry with the same key".

use std::sync::LazyLock;

use sqlx::Row;

use super::PgStore;
use super::note_writes::{NOTE_INSERT, note_insert, note_values};
use crate::records::{Answer, ClaimTicket};
use crate::storage::rows::{files_of, kind_name, tags_of};
use crate::storage::{LoneInsert, StorageError};
use app::api::{ChangeKind, RevisionKind};

/// The statement ([`lone_insert_sql`]), made once.
static LONE_INSERT: LazyLock<String> = LazyLock::new(lone_insert_sql);

/// The statement: `$1`–`$17` the note (see `note_writes::note_values`), `$18` its tags,
/// `$19`–`$21` the answer's status, headers and body, `$22`–`$23` the key's times. It
/// answers how many notes it made: 0 or 1.
fn lone_insert_sql() -> String {
    let absent = |table: &str| {
        format!("NOT EXISTS (SELECT 1 FROM {table} WHERE scope = $5 AND idempotency_key = $6)")
    };
    // Each part is inserted from the `RETURNING` of the one before, and the statement's
    // result is read from the last: PostgreSQL runs them in that order, so the locks are
    // taken in the transaction's order — the key's row, the note's key, the person's feed
    // counter last — and the counter is held only for what is left (the tags, the checks
    // of foreign keys) and the commit.
    format!(
        "WITH fresh AS (SELECT 1 WHERE {} AND {} AND {} AND {} AND {}), \
         answered AS (INSERT INTO idempotency_keys (scope, idempotency_key, \
           request_fingerprint, response_status, response_headers, response_body, \
           created_at, expires_at) \
           SELECT $5, $6, $7, $19, $20, $21, $22, $23 FROM fresh RETURNING 1), \
         note AS ({NOTE_INSERT} SELECT {} FROM answered RETURNING id), \
         tagged AS (INSERT INTO note_tags (scope, note_id, tag) \
           SELECT $5, id, tag FROM note, UNNEST($18::text[]) AS tag), \
         revision AS (INSERT INTO revisions (scope, note_id, version, kind, title, body, \
           created_at, idempotency_key, request_fingerprint) \
           SELECT $5, id, $13, '{}', $8, $9, $12, $6, $7 FROM note RETURNING 1), \
         counter AS (INSERT INTO change_counters (scope, seq) SELECT $5, 1 FROM revision \
           ON CONFLICT (scope) DO UPDATE SET seq = change_counters.seq + 1 RETURNING seq), \
         recorded AS (INSERT INTO changes (scope, note_id, seq, kind, changed_at) \
           SELECT $5, $4, seq, '{}', $12 FROM counter \
           ON CONFLICT (scope, note_id) DO UPDATE SET seq = excluded.seq, \
             kind = excluded.kind, changed_at = excluded.changed_at RETURNING 1) \
         SELECT count(*) FROM recorded",
        absent("idempotency_keys"),
        absent("revisions"),
        absent("tombstones"),
        absent("purged_keys"),
        absent("tag_renames"),
        note_values(),
        kind_name(RevisionKind::Create),
        ChangeKind::Upsert.as_str(),
    )
}

/// Whether an error is a unique index refusing a second row: the key's (another request
/// claimed it meanwhile), or the note's key (a note carries it already).
fn key_taken(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.code().as_deref() == Some("23505"))
}

impl PgStore {
    /// Makes `insert` in one statement when its key is new; `None`, with nothing written,
    /// when the key was used, another transaction got in the way, or the note refers to
    /// files (their rows are locked in order by the transaction's path).
    pub(super) async fn insert_alone(
        &self,
        ticket: &ClaimTicket,
        insert: LoneInsert,
    ) -> Result<Option<Answer>, StorageError> {
        let note = &insert.note;
        if !files_of(note).is_empty() {
            return Ok(None);
        }
        let made = note_insert(
            &LONE_INSERT,
            &ticket.scope,
            &ticket.key,
            &ticket.fingerprint,
            note,
        )
        .bind(tags_of(note))
        .bind(i32::from(insert.answer.status))
        .bind(insert.answer.headers_json())
        .bind(&insert.answer.body)
        .bind(&ticket.created_at)
        .bind(&ticket.expires_at)
        .fetch_one(&self.pool)
        .await
        .and_then(|row| row.try_get::<i64, _>(0));
        match made {
            Ok(1) => {}
            Ok(_) => return Ok(None),
            Err(error) if key_taken(&error) => {
                tracing::debug!(%error, "the key was taken meanwhile; the create goes the usual way");
                return Ok(None);
            }
            Err(error) => match StorageError::from(error) {
                StorageError::Conflict => {
                    tracing::debug!(
                        "a conflict with another transaction; the create goes the usual way"
                    );
                    return Ok(None);
                }
                error => return Err(error),
            },
        }
        tracing::info!(note_id = %note.id, "note saved");
        self.announce_after_commit(&ticket.scope);
        Ok(Some(Answer {
            stored: insert.answer,
            replayed: false,
        }))
    }
}
