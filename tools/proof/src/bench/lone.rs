//! A lone create's latency with group commit and with one commit each, measured alike.
//!
//! Until 2026-12-05 the run compared the 1-client cell of its main server (its file
//! holding the plain inserts' cell before it) with that of a server of one commit each,
//! started minutes later on an empty file: two moments of a shared machine and two
//! files, not the two ways of committing. Here two servers start the same way on new
//! databases of their own — one as deployed (group commit), one with
//! `ONCENOTE_WRITE_BATCH=1` — and their 1-client cells take turns in the order A B B A,
//! so each meets a database of the same size and, in sum, the same moments.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::people::{people, sqlite_database, start_server};
use super::writes::throughput;

/// Cells each server runs, in turn with the other's.
const TURNS: usize = 2;

/// A lone create's p99 (ms) on each server: the mean of its cells' p99s.
#[derive(Serialize, Clone, Copy)]
pub struct LoneCreate {
    pub group_commit_p99_ms: f64,
    pub one_commit_each_p99_ms: f64,
}

/// Starts the two servers of `binary` on new databases in `dir`, one person each signed
/// up through `client`, and takes [`TURNS`] 1-client cells of creates on each in turn.
pub async fn group_commit_vs_one_commit_each(
    binary: &Path,
    dir: &Path,
    client: &reqwest::Client,
    seconds: Duration,
) -> anyhow::Result<LoneCreate> {
    let mut group = start_server(
        binary,
        sqlite_database(&dir.join("lone-group-commit.db")),
        &[],
    )
    .await?;
    let mut single = start_server(
        binary,
        sqlite_database(&dir.join("lone-one-commit-each.db")),
        &[("ONCENOTE_WRITE_BATCH", "1")],
    )
    .await?;
    let (group_base, single_base) = (group.base_url(), single.base_url());
    let group_person = people(client, &group_base, 1).await?;
    let single_person = people(client, &single_base, 1).await?;
    let (mut group_p99, mut single_p99) = (Vec::new(), Vec::new());
    for turn in 0..TURNS {
        // A B, then B A: neither always goes first.
        for group_now in [turn % 2 == 0, turn % 2 == 1] {
            let (person, base, p99s) = if group_now {
                (&group_person, &group_base, &mut group_p99)
            } else {
                (&single_person, &single_base, &mut single_p99)
            };
            p99s.push(
                throughput(person, base, "idempotent", 1, seconds)
                    .await?
                    .p99_ms,
            );
        }
    }
    group.kill()?;
    single.kill()?;
    let figures = LoneCreate {
        group_commit_p99_ms: mean(&group_p99),
        one_commit_each_p99_ms: mean(&single_p99),
    };
    println!(
        "a lone create's p99, two new servers taking turns: group commit {group_p99:.2?} ms, one commit each {single_p99:.2?} ms"
    );
    Ok(figures)
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}
