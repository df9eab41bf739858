//! The exactly-once invariants, checked against the database itself (SQLite or
//! PostgreSQL, by URL).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Once;

use sqlx::{AnyConnection, Connection};

use crate::load::IntentRecord;

/// One invariant and whether it held.
#[derive(Clone, Debug)]
pub struct Check {
    pub name: String,
    pub held: bool,
    pub detail: String,
}

fn check(name: &str, held: bool, detail: String) -> Check {
    Check {
        name: name.to_owned(),
        held,
        detail,
    }
}

/// The URL of a SQLite database file, opened read-only (the server may be running).
pub fn sqlite_url(database: &Path) -> String {
    format!("sqlite://{}?mode=ro", database.display())
}

/// Opens the database at `url` (see [`sqlite_url`] for a file).
pub async fn open(url: &str) -> anyhow::Result<AnyConnection> {
    static DRIVERS: Once = Once::new();
    DRIVERS.call_once(sqlx::any::install_default_drivers);
    Ok(AnyConnection::connect(url).await?)
}

/// How many notes carry each of `keys` (keys without a note are left out).
pub async fn notes_per_key(conn: &mut AnyConnection) -> anyhow::Result<HashMap<String, i64>> {
    let rows: Vec<(String, i64)> =
        sqlx::query_as("SELECT idempotency_key, COUNT(*) FROM notes GROUP BY idempotency_key")
            .fetch_all(&mut *conn)
            .await?;
    Ok(rows.into_iter().collect())
}

/// Every acknowledged create has exactly one note, and every acknowledged later write
/// exactly one revision (checked after each crash).
pub async fn acknowledged_survived(
    database: &str,
    creates: &[String],
    follow_ups: &[String],
) -> anyhow::Result<Check> {
    let mut conn = open(database).await?;
    let notes = notes_per_key(&mut conn).await?;
    let revisions: HashMap<String, i64> = sqlx::query_as::<_, (String, i64)>(
        "SELECT idempotency_key, COUNT(*) FROM revisions GROUP BY idempotency_key",
    )
    .fetch_all(&mut conn)
    .await?
    .into_iter()
    .collect();
    let bad_creates = creates.iter().filter(|k| notes.get(*k) != Some(&1)).count();
    let bad_writes = follow_ups
        .iter()
        .filter(|k| revisions.get(*k) != Some(&1))
        .count();
    Ok(check(
        "acknowledged before the kill: stored exactly once",
        bad_creates == 0 && bad_writes == 0,
        format!(
            "{}/{} creates, {}/{} later writes",
            creates.len() - bad_creates,
            creates.len(),
            follow_ups.len() - bad_writes,
            follow_ups.len()
        ),
    ))
}

/// Every note's tags are the tags of its text, in its `tags` column and in `note_tags`
/// alike: however the writes that made it were retried, crashed or merged.
pub async fn tags_match_text(conn: &mut AnyConnection) -> anyhow::Result<Check> {
    let notes: Vec<(String, String, String, Option<String>)> =
        sqlx::query_as("SELECT id, title, body, tags FROM notes")
            .fetch_all(&mut *conn)
            .await?;
    let rows: Vec<(String, String)> = sqlx::query_as("SELECT note_id, tag FROM note_tags")
        .fetch_all(&mut *conn)
        .await?;
    let mut kept: HashMap<String, Vec<String>> = HashMap::new();
    for (id, tag) in rows {
        kept.entry(id).or_default().push(tag);
    }
    let (mut tagged, mut wrong) = (0, Vec::new());
    for (id, title, body, column) in &notes {
        let found = server::text::tags::of_note(title, body);
        tagged += usize::from(!found.is_empty());
        let mut rows = kept.remove(id).unwrap_or_default();
        rows.sort();
        if column.as_deref() != Some(found.join("\n").as_str()) || rows != found {
            wrong.push(id.clone());
        }
    }
    Ok(check(
        "every note's tags are the tags of its text",
        wrong.is_empty() && kept.is_empty(),
        format!(
            "{} of {} notes ({tagged} tagged) disagree, {} tag rows of no note{}",
            wrong.len(),
            notes.len(),
            kept.len(),
            wrong
                .first()
                .map(|id| format!(" (first: {id})"))
                .unwrap_or_default()
        ),
    ))
}

