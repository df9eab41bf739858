//! The change feed on PostgreSQL: the change each write leaves (inside its transaction,
//! with a `NOTIFY` every replica's listener hears at commit), a page of the feed read in
//! one snapshot, every person's head for the streams' backstop poll, and compaction.

use app::api::{ChangeKind, Note};
use sqlx::{Postgres, Transaction};

use super::PgStore;
use crate::storage::StorageError;
use crate::storage::feed::{FeedPage, changes_of};
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};

/// The channel every replica listens on; a notification carries only the person's id.
pub const FEED_CHANNEL: &str = "oncenote_feed";

/// Leaves `note_id`'s newest change under the person's next seq, and tells every
/// replica at commit. Updating the person's counter row locks it until this transaction
/// ends, so a second writer of the same person takes the next seq only after this one
/// committed: seqs become visible in order, with no gap filled in later.
pub(super) async fn record_change(
    tx: &mut Transaction<'static, Postgres>,
    scope: &str,
    note_id: &str,
    kind: ChangeKind,
    at: &str,
) -> Result<(), StorageError> {
    sqlx::query(&format!(
        "WITH counter AS ( \
           INSERT INTO change_counters (scope, seq) VALUES ($1, 1) \
           ON CONFLICT (scope) DO UPDATE SET seq = change_counters.seq + 1 RETURNING seq) \
         INSERT INTO changes (scope, note_id, seq, kind, changed_at) \
         SELECT $1, $2, counter.seq, $3, $4 FROM counter \
         ON CONFLICT (scope, note_id) DO UPDATE SET seq = excluded.seq, kind = excluded.kind, \
           changed_at = excluded.changed_at \
         RETURNING pg_notify('{FEED_CHANNEL}', $1)"
    ))
    .bind(scope)
    .bind(note_id)
    .bind(kind.as_str())
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl PgStore {
    /// Up to `limit` + 1 changes after `since`, with the notes as they stand, and the
    /// feed's bounds — in one REPEATABLE READ snapshot.
    pub async fn changes_since(
        &self,
        scope: &str,
        since: i64,
        limit: u32,
    ) -> Result<FeedPage, StorageError> {
        let mut tx = self.reader.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *tx)
            .await?;
        let rows: Vec<(i64, String, String)> = sqlx::query_as(
            "SELECT seq, note_id, kind FROM changes WHERE scope = $1 AND seq > $2 \
             ORDER BY seq LIMIT $3",
        )
        .bind(scope)
        .bind(since)
        .bind(i64::from(limit) + 1)
        .fetch_all(&mut *tx)
        .await?;
        let ids: Vec<&str> = rows.iter().map(|(_, id, _)| id.as_str()).collect();
        let notes: Vec<NoteRow> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes WHERE scope = $1 AND id = ANY($2)"
        ))
        .bind(scope)
        .bind(&ids)
        .fetch_all(&mut *tx)
        .await?;
        let bounds: Option<(i64, i64)> =
            sqlx::query_as("SELECT seq, compacted_through FROM change_counters WHERE scope = $1")
                .bind(scope)
                .fetch_optional(&mut *tx)
                .await?;
        tx.commit().await?;
        let notes: Vec<Note> = notes.into_iter().map(Note::from).collect();
        let (latest, compacted_through) = bounds.unwrap_or_default();
        Ok(FeedPage {
            changes: changes_of(rows, notes)?,
            latest,
            compacted_through,
        })
    }

    /// Wakes the person's streams on every replica (this one included, through its own
    /// listener).
    pub async fn announce(&self, scope: &str) -> Result<(), StorageError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(FEED_CHANNEL)
            .bind(scope)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The person's latest seq (0 before their first write).
    pub async fn latest_seq(&self, scope: &str) -> Result<i64, StorageError> {
        let seq: Option<i64> =
            sqlx::query_scalar("SELECT seq FROM change_counters WHERE scope = $1")
                .bind(scope)
                .fetch_optional(&self.reader)
                .await?;
        Ok(seq.unwrap_or(0))
    }

    /// Every person's latest seq.
    pub async fn feed_heads(&self) -> Result<Vec<(String, i64)>, StorageError> {
        Ok(sqlx::query_as("SELECT scope, seq FROM change_counters")
            .fetch_all(&self.reader)
            .await?)
    }

    /// Drops the purges changed before `cutoff` from the feed, moving each person's
    /// `compacted_through` past them. Returns how many went.
    pub async fn compact_changes(&self, cutoff: &str) -> Result<u64, StorageError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "UPDATE change_counters SET compacted_through = GREATEST(compacted_through, \
             (SELECT max(seq) FROM changes c WHERE c.scope = change_counters.scope \
              AND c.kind = 'purge' AND c.changed_at < $1)) \
             WHERE scope IN (SELECT scope FROM changes WHERE kind = 'purge' AND changed_at < $1)",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?;
        let gone = sqlx::query("DELETE FROM changes WHERE kind = 'purge' AND changed_at < $1")
            .bind(cutoff)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(gone)
    }
}
