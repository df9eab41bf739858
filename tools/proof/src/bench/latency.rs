//! `/healthz` and a replay, one request at a time, alone and beside 64 clients creating:
//! whether group commit keeps reads and replays out of the writers' way.

use std::time::{Duration, Instant};

use super::writes::{note_body, stored_key, throughput};
use crate::stats::{ms, percentile};

/// p99 latencies (ms) of the probes, alone and under load.
pub struct LatencyFigures {
    pub healthz_idle: f64,
    pub healthz_loaded: f64,
    pub replay_idle: f64,
    pub replay_loaded: f64,
}

#[derive(Clone, Copy)]
enum Probe {
    Health,
    Replay,
}

/// Probes for `seconds` (clamped to 1–3 s) each: alone, then beside 64 of `users`
/// creating; prints the line.
pub async fn alone_and_under_load(
    users: &[reqwest::Client],
    client: &reqwest::Client,
    base: &str,
    seconds: u64,
) -> anyhow::Result<LatencyFigures> {
    let replay_key = stored_key(client, base).await?;
    let probe_for = Duration::from_secs(seconds.clamp(1, 3));
    let healthz_idle = probe(client, base, Probe::Health, &replay_key, probe_for).await?;
    let replay_idle = probe(client, base, Probe::Replay, &replay_key, probe_for).await?;
    let (load, healthz_loaded) = tokio::join!(
        throughput(users, base, "idempotent", 64, probe_for),
        probe(client, base, Probe::Health, &replay_key, probe_for)
    );
    load?;
    let (load, replay_loaded) = tokio::join!(
        throughput(users, base, "idempotent", 64, probe_for),
        probe(client, base, Probe::Replay, &replay_key, probe_for)
    );
    load?;
    let (healthz_loaded, replay_loaded) = (healthz_loaded?, replay_loaded?);
    println!(
        "p99 alone → beside 64 clients creating: /healthz {healthz_idle:.2} → {healthz_loaded:.2} ms, replay {replay_idle:.2} → {replay_loaded:.2} ms"
    );
    Ok(LatencyFigures {
        healthz_idle,
        healthz_loaded,
        replay_idle,
        replay_loaded,
    })
}

/// The p99 latency of one request at a time (`/healthz`, or a replay of `key`) for
/// `duration`.
async fn probe(
    client: &reqwest::Client,
    base: &str,
    probe: Probe,
    key: &str,
    duration: Duration,
) -> anyhow::Result<f64> {
    let deadline = Instant::now() + duration;
    let mut latencies = Vec::new();
    while Instant::now() < deadline {
        let request = match probe {
            Probe::Health => client.get(format!("{base}/healthz")),
            Probe::Replay => client
                .post(format!("{base}/api/notes"))
                .header("content-type", "application/json")
                .header("idempotency-key", key)
                .body(note_body(0)),
        };
        let sent = Instant::now();
        let response = request.send().await?;
        let ok = response.status().is_success();
        response.bytes().await?;
        anyhow::ensure!(ok, "a probe failed");
        latencies.push(sent.elapsed());
    }
    Ok(ms(percentile(&mut latencies, 99.0)))
}