/// The change feed was written with every write, crashes or not: each note has exactly
/// one change (an upsert), no upsert names a note that is not there, and no person's seqs
/// run past their counter (which a write took in the same transaction).
pub async fn feed_matches_notes(conn: &mut AnyConnection) -> anyhow::Result<Check> {
    let unfed: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM notes n WHERE NOT EXISTS (SELECT 1 FROM changes c \
         WHERE c.scope = n.scope AND c.note_id = n.id AND c.kind = 'upsert')",
    )
    .fetch_one(&mut *conn)
    .await?;
    let ghosts: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM changes c WHERE c.kind = 'upsert' AND NOT EXISTS \
         (SELECT 1 FROM notes n WHERE n.scope = c.scope AND n.id = c.note_id)",
    )
    .fetch_one(&mut *conn)
    .await?;
    let past_counter: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM changes c WHERE c.seq > COALESCE((SELECT k.seq FROM \
         change_counters k WHERE k.scope = c.scope), 0)",
    )
    .fetch_one(&mut *conn)
    .await?;
    let changes: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM changes")
        .fetch_one(&mut *conn)
        .await?;
    Ok(check(
        "the change feed holds each note's newest change, within its person's counter",
        unfed == 0 && ghosts == 0 && past_counter == 0,
        format!(
            "{unfed} notes without their change, {ghosts} changes of no note, \
             {past_counter} seqs past their counter, over {changes} changes"
        ),
    ))
}

