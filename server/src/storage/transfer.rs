//! Moving an install from SQLite to PostgreSQL (`server copy-to postgres://…`): every
//! account, session, API token, invitation, note, revision, tombstone, stored answer and file (its
//! bytes, the notes that refer to it, its person's usage), with their
//! ids, keys and fingerprints unchanged — so a save still waiting in someone's browser is
//! replayed by the new database exactly as the old one would have. Every row goes in with
//! `ON CONFLICT DO NOTHING`: copying twice (or after a copy that stopped half way) adds
//! nothing twice. The servers should be stopped while it runs, so nothing is written to
//! the old database after its rows were read.

use app::api::Note;
use sqlx::Row;

use super::postgres::PgStore;
use super::postgres::note_writes::{insert_note, insert_tags};
use super::rows::{NOTE_COLUMNS, NoteRow};
use super::sqlite::SqliteStore;
use crate::records::{Fingerprint, IdempotencyKey};

/// Rows copied in one transaction.
const BATCH: i64 = 500;
/// Rows of a table with bytes in it (a file's chunks, 256 KiB each) copied in one
/// transaction: 4 MiB in memory at a time.
const BLOB_BATCH: i64 = 16;

/// What a copy did, table by table: rows read from the source, rows new in the target.
#[derive(Debug, Default)]
pub struct CopyReport {
    pub tables: Vec<(&'static str, u64, u64)>,
}

impl std::fmt::Display for CopyReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (table, read, new) in &self.tables {
            writeln!(
                f,
                "  {table:<17} {read:>8} read, {new:>8} new in the target"
            )?;
        }
        Ok(())
    }
}

/// A table copied as plain columns (everything but the notes, whose search document the
/// target computes). Tables come in an order that satisfies every foreign key.
struct Plain {
    table: &'static str,
    columns: &'static str,
    /// Which columns are booleans (SQLite keeps them as integers).
    booleans: &'static [&'static str],
    /// Which are integers (BIGINT on PostgreSQL, INTEGER for `int4`).
    integers: &'static [&'static str],
    int4: &'static [&'static str],
    /// Which are bytes (BLOB on SQLite, BYTEA on PostgreSQL).
    blobs: &'static [&'static str],
    order: &'static str,
    /// The primary key: a row already there is skipped (a second copy adds nothing);
    /// any other conflict is an error, never a row silently left behind.
    key: &'static str,
}

const BEFORE_NOTES: [Plain; 6] = [
    Plain {
        table: "users",
        columns: "id, username, password_hash, is_admin, disabled_at, created_at, password_changed_at",
        booleans: &["is_admin"],
        integers: &[],
        int4: &[],
        blobs: &[],
        order: "created_at, id",
        key: "id",
    },
    Plain {
        table: "setup",
        columns: "id, admin_id, done_at",
        booleans: &[],
        integers: &[],
        int4: &["id"],
        blobs: &[],
        order: "id",
        key: "id",
    },
    Plain {
        table: "sessions",
        columns: "token_hash, user_id, created_at, last_seen_at, expires_at",
        booleans: &[],
        integers: &[],
        int4: &[],
        blobs: &[],
        order: "token_hash",
        key: "token_hash",
    },
    Plain {
        table: "api_tokens",
        columns: "id, user_id, name, digest, created_at, last_used_at, made_by",
        booleans: &[],
        integers: &[],
        int4: &[],
        blobs: &[],
        order: "id",
        key: "id",
    },
    Plain {
        table: "invitations",
        columns: "token_hash, created_by, created_at, expires_at, used_at, used_by",
        booleans: &[],
        integers: &[],
        int4: &[],
        blobs: &[],
        order: "token_hash",
        key: "token_hash",
    },
    Plain {
        table: "sign_in_limits",
        columns: "bucket, failures, window_started_at, locked_until",
        booleans: &[],
        integers: &["failures"],
        int4: &[],
        blobs: &[],
        order: "bucket",
        key: "bucket",
    },
];

