//! The benchmark: figures side by side, each against a baseline measured in the same run.
//!
//!     scripts/bench.sh            (builds the benchmark server, then runs this)
//!
//! Prints a table and writes the same figures as JSON to bench-results/.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use proof::server_process::ServerProcess;
use proof::stats::percentile;
use serde::Serialize;
use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteSynchronous};
use tokio::sync::Barrier;

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
}

/// The same write and search figures on PostgreSQL (one server process).
#[derive(Serialize, Clone)]
struct PostgresFigures {
    cells: Vec<Cell>,
    create_vs_plain: Vec<(usize, f64)>,
    replay_per_second: f64,
    edit_per_second_16: f64,
    edit_p99_ms_16: f64,
    search: Vec<SearchFigures>,
}

#[derive(Serialize, Clone)]
struct Cell {
    mode: &'static str,
    clients: usize,
    requests: usize,
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
}

/// Search latency over a set of queries at one size of the database.
#[derive(Serialize, Clone)]
struct SearchFigures {
    notes: usize,
    queries: usize,
    p50_ms: f64,
    p99_ms: f64,
}

#[derive(Serialize)]
struct Report {
    at: String,
    disk_commits_per_second: f64,
    cells: Vec<Cell>,
    create_vs_plain: Vec<(usize, f64)>,
    replay_per_second: f64,
    edit_per_second_16: f64,
    edit_vs_create_16: f64,
    edit_p99_ms_16: f64,
    search: Vec<SearchFigures>,
    list_first_page_p50_ms_100k: f64,
    list_first_page_p99_ms_100k: f64,
    list_deep_page_p99_ms_100k: f64,
    home_page_p99_ms_100k: f64,
    replay_vs_create_16: f64,
    lone_p99_ms: f64,
    same_key_128_p99_ms: f64,
    replay_128_p99_ms: f64,
    same_key_128_vs_replay_128_p99: f64,
    same_key_128_notes_per_key: i64,
    wasm_bytes: u64,
    wasm_gzip_bytes: u64,
    wasm_brotli_bytes: u64,
    server_peak_rss_kib: Option<u64>,
    /// Measured in Chromium by `end2end/bench/page.mjs`: click → Saved, the search page at
    /// 100,000 notes, Lighthouse (mobile, desktop).
    page: Option<serde_json::Value>,
    /// Idempotent creates on a server committing every write on its own
    /// (`ONCENOTE_WRITE_BATCH=1`): the same write path without group commit.
    one_commit_each: Vec<Cell>,
    group_commit_gain: Vec<(usize, f64)>,
    healthz_p99_ms_idle: f64,
    healthz_p99_ms_loaded: f64,
    replay_p99_ms_idle: f64,
    replay_p99_ms_loaded: f64,
    postgres: Option<PostgresFigures>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn note_body(n: u64) -> String {
    serde_json::json!({
        "title": format!("bench note {n}"),
        "body": "A short note, about the size people write: a line or two of text.",
        "written_at": "2026-11-30T05:00:00.000Z"
    })
    .to_string()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = std::env::temp_dir().join(format!("oncenote-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;

    println!(
        "oncenote benchmark ({} s per cell; loopback; this machine: {} cores)",
        args.seconds,
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    let disk = disk_commit_rate(&dir.join("disk.db"), Duration::from_secs(args.seconds)).await?;
    println!(
        "disk durable commits (WAL, synchronous=FULL, one row each): {disk:.0}/s — the ceiling"
    );

    let mut server = ServerProcess::new(&args.server, &dir.join("bench.db"))?;
    // The benchmark runs as signed-in people: 16 accounts, the clients spread over them.
    server.env = vec![
        ("ONCENOTE_SIGNUP".into(), "open".into()),
        // Every simulated person signs up from 127.0.0.1: lift the per-address limit
        // on new accounts (five times this) for them.
        ("ONCENOTE_SIGN_IN_MAX_FAILURES".into(), "1000".into()),
    ];
    server.start().await?;
    let base = server.base_url();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(30))
        .build()?;
    let users = people(&client, &base, 16).await?;
    let client = users[0].clone();
    if client
        .post(format!("{base}/bench/plain-notes"))
        .body(note_body(0))
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

    let seconds = Duration::from_secs(args.seconds);
    let mut cells = Vec::new();
    println!(
        "\n{:<12} {:>7} {:>9} {:>10} {:>9} {:>9}",
        "mode", "clients", "requests", "per second", "p50 ms", "p99 ms"
    );
    for clients in [1, 16, 64] {
        for mode in ["plain", "idempotent"] {
            let cell = throughput(&users, &base, mode, clients, seconds).await?;
            println!(
                "{:<12} {:>7} {:>9} {:>10.0} {:>9.2} {:>9.2}",
                cell.mode, cell.clients, cell.requests, cell.per_second, cell.p50_ms, cell.p99_ms
            );
            cells.push(cell);
        }
    }
    let rate = |mode: &str, clients: usize| {
        cells
            .iter()
            .find(|c| c.mode == mode && c.clients == clients)
            .map(|c| c.per_second)
            .unwrap_or(0.0)
    };
    let create_vs_plain: Vec<(usize, f64)> = [1, 16, 64]
        .iter()
        .map(|&c| {
            (
                c,
                rate("idempotent", c) / rate("plain", c).max(f64::MIN_POSITIVE),
            )
        })
        .collect();

    let replay = throughput(&users[..1], &base, "replay", 16, seconds).await?;
    println!(
        "{:<12} {:>7} {:>9} {:>10.0} {:>9.2} {:>9.2}",
        replay.mode,
        replay.clients,
        replay.requests,
        replay.per_second,
        replay.p50_ms,
        replay.p99_ms
    );
    let lone_p99 = cells
        .iter()
        .find(|c| c.mode == "idempotent" && c.clients == 1)
        .map(|c| c.p99_ms)
        .unwrap_or(0.0);
    // 128 requests with one new key, against 128 replays of a stored key released the
    // same way: both are bursts of 128 concurrent requests on this machine.
    let (same_key_p99, same_keys) = released_together(&client, &base, 128, 5, false).await?;
    let (replay_burst_p99, _) = released_together(&client, &base, 128, 5, true).await?;
    let same_key_notes = most_notes_per_key(&dir.join("bench.db"), &same_keys).await?;

    // Edits: each client edits its own note, from the version it knows.
    let edits = edit_throughput(&users, &base, 16, seconds).await?;
    println!(
        "{:<12} {:>7} {:>9} {:>10.0} {:>9.2} {:>9.2}",
        edits.mode, edits.clients, edits.requests, edits.per_second, edits.p50_ms, edits.p99_ms
    );

    // /healthz and a replay, one request at a time, alone and beside 64 clients creating.
    let replay_key = stored_key(&client, &base).await?;
    let probe_for = Duration::from_secs(args.seconds.clamp(1, 3));
    let healthz_idle = probe(&client, &base, Probe::Health, &replay_key, probe_for).await?;
    let replay_idle = probe(&client, &base, Probe::Replay, &replay_key, probe_for).await?;
    let (load, healthz_loaded) = tokio::join!(
        throughput(&users, &base, "idempotent", 64, probe_for),
        probe(&client, &base, Probe::Health, &replay_key, probe_for)
    );
    load?;
    let (load, replay_loaded) = tokio::join!(
        throughput(&users, &base, "idempotent", 64, probe_for),
        probe(&client, &base, Probe::Replay, &replay_key, probe_for)
    );
    load?;
    let (healthz_loaded, replay_loaded) = (healthz_loaded?, replay_loaded?);
    println!(
        "p99 alone → beside 64 clients creating: /healthz {healthz_idle:.2} → {healthz_loaded:.2} ms, replay {replay_idle:.2} → {replay_loaded:.2} ms"
    );

    // The same creates on a server that commits every write on its own: what group
    // commit adds, measured in this run.
    let mut single = ServerProcess::new(&args.server, &dir.join("one-commit-each.db"))?;
    single.env = vec![
        ("ONCENOTE_SIGNUP".into(), "open".into()),
        // Every simulated person signs up from 127.0.0.1: lift the per-address limit
        // on new accounts (five times this) for them.
        ("ONCENOTE_SIGN_IN_MAX_FAILURES".into(), "1000".into()),
        ("ONCENOTE_WRITE_BATCH".into(), "1".into()),
    ];
    single.start().await?;
    let single_base = single.base_url();
    let single_users = people(&client, &single_base, 16).await?;
    let mut one_commit_each = Vec::new();
    for clients in [1, 16, 64] {
        let mut cell =
            throughput(&single_users, &single_base, "idempotent", clients, seconds).await?;
        cell.mode = "one commit each";
        println!(
            "{:<16} {:>3} {:>9} {:>10.0} {:>9.2} {:>9.2}",
            cell.mode, cell.clients, cell.requests, cell.per_second, cell.p50_ms, cell.p99_ms
        );
        one_commit_each.push(cell);
    }
    single.kill()?;
    let group_commit_gain: Vec<(usize, f64)> = one_commit_each
        .iter()
        .map(|c| {
            (
                c.clients,
                rate("idempotent", c.clients) / c.per_second.max(f64::MIN_POSITIVE),
            )
        })
        .collect();

    // Search and lists at exactly 10,000 and 100,000 notes (filled in straight through
    // SQL), on a server and database of their own.
    let database = dir.join("search.db");
    let mut search_server = ServerProcess::new(&args.server, &database)?;
    search_server.env = vec![
        ("ONCENOTE_SIGNUP".into(), "open".into()),
        // Every simulated person signs up from 127.0.0.1: lift the per-address limit
        // on new accounts (five times this) for them.
        ("ONCENOTE_SIGN_IN_MAX_FAILURES".into(), "1000".into()),
    ];
    search_server.start().await?;
    let base = search_server.base_url();
    let (client, token) = person(&client, &base, &format!("search-{}", std::process::id())).await?;
    let me: serde_json::Value = client
        .get(format!("{base}/api/me"))
        .send()
        .await?
        .json()
        .await?;
    let scope = me["user_id"].as_str().unwrap_or_default().to_owned();
    let mut search = Vec::new();
    let mut lists = (0.0, 0.0, 0.0, 0.0);
    for target in [10_000usize, 100_000] {
        let have = count_notes(&database).await?;
        if have < target {
            fill(&database, target - have, &scope).await?;
        }
        let figures = search_latency(&client, &base, target).await?;
        println!(
            "search at {:>7} notes: {} queries, p50 {:.2} ms, p99 {:.2} ms",
            figures.notes, figures.queries, figures.p50_ms, figures.p99_ms
        );
        search.push(figures);
        if target == 100_000 {
            lists = list_latency(&client, &base).await?;
            println!(
                "list at 100,000 notes: first page p50 {:.2} ms p99 {:.2} ms · a page 40,000 notes deep p99 {:.2} ms · the home page (SSR) p99 {:.2} ms",
                lists.0, lists.1, lists.2, lists.3
            );
        }
    }

    // The page in a browser, against the same 100,000 notes.
    let page = page_figures(&args, &base, &token).await;
    match &page {
        Ok(figures) => println!(
            "in the browser: click → Saved p95 {:.1} ms, search page p95 {:.1} ms at 100,000 notes; Lighthouse {}",
            figures["click_to_saved"]["p95_ms"].as_f64().unwrap_or(f64::NAN),
            figures["search_page"]["p95_ms"].as_f64().unwrap_or(f64::NAN),
            figures["lighthouse"]
                .as_array()
                .map(|runs| runs
                    .iter()
                    .map(|r| format!(
                        "{}: performance {} accessibility {} best practices {} (LCP {:.0} ms, TBT {:.0} ms, CLS {:.3}, {:.0} KB)",
                        r["preset"].as_str().unwrap_or("?"),
                        r["performance"], r["accessibility"], r["best_practices"],
                        r["lcp_ms"].as_f64().unwrap_or(f64::NAN),
                        r["tbt_ms"].as_f64().unwrap_or(f64::NAN),
                        r["cls"].as_f64().unwrap_or(f64::NAN),
                        r["total_bytes"].as_f64().unwrap_or(f64::NAN) / 1000.0
                    ))
                    .collect::<Vec<_>>()
                    .join("; "))
                .unwrap_or_default()
        ),
        Err(error) => println!("in the browser: not measured ({error:#})"),
    }
    let page = page.ok();

    search_server.kill()?;

    let postgres = if args.postgres == "none" {
        None
    } else {
        println!("\n── PostgreSQL ({}) ─────────────────────", args.postgres);
        Some(postgres_figures(&args, &args.postgres, seconds).await?)
    };

    let (raw, gzip, brotli) = wasm_sizes(&args.pkg)?;
    let peak = server.peak_memory_kib();
    server.kill()?;

    let report = Report {
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        disk_commits_per_second: disk,
        create_vs_plain: create_vs_plain.clone(),
        replay_per_second: replay.per_second,
        edit_per_second_16: edits.per_second,
        edit_vs_create_16: edits.per_second / rate("idempotent", 16).max(f64::MIN_POSITIVE),
        edit_p99_ms_16: edits.p99_ms,
        search: search.clone(),
        list_first_page_p50_ms_100k: lists.0,
        list_first_page_p99_ms_100k: lists.1,
        list_deep_page_p99_ms_100k: lists.2,
        home_page_p99_ms_100k: lists.3,
        replay_vs_create_16: replay.per_second / rate("idempotent", 16).max(f64::MIN_POSITIVE),
        lone_p99_ms: lone_p99,
        same_key_128_p99_ms: same_key_p99,
        replay_128_p99_ms: replay_burst_p99,
        same_key_128_vs_replay_128_p99: same_key_p99 / replay_burst_p99.max(f64::MIN_POSITIVE),
        same_key_128_notes_per_key: same_key_notes,
        wasm_bytes: raw,
        wasm_gzip_bytes: gzip,
        wasm_brotli_bytes: brotli,
        server_peak_rss_kib: peak,
        cells: cells.clone(),
        page: page.clone(),
        one_commit_each,
        group_commit_gain,
        healthz_p99_ms_idle: healthz_idle,
        healthz_p99_ms_loaded: healthz_loaded,
        replay_p99_ms_idle: replay_idle,
        replay_p99_ms_loaded: replay_loaded,
        postgres: postgres.clone(),
    };

    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    println!("\n── against the targets ─────────────────────────────────");
    for (clients, ratio) in &report.create_vs_plain {
        let target = if *clients == 1 { 0.9 } else { 1.0 };
        println!(
            "idempotent create / plain insert at {clients:>2} clients: {ratio:.2}× (target ≥ {target:.1}×: {})",
            verdict(*ratio >= target)
        );
    }
    for (clients, gain) in &report.group_commit_gain {
        println!(
            "group commit / one commit each at {clients:>2} clients: {gain:.2}× (idempotent creates per second)"
        );
    }
    let lone_before = report
        .one_commit_each
        .iter()
        .find(|c| c.clients == 1)
        .map(|c| c.p99_ms)
        .unwrap_or(0.0);
    println!(
        "a lone create's p99: {:.2} ms with group commit, {lone_before:.2} ms with one commit each (target: no worse — within 10%: {})",
        report.lone_p99_ms,
        verdict(report.lone_p99_ms <= lone_before * 1.1)
    );
    println!(
        "/healthz p99 under 64 writers / alone: {:.2}× (target ≤ 2×: {}); replay: {:.2}× (target ≤ 2×: {})",
        report.healthz_p99_ms_loaded / report.healthz_p99_ms_idle.max(f64::MIN_POSITIVE),
        verdict(report.healthz_p99_ms_loaded <= 2.0 * report.healthz_p99_ms_idle),
        report.replay_p99_ms_loaded / report.replay_p99_ms_idle.max(f64::MIN_POSITIVE),
        verdict(report.replay_p99_ms_loaded <= 2.0 * report.replay_p99_ms_idle)
    );
    println!(
        "replay / create at 16 clients: {:.2}× (target ≥ 3×: {})",
        report.replay_vs_create_16,
        verdict(report.replay_vs_create_16 >= 3.0)
    );
    println!(
        "128 requests with one new key: p99 {:.2} ms vs 128 replays of a stored key released together: p99 {:.2} ms = {:.2}× (target ≤ 2×: {}); most notes stored for one key: {} (must be 1: {})",
        report.same_key_128_p99_ms,
        report.replay_128_p99_ms,
        report.same_key_128_vs_replay_128_p99,
        verdict(report.same_key_128_vs_replay_128_p99 <= 2.0),
        report.same_key_128_notes_per_key,
        verdict(report.same_key_128_notes_per_key == 1)
    );
    println!(
        "edit / create at 16 clients: {:.2}× ({:.0} edits/s)",
        report.edit_vs_create_16, report.edit_per_second_16
    );
    for figures in &report.search {
        println!(
            "search p99 at {} notes: {:.2} ms (target ≤ 50 ms: {})",
            figures.notes,
            figures.p99_ms,
            verdict(figures.p99_ms <= 50.0)
        );
    }
    if let Some(page) = &report.page {
        let p95 = |name: &str| page[name]["p95_ms"].as_f64().unwrap_or(f64::NAN);
        println!(
            "click → Saved in Chromium, p95: {:.1} ms (target ≤ 100 ms: {})",
            p95("click_to_saved"),
            verdict(p95("click_to_saved") <= 100.0)
        );
        println!(
            "search page at 100,000 notes in Chromium, p95: {:.1} ms (target ≤ 50 ms: {}); the home page loaded the same way: p95 {:.1} ms",
            p95("search_page"),
            verdict(p95("search_page") <= 50.0),
            p95("home_page")
        );
        for run in page["lighthouse"].as_array().into_iter().flatten() {
            let score = |name: &str| run[name].as_i64().unwrap_or(0);
            println!(
                "Lighthouse {}: performance {} (≥ 95: {}), accessibility {} (100: {}), best practices {} (100: {})",
                run["preset"].as_str().unwrap_or("?"),
                score("performance"),
                verdict(score("performance") >= 95),
                score("accessibility"),
                verdict(score("accessibility") == 100),
                score("best_practices"),
                verdict(score("best_practices") == 100)
            );
        }
    }
    println!(
        "wasm: {} B raw, {} B gzip, {} B brotli (target ≤ 250 KB brotli: {})",
        report.wasm_bytes,
        report.wasm_gzip_bytes,
        report.wasm_brotli_bytes,
        verdict(report.wasm_brotli_bytes <= 250_000)
    );
    println!(
        "durable commit ceiling {:.0}/s; idempotent create at 64 clients {:.0}/s = {:.0}% of it (target > 100%: {})",
        report.disk_commits_per_second,
        rate("idempotent", 64),
        100.0 * rate("idempotent", 64) / report.disk_commits_per_second.max(f64::MIN_POSITIVE),
        verdict(rate("idempotent", 64) > report.disk_commits_per_second)
    );
    println!(
        "server peak memory: {} KiB",
        report
            .server_peak_rss_kib
            .map(|k| k.to_string())
            .unwrap_or_else(|| "unknown".into())
    );

    if let Some(pg) = &report.postgres {
        let pg_rate = |mode: &str, clients: usize| {
            pg.cells
                .iter()
                .find(|c| c.mode == mode && c.clients == clients)
                .map(|c| c.per_second)
                .unwrap_or(0.0)
        };
        println!("\n── SQLite and PostgreSQL side by side (one server process each) ──");
        println!(
            "{:<40} {:>12} {:>12} {:>8}",
            "figure", "SQLite", "PostgreSQL", "PG/SQLite"
        );
        let row = |name: String, sqlite: f64, pg: f64, unit: &str| {
            println!(
                "{name:<40} {:>12} {:>12} {:>7.2}×",
                format!("{sqlite:.1}{unit}"),
                format!("{pg:.1}{unit}"),
                pg / sqlite.max(f64::MIN_POSITIVE)
            );
        };
        for clients in [1, 16, 64] {
            row(
                format!("idempotent create, {clients} clients"),
                rate("idempotent", clients),
                pg_rate("idempotent", clients),
                "/s",
            );
        }
        for (clients, ratio) in &pg.create_vs_plain {
            println!(
                "{:<40} {:>12} {:>12}",
                format!("create / plain insert, {clients} clients"),
                format!(
                    "{:.2}×",
                    rate("idempotent", *clients) / rate("plain", *clients).max(f64::MIN_POSITIVE)
                ),
                format!("{ratio:.2}×")
            );
        }
        row(
            "replay, 16 clients".into(),
            report.replay_per_second,
            pg.replay_per_second,
            "/s",
        );
        row(
            "edit, 16 clients".into(),
            report.edit_per_second_16,
            pg.edit_per_second_16,
            "/s",
        );
        row(
            "edit p99, 16 clients".into(),
            report.edit_p99_ms_16,
            pg.edit_p99_ms_16,
            " ms",
        );
        for (sqlite, pg) in report.search.iter().zip(&pg.search) {
            row(
                format!("search p99 at {} notes", sqlite.notes),
                sqlite.p99_ms,
                pg.p99_ms,
                " ms",
            );
        }
    }

    std::fs::create_dir_all(&args.out)?;
    let file = args
        .out
        .join(format!("bench-{}.json", report.at.replace(':', "-")));
    std::fs::File::create(&file)?.write_all(serde_json::to_string_pretty(&report)?.as_bytes())?;
    println!("\nfigures written to {}", file.display());
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Sequential single-row insert transactions with the server's durability settings.
async fn disk_commit_rate(path: &Path, for_at_most: Duration) -> anyhow::Result<f64> {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full);
    let mut conn = SqliteConnection::connect_with(&options).await?;
    sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        .execute(&mut conn)
        .await?;
    let started = Instant::now();
    let mut commits = 0u64;
    while started.elapsed() < for_at_most && commits < 20_000 {
        sqlx::query("INSERT INTO t (v) VALUES (?)")
            .bind("a row of about the size of a note")
            .execute(&mut conn)
            .await?;
        commits += 1;
    }
    Ok(commits as f64 / started.elapsed().as_secs_f64())
}

/// `n` people signed up on the server: a client each, carrying its session.
/// Signs one person up; their client and session token.
async fn person(
    client: &reqwest::Client,
    base: &str,
    name: &str,
) -> anyhow::Result<(reqwest::Client, String)> {
    let token = proof::load::sign_up(client, base, name).await?;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::COOKIE,
        format!("oncenote_session={token}").parse()?,
    );
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(30))
        .default_headers(headers)
        .build()?;
    Ok((client, token))
}

/// Runs the browser measurements (`node end2end/bench/page.mjs`) and reads their JSON.
async fn page_figures(args: &Args, base: &str, token: &str) -> anyhow::Result<serde_json::Value> {
    let mut command = std::process::Command::new("node");
    command
        .arg("bench/page.mjs")
        .arg(base)
        .arg(token)
        .arg(args.saves.to_string())
        .args([word(1), word(2), word(3), word(2037)])
        .current_dir("end2end");
    let output = tokio::task::spawn_blocking(move || command.output()).await??;
    anyhow::ensure!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(serde_json::from_slice(&output.stdout)?)
}

async fn people(
    client: &reqwest::Client,
    base: &str,
    n: usize,
) -> anyhow::Result<Vec<reqwest::Client>> {
    let mut clients = Vec::with_capacity(n);
    for n in 0..n {
        let name = format!("bench-{}-{n}", std::process::id());
        clients.push(person(client, base, &name).await?.0);
    }
    Ok(clients)
}

/// `clients` loops posting for `duration`: plain inserts, idempotent creates (a new key
/// each), or replays (one key, already stored) — each loop as one of `users`.
async fn throughput(
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
    let elapsed = started.elapsed();
    Ok(Cell {
        mode,
        clients,
        requests: all.len(),
        per_second: all.len() as f64 / elapsed.as_secs_f64(),
        p50_ms: ms(percentile(&mut all, 50.0)),
        p99_ms: ms(percentile(&mut all, 99.0)),
    })
}

/// A key whose create is stored (for replays).
async fn stored_key(client: &reqwest::Client, base: &str) -> anyhow::Result<String> {
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

#[derive(Clone, Copy)]
enum Probe {
    Health,
    Replay,
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
    let mut conn = proof::invariants::open(&proof::invariants::sqlite_url(database)).await?;
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

/// `clients` loops each editing a note of its own, always from the version it knows
/// (applied edits: the common case), for `duration`.
async fn edit_throughput(
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
    let elapsed = started.elapsed();
    Ok(Cell {
        mode: "edit",
        clients,
        requests: all.len(),
        per_second: all.len() as f64 / elapsed.as_secs_f64(),
        p50_ms: ms(percentile(&mut all, 50.0)),
        p99_ms: ms(percentile(&mut all, 99.0)),
    })
}

/// Pseudo-words of a made-up language, so a query matches a realistic share of notes.
fn word(n: usize) -> String {
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

/// Notes in the benchmark's database.
async fn count_notes(database: &Path) -> anyhow::Result<usize> {
    let mut conn = proof::invariants::open(&proof::invariants::sqlite_url(database)).await?;
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notes")
        .fetch_one(&mut conn)
        .await?;
    Ok(n as usize)
}

/// Adds `n` notes of 40–120 words straight through SQL (the search index's triggers keep
/// it in step), in transactions of 5,000.
async fn fill(database: &Path, n: usize, scope: &str) -> anyhow::Result<()> {
    use rand::{Rng, SeedableRng};
    let started = Instant::now();
    let options = SqliteConnectOptions::new()
        .filename(database)
        .busy_timeout(Duration::from_secs(30));
    let mut conn = SqliteConnection::connect_with(&options).await?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
    let mut left = n;
    while left > 0 {
        let batch = left.min(5_000);
        let mut tx = conn.begin().await?;
        for _ in 0..batch {
            let id = uuid::Uuid::new_v4().to_string();
            let words: Vec<String> = (0..rng.random_range(40..120))
                // Zipf-like: low numbers are common words, high numbers rare.
                .map(|_| word((rng.random::<f64>().powi(3) * 4096.0) as usize))
                .collect();
            let title = words[..4].join(" ");
            let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
            sqlx::query(
                "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
                 written_at, created_at, updated_at, version, cjk) VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, 1, '')",
            )
            .bind(&id)
            .bind(scope)
            .bind(&id)
            .bind(&title)
            .bind(words.join(" "))
            .bind(&at)
            .bind(&at)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        left -= batch;
    }
    println!(
        "(filled {n} notes in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Latency of searches over a fixed set of queries: common, rare and two-word, a phrase,
/// an exclusion, an alternative.
async fn search_latency(
    client: &reqwest::Client,
    base: &str,
    notes: usize,
) -> anyhow::Result<SearchFigures> {
    let mut queries = Vec::new();
    for i in 0..40 {
        queries.push(word(i));
        queries.push(word(2000 + i * 37));
        queries.push(format!("{} {}", word(i), word(i + 1)));
        queries.push(format!("\"{} {}\"", word(i), word(i + 3)));
        queries.push(format!("{} -{}", word(i), word(i + 2)));
        queries.push(format!("{} or {}", word(300 + i), word(900 + i)));
    }
    let mut latencies = Vec::new();
    for q in &queries {
        let sent = Instant::now();
        let response = client
            .get(format!("{base}/api/search"))
            .query(&[("q", q.as_str()), ("limit", "20")])
            .send()
            .await?;
        anyhow::ensure!(
            response.status() == 200,
            "a search answered {}",
            response.status()
        );
        response.bytes().await?;
        latencies.push(sent.elapsed());
    }
    Ok(SearchFigures {
        notes,
        queries: queries.len(),
        p50_ms: ms(percentile(&mut latencies, 50.0)),
        p99_ms: ms(percentile(&mut latencies, 99.0)),
    })
}

/// The list's first page, a page deep in it, and the server-rendered home page.
async fn list_latency(
    client: &reqwest::Client,
    base: &str,
) -> anyhow::Result<(f64, f64, f64, f64)> {
    let timed = |url: String| {
        let client = client.clone();
        async move {
            let mut latencies = Vec::new();
            for _ in 0..100 {
                let sent = Instant::now();
                let response = client.get(&url).send().await?;
                anyhow::ensure!(
                    response.status() == 200,
                    "{url} answered {}",
                    response.status()
                );
                response.bytes().await?;
                latencies.push(sent.elapsed());
            }
            Ok::<_, anyhow::Error>(latencies)
        }
    };
    let mut first = timed(format!("{base}/api/notes?limit=50")).await?;
    // Walk 40,000 notes deep, then time that page.
    let mut cursor = None::<String>;
    for _ in 0..200 {
        let url = match &cursor {
            Some(c) => format!("{base}/api/notes?limit=200&cursor={c}"),
            None => format!("{base}/api/notes?limit=200"),
        };
        let page: serde_json::Value = client.get(url).send().await?.json().await?;
        cursor = page["next"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    let mut deep = match cursor {
        Some(c) => timed(format!("{base}/api/notes?limit=50&cursor={c}")).await?,
        None => Vec::new(),
    };
    let mut home = timed(format!("{base}/")).await?;
    Ok((
        ms(percentile(&mut first, 50.0)),
        ms(percentile(&mut first, 99.0)),
        ms(percentile(&mut deep, 99.0)),
        ms(percentile(&mut home, 99.0)),
    ))
}

/// The release wasm: raw, gzip -9 and brotli -11 sizes.
fn wasm_sizes(pkg: &Path) -> anyhow::Result<(u64, u64, u64)> {
    let wasm = std::fs::read_dir(pkg)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm"))
        .ok_or_else(|| anyhow::anyhow!("no .wasm in {} (run scripts/build.sh)", pkg.display()))?;
    let bytes = std::fs::read(&wasm)?;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&bytes)?;
    let gzip = gzip.finish()?;
    let mut brotli = Vec::new();
    brotli::BrotliCompress(
        &mut bytes.as_slice(),
        &mut brotli,
        &brotli::enc::BrotliEncoderParams {
            quality: 11,
            ..Default::default()
        },
    )?;
    Ok((bytes.len() as u64, gzip.len() as u64, brotli.len() as u64))
}

/// The write and search figures on a PostgreSQL database of the run's own at `server`.
async fn postgres_figures(
    args: &Args,
    server: &str,
    seconds: Duration,
) -> anyhow::Result<PostgresFigures> {
    let name = format!("oncenote_bench_{}", std::process::id());
    let mut admin = proof::invariants::open(server).await?;
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
    let figures = async {
        let mut process = ServerProcess::with_url(&args.server, url.clone())?;
        process.env = vec![
            ("ONCENOTE_SIGNUP".into(), "open".into()),
            // Every simulated person signs up from 127.0.0.1: lift the per-address limit
            // on new accounts (five times this) for them.
            ("ONCENOTE_SIGN_IN_MAX_FAILURES".into(), "1000".into()),
        ];
        process.start().await?;
        let base = process.base_url();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()?;
        let users = people(&client, &base, 16).await?;
        let mut cells = Vec::new();
        for clients in [1, 16, 64] {
            for mode in ["plain", "idempotent"] {
                let cell = throughput(&users, &base, mode, clients, seconds).await?;
                println!(
                    "{:<12} {:>7} {:>9} {:>10.0} {:>9.2} {:>9.2}",
                    cell.mode,
                    cell.clients,
                    cell.requests,
                    cell.per_second,
                    cell.p50_ms,
                    cell.p99_ms
                );
                cells.push(cell);
            }
        }
        let rate = |mode: &str, clients: usize| {
            cells
                .iter()
                .find(|c| c.mode == mode && c.clients == clients)
                .map(|c| c.per_second)
                .unwrap_or(0.0)
        };
        let create_vs_plain = [1, 16, 64]
            .iter()
            .map(|&c| {
                (
                    c,
                    rate("idempotent", c) / rate("plain", c).max(f64::MIN_POSITIVE),
                )
            })
            .collect();
        let replay = throughput(&users[..1], &base, "replay", 16, seconds).await?;
        let edits = edit_throughput(&users, &base, 16, seconds).await?;
        println!(
            "replay 16 clients {:.0}/s · edit 16 clients {:.0}/s (p99 {:.2} ms)",
            replay.per_second, edits.per_second, edits.p99_ms
        );
        // Search on a person of its own, filled straight through SQL.
        let searcher = people(&client, &base, 1).await?.remove(0);
        let me: serde_json::Value = searcher
            .get(format!("{base}/api/me"))
            .send()
            .await?
            .json()
            .await?;
        let scope = me["user_id"].as_str().unwrap_or_default().to_owned();
        let mut search = Vec::new();
        let mut have = 0;
        for target in [10_000usize, 100_000] {
            fill_postgres(&url, target - have, &scope).await?;
            have = target;
            let figures = search_latency(&searcher, &base, target).await?;
            println!(
                "search at {:>7} notes: {} queries, p50 {:.2} ms, p99 {:.2} ms",
                figures.notes, figures.queries, figures.p50_ms, figures.p99_ms
            );
            search.push(figures);
        }
        process.kill()?;
        anyhow::Ok(PostgresFigures {
            cells: cells.clone(),
            create_vs_plain,
            replay_per_second: replay.per_second,
            edit_per_second_16: edits.per_second,
            edit_p99_ms_16: edits.p99_ms,
            search,
        })
    }
    .await;
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&mut admin)
        .await?;
    figures
}

/// Adds `n` notes for `scope` straight through SQL, with their search document (the
/// made-up words are lower-case ASCII, so cutting and folding leave them as they are).
async fn fill_postgres(url: &str, n: usize, scope: &str) -> anyhow::Result<()> {
    use rand::{Rng, SeedableRng};
    let started = Instant::now();
    let mut conn = proof::invariants::open(url).await?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
    let mut left = n;
    while left > 0 {
        let batch = left.min(5_000);
        let mut tx = conn.begin().await?;
        for _ in 0..batch {
            let id = uuid::Uuid::new_v4().to_string();
            let words: Vec<String> = (0..rng.random_range(40..120))
                .map(|_| word((rng.random::<f64>().powi(3) * 4096.0) as usize))
                .collect();
            let title = words[..4].join(" ");
            let body = words.join(" ");
            let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
            sqlx::query(
                "INSERT INTO notes (id, scope, idempotency_key, request_fingerprint, title, body, \
                 written_at, created_at, updated_at, version, search) VALUES ($1, $2, $1, '', $3, $4, $5, $5, $5, 1, \
                 setweight(to_tsvector('simple', $3), 'A') || setweight(to_tsvector('simple', $4), 'B'))",
            )
            .bind(&id)
            .bind(scope)
            .bind(&title)
            .bind(&body)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        left -= batch;
    }
    println!(
        "(filled {n} notes in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
