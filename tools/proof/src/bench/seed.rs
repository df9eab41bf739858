//! The notes the search and list figures run over, written through the server's own
//! storage rather than SQL of the benchmark's: each note goes in by the insert a create
//! runs, so it gets its first revision and is indexed exactly as the server indexes a
//! note it creates (SQLite: the FTS5 row with its CJK column; PostgreSQL: the search
//! document, folded and cut the server's way).
//!
//! The storage entry points used, and only these: `Store::open` (from a `Config`),
//! `Backend::write` (one claimed write, one transaction, running a `Work`) and, inside it,
//! `NoteWrites::insert_note`. Seeding stays fast: 5,000 notes go in one write — one
//! transaction, one idempotency row for the whole batch — as the SQL fill did before.

use std::sync::Arc;
use std::time::Instant;

use app::api::{NOTES_PATH, Note};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use server::config::Config;
use server::idempotency::{Applied, ClaimTicket, Fingerprint, IdempotencyKey, StoredAnswer};
use server::storage::{Backend, NoteWrites, StorageError, Store, Work};
use server::timestamp;

/// Notes written in one transaction.
const BATCH: usize = 5_000;

/// Pseudo-words of a made-up language, so a query matches a realistic share of notes.
pub fn word(n: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ren", "to", "sa", "vi", "nor", "pe", "qu", "el", "dra", "fi", "mun",
        "ta", "zo",
    ];
    let mut out = String::new();
    let mut n = n;
    for _ in 0..3 {
        out.push_str(SYLLABLES[n % 16]);
        n /= 16;
    }
    out
}

/// Adds `n` notes of 40–120 made-up words for `scope` to the database at `database_url`
/// (a `sqlite:` or `postgres://` URL, as the server takes it), in transactions of 5,000.
/// The server may be running on the same database.
pub async fn notes(database_url: &str, n: usize, scope: &str) -> anyhow::Result<()> {
    let started = Instant::now();
    let config =
        Config::from_lookup(|name| (name == "DATABASE_URL").then(|| database_url.to_owned()))?;
    let store = Store::open(&config).await?;
    let mut rng = StdRng::seed_from_u64(n as u64);
    let mut left = n;
    while left > 0 {
        let batch = left.min(BATCH);
        let notes = (0..batch).map(|_| made_up_note(&mut rng)).collect();
        write(&store, &config, scope, SeedBatch { notes }).await?;
        left -= batch;
    }
    store.close().await;
    if database_url.starts_with("postgres") {
        // What autovacuum does within a minute of a bulk load (this machine's PostgreSQL
        // runs with it off; a default one vacuums after as many inserts, and analyzes):
        // the planner learns how many notes the person now has (with the statistics of a
        // few notes it would read all of them for a common word rather than take the
        // search index), and the search index takes in its pending list (the new notes'
        // words, which every search would otherwise read through: up to 4 MB of them).
        let mut connection = crate::invariants::open(database_url).await?;
        sqlx::query("VACUUM ANALYZE notes")
            .execute(&mut connection)
            .await?;
    }
    println!(
        "(filled {n} notes in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A note as a create would make it, of made-up words (Zipf-like: low numbers are
/// common words, high numbers rare); its first four words are the title.
fn made_up_note(rng: &mut StdRng) -> NewSeededNote {
    let words: Vec<String> = (0..rng.random_range(40..120))
        .map(|_| word((rng.random::<f64>().powi(3) * 4096.0) as usize))
        .collect();
    let title = words[..4].join(" ");
    let body = words.join(" ");
    let at = timestamp::format(timestamp::now());
    let fingerprint = Fingerprint::of("POST", NOTES_PATH, &[&title, &body, &at]);
    let id = uuid::Uuid::new_v4().to_string();
    NewSeededNote {
        key: IdempotencyKey::from_stored(id.clone()),
        fingerprint,
        note: Note {
            id,
            written_at: at.clone(),
            created_at: at.clone(),
            updated_at: at,
            version: 1,
            trashed_at: None,
            conflict_of: None,
            tags: server::text::tags::of_note(&title, &body),
            title,
            body,
            pinned: false,
            html: None,
        },
    }
}

/// One seeded note with the key and fingerprint of the create that would have made it.
struct NewSeededNote {
    key: IdempotencyKey,
    fingerprint: Fingerprint,
    note: Note,
}

/// A batch of notes written as one write under a key of its own.
struct SeedBatch {
    notes: Vec<NewSeededNote>,
}

impl Work for SeedBatch {
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of("POST", "/bench/seed", &[])
    }

    async fn run<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        _key: &IdempotencyKey,
    ) -> Result<Applied, StorageError> {
        for seeded in &self.notes {
            tx.insert_note(scope, &seeded.key, &seeded.fingerprint, &seeded.note)
                .await?;
        }
        Ok(Applied {
            answer: StoredAnswer {
                status: 204,
                headers: Vec::new(),
                body: Vec::new(),
            },
            late: false,
        })
    }
}

/// Runs `batch` as one write on `store`: its own transaction, under a new key.
async fn write(
    store: &Store,
    config: &Config,
    scope: &str,
    batch: SeedBatch,
) -> anyhow::Result<()> {
    let now = timestamp::now();
    let ticket = ClaimTicket {
        scope: scope.to_owned(),
        key: IdempotencyKey::from_stored(uuid::Uuid::new_v4().to_string()),
        fingerprint: batch.fingerprint(),
        created_at: timestamp::format(now),
        expires_at: timestamp::format(timestamp::after(now, config.idempotency_ttl)),
    };
    let batch = Arc::new(batch);
    match store {
        Store::Sqlite(db) => db.write(ticket, batch).await?,
        Store::Postgres(db) => db.write(ticket, batch).await?,
    };
    Ok(())
}
