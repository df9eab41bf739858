//! Bursts: 128 requests with one new key released together, against 128 replays of a
//! stored key released the same way — both are bursts of 128 concurrent requests on this
//! machine — and the check that the new key made one note.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Barrier;

use super::writes::note_body;
use crate::stats::{ms, percentile};

/// The bursts' p99 latencies (ms) and the most notes stored for one of the new keys.
pub struct BurstFigures {
    pub same_key_p99: f64,
    pub replay_p99: f64,
    pub notes_per_key: i64,
}

/// Five rounds of each burst against `base`, whose database is the SQLite file `database`.
pub async fn new_key_vs_replays(
    client: &reqwest::Client,
    base: &str,
    database: &Path,
) -> anyhow::Result<BurstFigures> {
    let (same_key_p99, same_keys) = released_together(client, base, 128, 5, false).await?;
    let (replay_p99, _) = released_together(client, base, 128, 5, true).await?;
    let notes_per_key = most_notes_per_key(database, &same_keys).await?;
    Ok(BurstFigures {
        same_key_p99,
        replay_p99,
        notes_per_key,
    })
}

/// `rounds` times, `n` requests with one key released together (a barrier): with a new
/// key each round (`stored` false: the first of them creates the note, the rest wait for
/// it and replay), or with a key already stored (`stored` true: all replay). Returns the
/// p99 latency over all requests and the keys used.
async fn released_together(
    client: &reqwest::Client,
    base: &str,
    n: usize,
    rounds: usize,
    stored: bool,
) -> anyhow::Result<(f64, Vec<String>)> {
    let mut latencies = Vec::new();
    let mut keys = Vec::new();
    for round in 0..rounds {
        let key = uuid::Uuid::new_v4().to_string();
        if stored {
            let first = client
                .post(format!("{base}/api/notes"))
                .header("content-type", "application/json")
                .header("idempotency-key", &key)
                .body(note_body(round as u64))
                .send()
                .await?;
            anyhow::ensure!(first.status() == 201, "the note to replay was not created");
        }
        let barrier = Arc::new(Barrier::new(n));
        let mut requests = Vec::new();
        for _ in 0..n {
            let (client, base, key, barrier) = (
                client.clone(),
                base.to_owned(),
                key.clone(),
                barrier.clone(),
            );
            requests.push(tokio::spawn(async move {
                barrier.wait().await;
                let sent = Instant::now();
                let response = client
                    .post(format!("{base}/api/notes"))
                    .header("content-type", "application/json")
                    .header("idempotency-key", &key)
                    .body(note_body(round as u64))
                    .send()
                    .await?;
                let status = response.status();
                let body = response.bytes().await?;
                Ok::<_, anyhow::Error>((sent.elapsed(), status.as_u16(), body))
            }));
        }
        let mut bodies = Vec::new();
        for request in requests {
            let (latency, status, body) = request.await??;
            anyhow::ensure!(status == 201, "a same-key request answered {status}");
            latencies.push(latency);
            bodies.push(body);
        }
        anyhow::ensure!(
            bodies.iter().all(|b| *b == bodies[0]),
            "same-key answers differ"
        );
        keys.push(key);
    }
    Ok((ms(percentile(&mut latencies, 99.0)), keys))
}

/// The most notes stored for any of `keys`, counted in the database itself.
async fn most_notes_per_key(database: &Path, keys: &[String]) -> anyhow::Result<i64> {
    let mut conn = crate::invariants::open(&crate::invariants::sqlite_url(database)).await?;
    let mut most = 0;
    for key in keys {
        let notes: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM notes WHERE idempotency_key = $1")
                .bind(key)
                .fetch_one(&mut conn)
                .await?;
        most = most.max(notes);
    }
    Ok(most)
}
