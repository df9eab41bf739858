//! Two server builds' searches, taking turns (`bench --only search-ab --against OLD`): on
//! copies of one SQLite database of 100,000 notes, each of the benchmark's queries goes
//! to one server and then the other, the order alternating, so the machine's drift falls
//! on both alike. Prints each server's CPU per search (from `/proc`), its p50 and p99,
//! the median of the per-query time ratios, and how many searches gave both servers the
//! same results in the same order. A change to the search is measured this way: a
//! difference of a millisecond or two is lost between two runs minutes apart on a shared
//! machine, and not between turns.

use std::path::Path;
use std::time::{Duration, Instant};

use super::people::{person, scope_of, sqlite_database, start_server};
use super::search::{queries, searched};
use super::seed;
use crate::server_process::{ServerProcess, cpu_time};
use crate::stats::{ms, percentile};

/// The notes searched.
const NOTES: usize = 100_000;

/// One of the two servers and what was measured on it.
struct Side {
    name: String,
    server: ServerProcess,
    base: String,
    latencies: Vec<Duration>,
}

/// Compares `current` (this build) with `against` (another build's server binary) over
/// the queries `rounds` times; prints the figures.
pub async fn compare(
    current: &Path,
    against: &Path,
    dir: &Path,
    rounds: usize,
) -> anyhow::Result<()> {
    // One database for both, filled once: a person signed up through a server (so both
    // servers know their session, which the copies hold), their notes written through
    // the storage.
    let seeded = dir.join("ab-seed.db");
    let mut server = start_server(current, sqlite_database(&seeded), &[]).await?;
    let base = server.base_url();
    let (client, _) = person(
        &reqwest::Client::new(),
        &base,
        &format!("ab-{}", std::process::id()),
    )
    .await?;
    let scope = scope_of(&client, &base).await?;
    seed::notes(&sqlite_database(&seeded), NOTES, &scope).await?;
    server.kill()?;

    let mut sides = Vec::new();
    for (name, binary) in [("--server", current), ("--against", against)] {
        let copy = dir.join(format!("ab-{}.db", sides.len()));
        // The WAL too (the seeding may not have folded it in); not the index of it,
        // which SQLite rebuilds.
        for suffix in ["", "-wal"] {
            let from = Path::new(&format!("{}{suffix}", seeded.display())).to_owned();
            if from.exists() {
                std::fs::copy(&from, format!("{}{suffix}", copy.display()))?;
            }
        }
        let server = start_server(binary, sqlite_database(&copy), &[]).await?;
        let base = server.base_url();
        sides.push(Side {
            name: format!("{name} ({})", binary.display()),
            server,
            base,
            latencies: Vec::new(),
        });
    }

    let queries = queries();
    // Each server's caches warmed by every query once.
    for side in &sides {
        for q in &queries {
            search(&client, &side.base, q).await?;
        }
    }
    let cpu_before: Vec<Option<Duration>> = sides.iter().map(|s| cpu_of(&s.server)).collect();
    let (mut same, mut searches, mut found_some, mut ratios) = (0, 0, 0, Vec::new());
    for round in 0..rounds {
        for (n, q) in queries.iter().enumerate() {
            let order = if (round + n) % 2 == 0 { [0, 1] } else { [1, 0] };
            let mut found = [Vec::new(), Vec::new()];
            let mut took = [Duration::ZERO; 2];
            for at in order {
                let sent = Instant::now();
                found[at] = search(&client, &sides[at].base, q).await?;
                took[at] = sent.elapsed();
                sides[at].latencies.push(took[at]);
            }
            searches += 1;
            same += usize::from(found[0] == found[1]);
            found_some += usize::from(!found[0].is_empty());
            ratios.push(took[0].as_secs_f64() / took[1].as_secs_f64().max(1e-9));
        }
    }
    println!(
        "search A/B at {NOTES} notes: {} queries x {rounds}, each to both servers in turn",
        queries.len()
    );
    for (side, before) in sides.iter_mut().zip(cpu_before) {
        let cpu = match (before, cpu_of(&side.server)) {
            (Some(before), Some(after)) => format!(
                "{:.1} ms",
                ms(after.saturating_sub(before)) / side.latencies.len() as f64
            ),
            _ => "not measured".into(),
        };
        println!(
            "  {}: server CPU per search {cpu}, p50 {:.1} ms, p99 {:.1} ms",
            side.name,
            ms(percentile(&mut side.latencies, 50.0)),
            ms(percentile(&mut side.latencies, 99.0)),
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "  median per-query time, --server / --against: {:.2}; the same results in the same order: {same} of {searches} ({found_some} found notes on --server)",
        ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN)
    );
    for side in &mut sides {
        side.server.kill()?;
    }
    Ok(())
}

fn cpu_of(server: &ServerProcess) -> Option<Duration> {
    cpu_time(server.pid()?)
}

/// The ids of a search's results, in order.
async fn search(client: &reqwest::Client, base: &str, q: &str) -> anyhow::Result<Vec<String>> {
    let body: serde_json::Value = searched(client, base, q).await?.json().await?;
    let results = body["results"]
        .as_array()
        .ok_or_else(|| anyhow::anyhow!("a search's answer held no results"))?;
    results
        .iter()
        .map(|r| {
            r["note"]["id"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| anyhow::anyhow!("a search's result held no note id"))
        })
        .collect()
}
