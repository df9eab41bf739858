//! Write throughput: plain inserts against idempotent creates at 1, 16 and 64 clients,
//! replays of a stored key, edits, and the same creates on a server that commits every
//! write on its own (what group commit adds).

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::people::{people, sqlite_database, start_server};
use crate::server_process::cpu_time;
use crate::stats::{ms, percentile};

/// The client counts of the throughput table.
pub const CLIENTS: [usize; 3] = [1, 16, 64];

/// One cell of the throughput table: `clients` loops sending one kind of request.
#[derive(Serialize, Clone)]
pub struct Cell {
    pub mode: &'static str,
    pub clients: usize,
    pub requests: usize,
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// The server's CPU time (all its threads, user and system) per request, in µs,
    /// where it was measured: read off the process before and after the cell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cpu_us: Option<f64>,
}

/// Requests per second of the cell of `mode` at `clients` (0 if it was not measured).
pub fn rate(cells: &[Cell], mode: &str, clients: usize) -> f64 {
    cells
        .iter()
        .find(|c| c.mode == mode && c.clients == clients)
        .map(|c| c.per_second)
        .unwrap_or(0.0)
}

/// Idempotent creates per plain insert, at each client count.
pub fn create_vs_plain(cells: &[Cell]) -> Vec<(usize, f64)> {
    CLIENTS
        .iter()
        .map(|&c| {
            (
                c,
                rate(cells, "idempotent", c) / rate(cells, "plain", c).max(f64::MIN_POSITIVE),
            )
        })
        .collect()
}

/// The throughput table's heading.
pub fn print_heading() {
    println!(
        "\n{:<12} {:>7} {:>9} {:>10} {:>9} {:>9} {:>11}",
        "mode", "clients", "requests", "per second", "p50 ms", "p99 ms", "server CPU"
    );
}

/// One row of the throughput table.
pub fn print_row(cell: &Cell) {
    let cpu = cell
        .server_cpu_us
        .map(|us| format!("{us:.0} µs/req"))
        .unwrap_or_default();
    println!(
        "{:<12} {:>7} {:>9} {:>10.0} {:>9.2} {:>9.2} {:>11}",
        cell.mode, cell.clients, cell.requests, cell.per_second, cell.p50_ms, cell.p99_ms, cpu
    );
}

/// A note as the benchmark creates it (`n` tells them apart).
pub fn note_body(n: u64) -> String {
    serde_json::json!({
        "title": format!("bench note {n}"),
        "body": "A short note, about the size people write: a line or two of text.",
        "written_at": "2026-11-30T05:00:00.000Z"
    })
    .to_string()
}

/// Plain inserts and idempotent creates at 1, 16 and 64 clients, then `/healthz` at 16
/// (a bare request: what every request costs before its work), each row printed; the
/// CPU time per request of the server `pid` measured in each.
pub async fn plain_vs_idempotent(
    users: &[reqwest::Client],
    base: &str,
    seconds: Duration,
    pid: Option<u32>,
) -> anyhow::Result<Vec<Cell>> {
    let mut cells = Vec::new();
    let modes = CLIENTS
        .iter()
        .flat_map(|&clients| [("plain", clients), ("idempotent", clients)])
        .chain([("healthz", 16)]);
    for (mode, clients) in modes {
        let cell = with_cpu(pid, throughput(users, base, mode, clients, seconds)).await?;
        print_row(&cell);
        cells.push(cell);
    }
    Ok(cells)
}

/// The cell `measuring` takes, with the CPU time the server `pid` used per request
/// meanwhile.
pub async fn with_cpu(
    pid: Option<u32>,
    measuring: impl std::future::Future<Output = anyhow::Result<Cell>>,
) -> anyhow::Result<Cell> {
    let before = pid.and_then(cpu_time);
    let mut cell = measuring.await?;
    let after = pid.and_then(cpu_time);
    if let (Some(before), Some(after)) = (before, after) {
        cell.server_cpu_us =
            Some((after - before).as_secs_f64() * 1e6 / cell.requests.max(1) as f64);
    }
    Ok(cell)
}

/// The server's CPU time per request of `mode` at `clients` (µs), if it was measured.
pub fn cpu_per_request(cells: &[Cell], mode: &str, clients: usize) -> Option<f64> {
    cells
        .iter()
        .find(|c| c.mode == mode && c.clients == clients)
        .and_then(|c| c.server_cpu_us)
}

/// Idempotent creates at 1, 16 and 64 clients on a server of its own for `database` that
/// commits every write on its own (`ONCENOTE_WRITE_BATCH=1`), its people signed up
/// through `client`.
pub async fn one_commit_each(
    binary: &Path,
    database: &Path,
    client: &reqwest::Client,
    seconds: Duration,
) -> anyhow::Result<Vec<Cell>> {
    let mut single = start_server(
        binary,
        sqlite_database(database),
        &[("ONCENOTE_WRITE_BATCH", "1")],
    )
    .await?;
    let single_base = single.base_url();
    let single_users = people(client, &single_base, 16).await?;
    let mut cells = Vec::new();
    for clients in CLIENTS {
        let mut cell = with_cpu(
            single.pid(),
            throughput(&single_users, &single_base, "idempotent", clients, seconds),
        )
        .await?;
        cell.mode = "one commit each";
        println!(
            "{:<16} {:>3} {:>9} {:>10.0} {:>9.2} {:>9.2}",
            cell.mode, cell.clients, cell.requests, cell.per_second, cell.p50_ms, cell.p99_ms
        );
        cells.push(cell);
    }
    single.kill()?;
    Ok(cells)
}