const AFTER_NOTES: [Plain; 7] = [
    Plain {
        table: "change_counters",
        columns: "scope, seq, compacted_through",
        booleans: &[],
        integers: &["seq", "compacted_through"],
        int4: &[],
        blobs: &[],
        order: "scope",
        key: "scope",
    },
    Plain {
        table: "changes",
        columns: "scope, note_id, seq, kind, changed_at",
        booleans: &[],
        integers: &["seq"],
        int4: &[],
        blobs: &[],
        order: "scope, seq",
        key: "scope, note_id",
    },
    Plain {
        table: "tag_renames",
        columns: "scope, idempotency_key, request_fingerprint, renamed, created_at",
        booleans: &[],
        integers: &["renamed"],
        int4: &[],
        blobs: &[],
        order: "scope, idempotency_key",
        key: "scope, idempotency_key",
    },
    Plain {
        table: "revisions",
        columns: "scope, note_id, version, kind, title, body, created_at, idempotency_key, request_fingerprint",
        booleans: &[],
        integers: &["version"],
        int4: &[],
        blobs: &[],
        order: "note_id, version",
        key: "note_id, version",
    },
    Plain {
        table: "tombstones",
        columns: "scope, note_id, idempotency_key, request_fingerprint, purged_at",
        booleans: &[],
        integers: &[],
        int4: &[],
        blobs: &[],
        order: "scope, note_id",
        key: "scope, note_id",
    },
    Plain {
        table: "purged_keys",
        columns: "scope, idempotency_key, note_id, kind, request_fingerprint, purged_at",
        booleans: &[],
        integers: &[],
        int4: &[],
        blobs: &[],
        order: "scope, idempotency_key",
        key: "scope, idempotency_key",
    },
    Plain {
        table: "idempotency_keys",
        columns: "scope, idempotency_key, request_fingerprint, response_status, response_headers, response_body, created_at, expires_at",
        booleans: &[],
        integers: &[],
        int4: &["response_status"],
        blobs: &["response_body"],
        order: "scope, idempotency_key",
        key: "scope, idempotency_key",
    },
];

/// The files, their bytes after them (a chunk's foreign key), the notes that refer to them
/// (copied as they are: a note's references gather over all its versions) and each
/// person's usage (the sum of their files' sizes, copied with them).
const FILES: [Plain; 4] = [
    Plain {
        table: "files",
        columns: "scope, sha256, size, content_type, created_at, last_seen_at",
        booleans: &[],
        integers: &["size"],
        int4: &[],
        blobs: &[],
        order: "scope, sha256",
        key: "scope, sha256",
    },
    Plain {
        table: "file_chunks",
        columns: "scope, sha256, idx, bytes",
        booleans: &[],
        integers: &[],
        int4: &["idx"],
        blobs: &["bytes"],
        order: "scope, sha256, idx",
        key: "scope, sha256, idx",
    },
    Plain {
        table: "file_refs",
        columns: "scope, sha256, note_id",
        booleans: &[],
        integers: &[],
        int4: &[],
        blobs: &[],
        order: "scope, sha256, note_id",
        key: "scope, sha256, note_id",
    },
    Plain {
        table: "file_usage",
        columns: "scope, used_bytes",
        booleans: &[],
        integers: &["used_bytes"],
        int4: &[],
        blobs: &[],
        order: "scope",
        key: "scope",
    },
];

/// Copies everything from `source` into `target`.
pub async fn copy(source: &SqliteStore, target: &PgStore) -> anyhow::Result<CopyReport> {
    let mut report = CopyReport::default();
    for plain in &BEFORE_NOTES {
        report.tables.push(copy_plain(source, target, plain).await?);
    }
    drop_revoked_tokens(source, target).await?;
    report.tables.push(copy_notes(source, target).await?);
    for plain in AFTER_NOTES.iter().chain(&FILES) {
        report.tables.push(copy_plain(source, target, plain).await?);
    }
    // Copied again after the source moved on: a change row may have come with a seq past
    // the counter kept from the first copy; the next write must take a seq past both.
    sqlx::query(
        "UPDATE change_counters SET seq = GREATEST(seq, (SELECT COALESCE(MAX(c.seq), 0) \
         FROM changes c WHERE c.scope = change_counters.scope))",
    )
    .execute(&target.pool)
    .await?;
    Ok(report)
}