/// Every invariant of a finished run. With `keys_expire`, idempotency rows were swept
/// during the run by design, so a note without its row is expected, not a fault.
pub async fn check_all(
    database: &str,
    records: &[IntentRecord],
    keys_expire: bool,
) -> anyhow::Result<Vec<Check>> {
    let mut conn = open(database).await?;
    let mut checks = Vec::new();

    let saved = records.iter().filter(|r| r.acked_note_id.is_some()).count();
    let refused: Vec<&IntentRecord> = records.iter().filter(|r| r.refused.is_some()).collect();
    checks.push(check(
        "every intent eventually succeeded",
        saved == records.len(),
        format!(
            "{saved}/{} saved, {} refused{}",
            records.len(),
            refused.len(),
            refused
                .first()
                .and_then(|r| r.refused.as_ref())
                .map(|w| format!(" (first: {w})"))
                .unwrap_or_default()
        ),
    ));

    let notes: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notes")
        .fetch_one(&mut conn)
        .await?;
    checks.push(check(
        "notes == intents (no duplicate, no loss)",
        notes == records.len() as i64,
        format!("{notes} notes for {} intents", records.len()),
    ));

    #[derive(sqlx::FromRow)]
    struct Row {
        idempotency_key: String,
        id: String,
        title: String,
        body: String,
        written_at: String,
        trashed: i64,
        pinned: i64,
        revisions: i64,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT idempotency_key, id, title, body, written_at, \
         CASE WHEN trashed_at IS NULL THEN 0 ELSE 1 END AS trashed, \
         CASE WHEN pinned THEN 1 ELSE 0 END AS pinned, \
         (SELECT COUNT(*) FROM revisions r WHERE r.note_id = n.id) AS revisions FROM notes n",
    )
    .fetch_all(&mut conn)
    .await?;
    let mut by_key: HashMap<&str, Vec<&Row>> = HashMap::new();
    for row in &rows {
        by_key
            .entry(row.idempotency_key.as_str())
            .or_default()
            .push(row);
    }
    let duplicated = by_key.values().filter(|v| v.len() > 1).count();
    let missing = records
        .iter()
        .filter(|r| !by_key.contains_key(r.key.as_str()))
        .count();
    let stray = by_key
        .keys()
        .filter(|k| !records.iter().any(|r| r.key == **k))
        .count();
    checks.push(check(
        "each intent's key has exactly one note, and no note is a stranger",
        duplicated == 0 && missing == 0 && stray == 0,
        format!("{duplicated} keys with several notes, {missing} intents without a note, {stray} notes with unknown keys"),
    ));

    let mismatched = records
        .iter()
        .filter(|r| {
            by_key
                .get(r.key.as_str())
                .and_then(|v| v.first())
                .is_some_and(|row| {
                    row.title != r.payload.title.trim()
                        || row.body != r.final_body()
                        || row.written_at != r.payload.written_at
                        || (row.trashed == 1) != r.final_trashed()
                        || (row.pinned == 1) != r.final_pinned()
                })
        })
        .count();
    checks.push(check(
        "every note's content matches its intent and its last acknowledged edit, tick, rename, pin and move",
        mismatched == 0,
        format!("{mismatched} mismatched"),
    ));

    let follow_ups: usize = records.iter().map(IntentRecord::acked_follow_ups).sum();
    let unexpected: Vec<&str> = records
        .iter()
        .flat_map(|r| r.follow_ups.iter())
        .filter_map(|f| f.problem.as_deref())
        .collect();
    let wrong_history = records
        .iter()
        .filter(|r| {
            by_key
                .get(r.key.as_str())
                .and_then(|v| v.first())
                .is_some_and(|row| row.revisions != 1 + r.acked_follow_ups() as i64)
        })
        .count();
    checks.push(check(
        "each note's revisions are exactly its create and its acknowledged later writes",
        wrong_history == 0 && unexpected.is_empty(),
        format!(
            "{wrong_history} notes with another count, over {follow_ups} later writes; {} unexpected answers{}",
            unexpected.len(),
            unexpected
                .first()
                .map(|u| format!(" (first: {u})"))
                .unwrap_or_default()
        ),
    ));

    checks.push(tags_match_text(&mut conn).await?);
    checks.push(feed_matches_notes(&mut conn).await?);

    let wrong_id = records
        .iter()
        .filter(|r| {
            match (
                &r.acked_note_id,
                by_key.get(r.key.as_str()).and_then(|v| v.first()),
            ) {
                (Some(acked), Some(row)) => *acked != row.id,
                _ => false,
            }
        })
        .count();
    checks.push(check(
        "every client holds its note's id",
        wrong_id == 0,
        format!("{wrong_id} clients hold another id"),
    ));

    let disagreeing: u32 = records.iter().map(|r| r.disagreeing_answers).sum();
    let concurrent = records.iter().filter(|r| r.senders > 1).count();
    checks.push(check(
        "senders of one key at once were all told of the same note",
        disagreeing == 0,
        format!("{disagreeing} answers named another note, over {concurrent} intents sent by several senders"),
    ));

    // Every row's write is there: the note a create made, or the revision a later write
    // made (the claim and the write commit together).
    let orphan_keys: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM idempotency_keys k WHERE NOT EXISTS (SELECT 1 FROM notes n \
         WHERE n.scope = k.scope AND n.idempotency_key = k.idempotency_key) AND NOT EXISTS \
         (SELECT 1 FROM revisions r WHERE r.scope = k.scope AND r.idempotency_key = k.idempotency_key) \
         AND NOT EXISTS (SELECT 1 FROM tag_renames t WHERE t.scope = k.scope \
         AND t.idempotency_key = k.idempotency_key)",
    )
    .fetch_one(&mut conn)
    .await?;
    checks.push(check(
        "no idempotency row without its note, revision or rename",
        orphan_keys == 0,
        format!("{orphan_keys} rows"),
    ));

    if !keys_expire {
        let keyless_notes: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM notes n LEFT JOIN idempotency_keys k \
             ON k.scope = n.scope AND k.idempotency_key = n.idempotency_key WHERE k.idempotency_key IS NULL",
        )
        .fetch_one(&mut conn)
        .await?;
        let keyless_revisions: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM revisions r WHERE r.kind <> 'tag-rename' AND NOT EXISTS \
             (SELECT 1 FROM idempotency_keys k \
             WHERE k.scope = r.scope AND k.idempotency_key = r.idempotency_key)",
        )
        .fetch_one(&mut conn)
        .await?;
        checks.push(check(
            "no note or revision without its key",
            keyless_notes == 0 && keyless_revisions == 0,
            format!("{keyless_notes} notes, {keyless_revisions} revisions"),
        ));
    }

    // A rename's revisions are kept under its key and the note's id; the rename's own
    // record is under its key.
    let unrecorded: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM revisions r WHERE r.kind = 'tag-rename' AND NOT EXISTS \
         (SELECT 1 FROM tag_renames t WHERE t.scope = r.scope \
         AND r.idempotency_key = t.idempotency_key || ' ' || r.note_id)",
    )
    .fetch_one(&mut conn)
    .await?;
    let renames: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tag_renames")
        .fetch_one(&mut conn)
        .await?;
    checks.push(check(
        "every rename's revision belongs to a recorded rename",
        unrecorded == 0,
        format!("{unrecorded} revisions without their rename, over {renames} renames"),
    ));

    if database.starts_with("sqlite:") {
        let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_one(&mut conn)
            .await?;
        checks.push(check(
            "PRAGMA integrity_check",
            integrity == "ok",
            integrity,
        ));
    } else {
        // PostgreSQL: every revision's note exists and versions have no gap (the foreign
        // key and the primary key hold by construction; this reads them back).
        let gaps: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM notes n WHERE n.version <> \
             (SELECT MAX(version) FROM revisions r WHERE r.note_id = n.id)",
        )
        .fetch_one(&mut conn)
        .await?;
        checks.push(check(
            "each note's version is its last revision's",
            gaps == 0,
            format!("{gaps} notes with another version"),
        ));
    }
    Ok(checks)
}