/// `clients` loops posting for `duration`: plain inserts, idempotent creates (a new key
/// each), or replays (one key, already stored) — each loop as one of `users`.
pub async fn throughput(
    users: &[reqwest::Client],
    base: &str,
    mode: &'static str,
    clients: usize,
    duration: Duration,
) -> anyhow::Result<Cell> {
    let replay_key = if mode == "replay" {
        stored_key(&users[0], base).await?
    } else {
        String::new()
    };
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut workers = Vec::new();
    for worker in 0..clients {
        let (client, base, replay_key) = (
            users[worker % users.len()].clone(),
            base.to_owned(),
            replay_key.clone(),
        );
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n = worker as u64 * 1_000_000;
            while Instant::now() < deadline {
                n += 1;
                let request = match mode {
                    "healthz" => client.get(format!("{base}/healthz")),
                    "plain" => client
                        .post(format!("{base}/bench/plain-notes"))
                        .body(note_body(n)),
                    "replay" => client
                        .post(format!("{base}/api/notes"))
                        .header("idempotency-key", &replay_key)
                        .body(note_body(0)),
                    _ => client
                        .post(format!("{base}/api/notes"))
                        .header("idempotency-key", uuid::Uuid::new_v4().to_string())
                        .body(note_body(n)),
                };
                let sent = Instant::now();
                let response = request
                    .header("content-type", "application/json")
                    .send()
                    .await?;
                let ok = response.status().is_success();
                response.bytes().await?;
                anyhow::ensure!(ok, "a {mode} request failed");
                latencies.push(sent.elapsed());
            }
            Ok::<_, anyhow::Error>(latencies)
        }));
    }
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await??);
    }
    Ok(cell(mode, clients, all, started.elapsed()))
}

/// A key whose create is stored (for replays).
pub async fn stored_key(client: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let key = uuid::Uuid::new_v4().to_string();
    let first = client
        .post(format!("{base}/api/notes"))
        .header("content-type", "application/json")
        .header("idempotency-key", &key)
        .body(note_body(0))
        .send()
        .await?;
    anyhow::ensure!(first.status() == 201, "the note to replay was not created");
    Ok(key)
}

/// `clients` loops each editing a note of its own, always from the version it knows
/// (applied edits: the common case), for `duration`.
pub async fn edit_throughput(
    users: &[reqwest::Client],
    base: &str,
    clients: usize,
    duration: Duration,
) -> anyhow::Result<Cell> {
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut workers = Vec::new();
    for worker in 0..clients {
        let (client, base) = (users[worker % users.len()].clone(), base.to_owned());
        workers.push(tokio::spawn(async move {
            let created: serde_json::Value = client
                .post(format!("{base}/api/notes"))
                .header("content-type", "application/json")
                .header("idempotency-key", uuid::Uuid::new_v4().to_string())
                .body(note_body(worker as u64))
                .send()
                .await?
                .json()
                .await?;
            let id = created["id"].as_str().unwrap_or_default().to_owned();
            let mut version = 1;
            let mut latencies = Vec::new();
            while Instant::now() < deadline {
                let body = serde_json::json!({
                    "title": format!("bench note {worker}"),
                    "body": format!("edit {version}: a line or two of text, as people write."),
                    "base_version": version,
                    "written_at": "2026-11-30T05:00:00.000Z"
                });
                let sent = Instant::now();
                let response = client
                    .patch(format!("{base}/api/notes/{id}"))
                    .header("content-type", "application/json")
                    .header("idempotency-key", uuid::Uuid::new_v4().to_string())
                    .body(body.to_string())
                    .send()
                    .await?;
                anyhow::ensure!(
                    response.status() == 200,
                    "an edit answered {}",
                    response.status()
                );
                let answer: serde_json::Value = response.json().await?;
                latencies.push(sent.elapsed());
                version = answer["note"]["version"].as_i64().unwrap_or(version + 1);
            }
            Ok::<_, anyhow::Error>(latencies)
        }));
    }
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await??);
    }
    Ok(cell("edit", clients, all, started.elapsed()))
}

/// The cell of `requests` latencies taken over `elapsed`.
fn cell(
    mode: &'static str,
    clients: usize,
    mut requests: Vec<Duration>,
    elapsed: Duration,
) -> Cell {
    Cell {
        mode,
        clients,
        requests: requests.len(),
        per_second: requests.len() as f64 / elapsed.as_secs_f64(),
        p50_ms: ms(percentile(&mut requests, 50.0)),
        p99_ms: ms(percentile(&mut requests, 99.0)),
        server_cpu_us: None,
    }
}
