//! The same write and search figures on PostgreSQL (one server process), on a database of
//! the run's own made at the given server and dropped afterwards.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::people::{people, scope_of, start_server};
use super::search::{SIZES, SearchFigures, search_latency};
use super::seed;
use super::writes::{Cell, create_vs_plain, edit_throughput, plain_vs_idempotent, throughput};
use crate::stats::{ms, percentile};

/// The PostgreSQL side of the side-by-side table.
#[derive(Serialize, Clone)]
pub struct PostgresFigures {
    pub cells: Vec<Cell>,
    pub create_vs_plain: Vec<(usize, f64)>,
    pub replay_per_second: f64,
    pub edit_per_second_16: f64,
    pub edit_p99_ms_16: f64,
    pub search: Vec<SearchFigures>,
    /// Write → event across two replicas: streams on one, creates sent to the other.
    pub fan_out_event_p50_ms: f64,
    pub fan_out_event_p99_ms: f64,
}

/// The figures on the PostgreSQL server at `server` (`none`: not measured), with the
/// benchmark server `binary`.
pub async fn side_by_side(
    binary: &Path,
    server: &str,
    seconds: Duration,
) -> anyhow::Result<Option<PostgresFigures>> {
    if server == "none" {
        return Ok(None);
    }
    println!("\n── PostgreSQL ({server}) ─────────────────────");
    Ok(Some(postgres_figures(binary, server, seconds).await?))
}

/// The write and search figures on a PostgreSQL database of the run's own at `server`.
async fn postgres_figures(
    binary: &Path,
    server: &str,
    seconds: Duration,
) -> anyhow::Result<PostgresFigures> {
    let name = format!("oncenote_bench_{}", std::process::id());
    let mut admin = crate::invariants::open(server).await?;
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name}"))
        .execute(&mut admin)
        .await?;
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut admin)
        .await?;
    let url = format!(
        "{}/{name}",
        server
            .rsplit_once('/')
            .map(|(base, _)| base)
            .unwrap_or(server)
    );
    let figures = figures_on(binary, &url, seconds).await;
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&mut admin)
        .await?;
    figures
}

/// The figures on the database at `url`, with a server of their own.
async fn figures_on(
    binary: &Path,
    url: &str,
    seconds: Duration,
) -> anyhow::Result<PostgresFigures> {
    let mut process = start_server(binary, url.to_owned(), &[]).await?;
    let base = process.base_url();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    let users = people(&client, &base, 16).await?;
    let cells = plain_vs_idempotent(&users, &base, seconds, process.pid()).await?;
    let create_vs_plain = create_vs_plain(&cells);
    let replay = throughput(&users[..1], &base, "replay", 16, seconds).await?;
    let edits = edit_throughput(&users, &base, 16, seconds).await?;
    println!(
        "replay 16 clients {:.0}/s · edit 16 clients {:.0}/s (p99 {:.2} ms)",
        replay.per_second, edits.per_second, edits.p99_ms
    );
    // Fan-out: a second replica on the same database holds 5 streams for each of the 16
    // people; 160 creates go to the first.
    let mut replica = start_server(binary, url.to_owned(), &[]).await?;
    let (mut fan_out, _) =
        super::live::event_latency(&users, &base, &replica.base_url(), 5, 160).await?;
    replica.kill()?;
    let (fan_out_event_p50_ms, fan_out_event_p99_ms) = (
        ms(percentile(&mut fan_out, 50.0)),
        ms(percentile(&mut fan_out, 99.0)),
    );
    println!(
        "write on one replica → event on the other (80 streams): p50 {fan_out_event_p50_ms:.1} ms, p99 {fan_out_event_p99_ms:.1} ms"
    );
    // Search on a person of its own, seeded through the server's storage.
    let searcher = people(&client, &base, 1).await?.remove(0);
    let scope = scope_of(&searcher, &base).await?;
    let mut search = Vec::new();
    let mut have = 0;
    for target in SIZES {
        seed::notes(url, target - have, &scope).await?;
        have = target;
        search.push(search_latency(&searcher, &base, target).await?);
    }
    process.kill()?;
    Ok(PostgresFigures {
        cells,
        create_vs_plain,
        replay_per_second: replay.per_second,
        edit_per_second_16: edits.per_second,
        edit_p99_ms_16: edits.p99_ms,
        search,
        fan_out_event_p50_ms,
        fan_out_event_p99_ms,
    })
}