/// Deletes the target's tokens of the people copied that the source no longer has: a
/// token revoked (or its person disabled) after a first copy stays revoked when copying
/// again, instead of coming back. The source holds at most `TOKENS_PER_PERSON` tokens a
/// person, so its ids are read at once.
async fn drop_revoked_tokens(source: &SqliteStore, target: &PgStore) -> anyhow::Result<()> {
    let people: Vec<String> = sqlx::query_scalar("SELECT id FROM users")
        .fetch_all(&source.reader)
        .await?;
    let kept: Vec<String> = sqlx::query_scalar("SELECT id FROM api_tokens")
        .fetch_all(&source.reader)
        .await?;
    sqlx::query("DELETE FROM api_tokens WHERE user_id = ANY($1) AND NOT (id = ANY($2))")
        .bind(&people)
        .bind(&kept)
        .execute(&target.pool)
        .await?;
    Ok(())
}

async fn copy_plain(
    source: &SqliteStore,
    target: &PgStore,
    plain: &Plain,
) -> anyhow::Result<(&'static str, u64, u64)> {
    let columns: Vec<&str> = plain.columns.split(", ").collect();
    let placeholders: Vec<String> = (1..=columns.len()).map(|n| format!("${n}")).collect();
    let insert = format!(
        "INSERT INTO {} ({}) VALUES ({}) ON CONFLICT ({}) DO NOTHING",
        plain.table,
        plain.columns,
        placeholders.join(", "),
        plain.key
    );
    let batch = if plain.blobs.is_empty() {
        BATCH
    } else {
        BLOB_BATCH
    };
    let (mut read, mut new) = (0, 0);
    let mut offset = 0;
    loop {
        let rows = sqlx::query(&format!(
            "SELECT {} FROM {} ORDER BY {} LIMIT {batch} OFFSET {offset}",
            plain.columns, plain.table, plain.order
        ))
        .fetch_all(&source.reader)
        .await?;
        let mut tx = target.pool.begin().await?;
        for row in &rows {
            let mut query = sqlx::query(&insert);
            for (i, column) in columns.iter().enumerate() {
                query = if plain.booleans.contains(column) {
                    query.bind(row.try_get::<bool, _>(i)?)
                } else if plain.integers.contains(column) {
                    query.bind(row.try_get::<i64, _>(i)?)
                } else if plain.int4.contains(column) {
                    query.bind(i32::try_from(row.try_get::<i64, _>(i)?)?)
                } else if plain.blobs.contains(column) {
                    query.bind(row.try_get::<Vec<u8>, _>(i)?)
                } else {
                    query.bind(row.try_get::<Option<String>, _>(i)?)
                };
            }
            new += query.execute(&mut *tx).await?.rows_affected();
        }
        tx.commit().await?;
        read += rows.len() as u64;
        if (rows.len() as i64) < batch {
            return Ok((plain.table, read, new));
        }
        offset += batch;
    }
}

async fn copy_notes(
    source: &SqliteStore,
    target: &PgStore,
) -> anyhow::Result<(&'static str, u64, u64)> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        note: NoteRow,
        scope: String,
        idempotency_key: String,
        request_fingerprint: String,
    }
    let (mut read, mut new) = (0, 0);
    let mut offset = 0;
    loop {
        let rows: Vec<Row> = sqlx::query_as(&format!(
            "SELECT {NOTE_COLUMNS}, scope, idempotency_key, request_fingerprint FROM notes \
             ORDER BY created_at, id LIMIT {BATCH} OFFSET {offset}"
        ))
        .fetch_all(&source.reader)
        .await?;
        let mut tx = target.pool.begin().await?;
        for row in &rows {
            let key = IdempotencyKey::from_stored(row.idempotency_key.clone());
            let fingerprint = Fingerprint::from_stored(row.request_fingerprint.clone());
            let note = Note::from(row.note.clone());
            if insert_note(&mut *tx, &row.scope, &key, &fingerprint, &note).await? {
                insert_tags(&mut tx, &row.scope, &note.id, &note.tags).await?;
                new += 1;
            }
        }
        tx.commit().await?;
        read += rows.len() as u64;
        if (rows.len() as i64) < BATCH {
            return Ok(("notes", read, new));
        }
        offset += BATCH;
    }
}
