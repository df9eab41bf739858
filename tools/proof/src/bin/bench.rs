//! The benchmark: figures side by side, each against a baseline measured in the same run.
//!
//!     scripts/bench.sh            (builds the benchmark server, then runs this)
//!
//! Prints a table and writes the same figures as JSON to bench-results/. Each figure is a
//! module of `proof::bench`; this runs them in order and prints the report.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use proof::bench::lists::ListFigures;
use proof::bench::people::{people, sqlite_database, start_server};
use proof::bench::report::{self, Measured, Report};
use proof::bench::search::{SearchFigures, SearchServer};
use proof::bench::{
    burst, disk, files, fill, home, latency, live, lone, page, postgres, search_ab, wasm, writes,
};

#[derive(Parser, Debug)]
#[command(about = "Measures oncenote's save path against its baselines")]
struct Args {
    /// The server built with --features bench-plain-insert.
    #[arg(long, default_value = "target/bench/release/server")]
    server: PathBuf,
    /// Seconds per throughput cell.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Where the built site is (for the wasm sizes).
    #[arg(long, default_value = "target/site/pkg")]
    pkg: PathBuf,
    /// Folder for the JSON results.
    #[arg(long, default_value = "bench-results")]
    out: PathBuf,
    /// The PostgreSQL server for the side-by-side figures (a database of the run's own is
    /// made there and dropped); `none` to skip them.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/postgres")]
    postgres: String,
    /// Saves timed in the browser (click → Saved).
    #[arg(long, default_value_t = 40)]
    saves: usize,
    /// Only one part of the run, its figures printed (no JSON): `writes` (plain inserts
    /// against idempotent creates on SQLite, with the server's CPU per request, and a
    /// lone create's p99 with group commit and with one commit each), `postgres` (the
    /// write and search figures on PostgreSQL), `live` (change → event latency, idle
    /// streams' memory), `files` (a 10 MiB upload's throughput, memory during 8 parallel
    /// 25 MiB uploads), `page` (the page in Chromium over 100,000 notes: click → Saved, a
    /// search from the box, Lighthouse; the offline copy's first fill; and the wasm's
    /// size), `fill` (the first 30 s of the offline copy's first fill of 100,000 notes in
    /// Chromium, its CPU slowed ×4 for real and not slowed), `home` (the home page over
    /// 100,000 notes under Lighthouse's mobile preset, three runs and their median: two
    /// builds of the page compared at less cost than `page`), `search-ab` (this
    /// `--server`'s searches and `--against`'s taking turns over one database).
    #[arg(long, value_enum)]
    only: Option<Part>,
    /// With `--only search-ab`: the other server binary (another build's), compared with
    /// `--server`.
    #[arg(long)]
    against: Option<PathBuf>,
    /// With `--only search-ab`: how many times the 240 queries go to both servers.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Part {
    Writes,
    Postgres,
    Live,
    Files,
    Page,
    Fill,
    Home,
    SearchAb,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = std::env::temp_dir().join(format!("oncenote-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let seconds = Duration::from_secs(args.seconds);
    if let Some(part) = args.only {
        match part {
            Part::Writes => {
                let mut server =
                    start_server(&args.server, sqlite_database(&dir.join("w.db")), &[]).await?;
                let client = reqwest::Client::new();
                let users = people(&client, &server.base_url(), 16).await?;
                writes::print_heading();
                let cells =
                    writes::plain_vs_idempotent(&users, &server.base_url(), seconds, server.pid())
                        .await?;
                report::print_create_targets("SQLite", &cells);
                server.kill()?;
                let lone =
                    lone::group_commit_vs_one_commit_each(&args.server, &dir, &client, seconds)
                        .await?;
                println!(
                    "a lone create's p99: {:.2} ms with group commit, {:.2} ms with one commit each",
                    lone.group_commit_p99_ms, lone.one_commit_each_p99_ms
                );
            }
            Part::Postgres => {
                if let Some(pg) =
                    postgres::side_by_side(&args.server, &args.postgres, seconds).await?
                {
                    report::print_postgres_targets(&pg);
                }
            }
            Part::Live => {
                live::at_scale(&args.server, &dir).await?;
            }
            Part::Fill => {
                let client = reqwest::Client::new();
                let mut server =
                    SearchServer::start(&args.server, &dir.join("fill.db"), &client).await?;
                server.seed(100_000).await?;
                fill::first_fill(&server.base, &server.token).await;
                server.process.kill()?;
            }
            Part::Home => {
                let client = reqwest::Client::new();
                let mut server =
                    SearchServer::start(&args.server, &dir.join("home.db"), &client).await?;
                server.seed(100_000).await?;
                let ran = home::home_runs(&server.base, &server.token).await;
                server.process.kill()?;
                ran?;
            }
            Part::Files => {
                files::upload_figures(&args.server, &dir).await?;
            }
            Part::SearchAb => {
                let Some(against) = &args.against else {
                    anyhow::bail!("--only search-ab compares --server with --against OTHER_SERVER");
                };
                search_ab::compare(&args.server, against, &dir, args.rounds).await?;
            }
            Part::Page => {
                let (_, _, page) =
                    search_lists_and_page(&args, &dir, &reqwest::Client::new()).await?;
                if let Some(page) = &page {
                    report::print_page_targets(page);
                }
                let wasm = wasm::wasm_sizes(&args.pkg)?;
                println!(
                    "wasm for the first page: {} B raw, {} B gzip, {} B brotli{}",
                    wasm.raw,
                    wasm.gzip,
                    wasm.brotli,
                    wasm::chunk_line(wasm.chunks, wasm.chunks_brotli, wasm.heaviest_page.as_ref())
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        return Ok(());
    }

    println!(
        "oncenote benchmark ({} s per cell; loopback; this machine: {} cores)",
        args.seconds,
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    let disk = disk::commit_rate(&dir.join("disk.db"), seconds).await?;
    println!(
        "disk durable commits (WAL, synchronous=FULL, one row each): {disk:.0}/s — the ceiling"
    );

    // The benchmark runs as signed-in people: 16 accounts, the clients spread over them.
    let database = dir.join("bench.db");
    let mut server = start_server(&args.server, sqlite_database(&database), &[]).await?;
    let base = server.base_url();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(30))
        .build()?;
    let users = people(&client, &base, 16).await?;
    let client = users[0].clone();
    if client
        .post(format!("{base}/bench/plain-notes"))
        .body(writes::note_body(0))
        .send()
        .await?
        .status()
        != 201
    {
        anyhow::bail!(
            "{} lacks /bench/plain-notes: build it with --features bench-plain-insert",
            args.server.display()
        );
    }

    writes::print_heading();
    let cells = writes::plain_vs_idempotent(&users, &base, seconds, server.pid()).await?;
    let replay = writes::throughput(&users[..1], &base, "replay", 16, seconds).await?;
    writes::print_row(&replay);
    let bursts = burst::new_key_vs_replays(&client, &base, &database).await?;
    // Edits: each client edits its own note, from the version it knows.
    let edits = writes::edit_throughput(&users, &base, 16, seconds).await?;
    writes::print_row(&edits);
    let latency = latency::alone_and_under_load(&users, &client, &base, args.seconds).await?;
    // The same creates on a server that commits every write on its own: what group
    // commit adds, measured in this run.
    let one_commit_each = writes::one_commit_each(
        &args.server,
        &dir.join("one-commit-each.db"),
        &client,
        seconds,
    )
    .await?;
    let lone = lone::group_commit_vs_one_commit_each(&args.server, &dir, &client, seconds).await?;

    let (search, lists, page) = search_lists_and_page(&args, &dir, &client).await?;

    let postgres = postgres::side_by_side(&args.server, &args.postgres, seconds).await?;

    // Live updates: 1,000 streams (latency), then 10,000 idle ones (memory).
    let live = live::at_scale(&args.server, &dir).await?;

    // Files: one upload's throughput, and memory during parallel uploads.
    let files = files::upload_figures(&args.server, &dir).await?;

    let wasm = wasm::wasm_sizes(&args.pkg)?;
    let server_peak_rss_kib = server.peak_memory_kib();
    server.kill()?;

    let report = Report::new(Measured {
        disk_commits_per_second: disk,
        cells,
        replay,
        edits,
        bursts,
        latency,
        one_commit_each,
        lone,
        search,
        lists,
        page,
        wasm,
        server_peak_rss_kib,
        postgres,
        live,
        files,
    });
    report.print_targets();
    report.print_side_by_side();
    let file = report.write_json(&args.out)?;
    println!("\nfigures written to {}", file.display());
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Search, lists and the page in a browser at exactly 10,000 and 100,000 notes, on a
/// server and database of their own.
async fn search_lists_and_page(
    args: &Args,
    dir: &Path,
    client: &reqwest::Client,
) -> anyhow::Result<(Vec<SearchFigures>, ListFigures, Option<serde_json::Value>)> {
    let mut search_server =
        SearchServer::start(&args.server, &dir.join("search.db"), client).await?;
    let (search, lists) = search_server.search_and_lists().await?;
    let page = page::in_the_browser(
        &search_server.client,
        &search_server.base,
        &search_server.token,
        args.saves,
    )
    .await;
    search_server.process.kill()?;
    Ok((search, lists, page))
}
