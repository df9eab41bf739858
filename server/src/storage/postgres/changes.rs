//! The change feed on PostgreSQL: the changes each write leaves (inside its transaction,
//! just before it commits; a `NOTIFY` after the commit tells every replica's listener), a
//! page of the feed read in one snapshot, every person's head for the streams' backstop
//! poll, and compaction.
//!
//! *Choice*: the `NOTIFY` is sent after the commit, outside the transaction: a
//! transaction that notifies takes a cluster-wide lock at commit, which would make every
//! write of every replica commit one at a time. A notification lost (a crash between the
//! commit and it) costs a stream one poll interval, never a change. The notifications of
//! writes that commit together are sent together (`announcer`).

use std::collections::BTreeMap;

use app::api::{ChangeKind, Note};
use sqlx::{Postgres, Transaction};

use super::PgStore;
use crate::storage::StorageError;
use crate::storage::feed::{EVENTS_SINCE, EventRow, EventsPage, FeedPage, changes_of, events_of};
use crate::storage::rows::{NOTE_COLUMNS, NoteRow};

/// The channel every replica listens on; a notification carries only the person's id
/// (their feed moved), or [`SESSIONS_ENDED`] and the id (a session of theirs ended).
pub const FEED_CHANNEL: &str = "oncenote_feed";

/// What a notification that a person's session ended starts with. (A person's id is a
/// UUID, which never starts so.)
pub const SESSIONS_ENDED: &str = "sessions:";

/// A change a write leaves, recorded when its transaction is about to commit.
#[derive(Clone, Debug)]
pub struct PendingChange {
    scope: String,
    note_id: String,
    kind: ChangeKind,
    at: String,
}

impl PendingChange {
    pub fn new(scope: &str, note_id: &str, kind: ChangeKind, at: &str) -> Self {
        Self {
            scope: scope.to_owned(),
            note_id: note_id.to_owned(),
            kind,
            at: at.to_owned(),
        }
    }
}

/// The newest change of each of one person's notes (a note written twice in one
/// transaction folds into its last write), as the columns [`RECORD_CHANGES`] binds.
pub(super) struct PersonChanges<'a> {
    pub scope: &'a str,
    n: i64,
    ids: Vec<&'a str>,
    kinds: Vec<&'a str>,
    ats: Vec<&'a str>,
}

impl<'a> PersonChanges<'a> {
    /// Binds the person's changes as `$1`–`$5` of a statement that starts with
    /// [`RECORD_CHANGES`].
    pub fn bind<'q>(
        &'q self,
        query: sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments>,
    ) -> sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments> {
        query
            .bind(self.scope)
            .bind(self.n)
            .bind(&self.ids)
            .bind(&self.kinds)
            .bind(&self.ats)
    }
}

/// `changes` by person, their people in a fixed order (so two transactions touching
/// several people — the sweeps of two replicas — cannot deadlock over counters).
pub(super) fn by_person(changes: &[PendingChange]) -> Vec<PersonChanges<'_>> {
    let mut people: BTreeMap<&str, Vec<&PendingChange>> = BTreeMap::new();
    for change in changes {
        let notes = people.entry(&change.scope).or_default();
        notes.retain(|c| c.note_id != change.note_id);
        notes.push(change);
    }
    people
        .into_iter()
        .map(|(scope, notes)| PersonChanges {
            scope,
            n: i64::try_from(notes.len()).unwrap_or(i64::MAX),
            ids: notes.iter().map(|c| c.note_id.as_str()).collect(),
            kinds: notes.iter().map(|c| c.kind.as_str()).collect(),
            ats: notes.iter().map(|c| c.at.as_str()).collect(),
        })
        .collect()
}

/// One person's counter bumped by `n` (`$2`) and their changes left under the seqs it
/// gave (the k-th change, from 1, takes the new seq - n + k), as the start of one
/// statement: what follows it runs in the same trip (the answer's store, `keys`).
/// Updating the counter row locks it until the transaction ends, so a second writer of
/// the same person takes its seqs only after this one committed: seqs become visible in
/// order, with no gap filled in later. Run last in a transaction, so the lock is held for
/// the commit alone. (A create made in one statement, `lone_insert`, bumps the counter the
/// same way, last among its parts.)
pub(super) const RECORD_CHANGES: &str = "WITH counter AS ( \
         INSERT INTO change_counters (scope, seq) VALUES ($1, $2) \
         ON CONFLICT (scope) DO UPDATE SET seq = change_counters.seq + $2 \
         RETURNING seq), \
     recorded AS ( \
         INSERT INTO changes (scope, note_id, seq, kind, changed_at) \
         SELECT $1, c.note_id, counter.seq - $2 + c.k, c.kind, c.changed_at \
         FROM counter, UNNEST($3::text[], $4::text[], $5::text[]) WITH ORDINALITY \
           AS c(note_id, kind, changed_at, k) \
         ON CONFLICT (scope, note_id) DO UPDATE SET seq = excluded.seq, \
           kind = excluded.kind, changed_at = excluded.changed_at) ";

/// Leaves each note's newest change under its person's next seqs: one statement per
/// person ([`RECORD_CHANGES`]), their people in a fixed order.
pub(super) async fn record_changes(
    tx: &mut Transaction<'static, Postgres>,
    changes: &[PendingChange],
) -> Result<(), StorageError> {
    let sql = format!("{RECORD_CHANGES} SELECT 1");
    for person in by_person(changes) {
        person.bind(sqlx::query(&sql)).execute(&mut **tx).await?;
    }
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

    /// Tells every replica's streams of `scope` to check their session now (the
    /// notification's payload is [`SESSIONS_ENDED`] and the person's id).
    pub async fn sessions_ended(&self, scope: &str) -> Result<(), StorageError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(FEED_CHANNEL)
            .bind(format!("{SESSIONS_ENDED}{scope}"))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Up to `limit` + 1 changes after `since` as the streams send them, with the
    /// feed's bounds: one statement, one snapshot.
    pub async fn events_since(
        &self,
        scope: &str,
        since: i64,
        limit: u32,
    ) -> Result<EventsPage, StorageError> {
        let rows: Vec<EventRow> = sqlx::query_as(EVENTS_SINCE)
            .bind(scope)
            .bind(since)
            .bind(i64::from(limit) + 1)
            .fetch_all(&self.reader)
            .await?;
        events_of(rows)
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
        // The counters in a fixed order, as `record_changes` takes them.
        sqlx::query(
            "SELECT scope FROM change_counters WHERE scope IN (SELECT scope FROM changes \
             WHERE kind = 'purge' AND changed_at < $1) ORDER BY scope FOR UPDATE",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?;
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
