//! The run's figures together: checked against the targets, set beside PostgreSQL's, and
//! written as JSON (the keys are what earlier runs are compared by: keep them).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::burst::BurstFigures;
use super::files::FileFigures;
use super::latency::LatencyFigures;
use super::lists::ListFigures;
use super::live::LiveFigures;
use super::lone::LoneCreate;
use super::postgres::PostgresFigures;
use super::search::SearchFigures;
use super::wasm::WasmSizes;
use super::writes::{CLIENTS, Cell, cpu_per_request, create_vs_plain, rate};

/// What each figure measured, as the run took them.
pub struct Measured {
    pub disk_commits_per_second: f64,
    /// Plain inserts and idempotent creates at 1, 16 and 64 clients.
    pub cells: Vec<Cell>,
    pub replay: Cell,
    pub edits: Cell,
    pub bursts: BurstFigures,
    pub latency: LatencyFigures,
    pub one_commit_each: Vec<Cell>,
    pub lone: LoneCreate,
    pub search: Vec<SearchFigures>,
    pub lists: ListFigures,
    pub page: Option<serde_json::Value>,
    pub wasm: WasmSizes,
    pub server_peak_rss_kib: Option<u64>,
    pub postgres: Option<PostgresFigures>,
    pub live: LiveFigures,
    pub files: FileFigures,
}

/// The figures as the JSON has them.
#[derive(Serialize)]
pub struct Report {
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
    /// A lone create's p99 with group commit, and with one commit each: two new servers
    /// taking turns ([`super::lone`]).
    lone_p99_ms: f64,
    lone_p99_ms_one_commit_each: f64,
    same_key_128_p99_ms: f64,
    replay_128_p99_ms: f64,
    same_key_128_vs_replay_128_p99: f64,
    same_key_128_notes_per_key: i64,
    wasm_bytes: u64,
    wasm_gzip_bytes: u64,
    wasm_brotli_bytes: u64,
    /// A split build's chunks (the pages after the first): how many, all their brotli
    /// bytes, and the most one page adds to the main wasm.
    wasm_chunks: usize,
    wasm_chunks_brotli_bytes: u64,
    wasm_heaviest_page: Option<(String, u64)>,
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
    /// Change → event latency with 1,000 streams, and the memory of 10,000 idle ones.
    live: LiveFigures,
    /// A 10 MiB upload's throughput; memory idle and during 8 parallel 25 MiB uploads.
    files: FileFigures,
}

/// "met" or "NOT met".
fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

impl Report {
    /// The report of `measured`, with its ratios, stamped now.
    pub fn new(measured: Measured) -> Self {
        let Measured {
            disk_commits_per_second,
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
        } = measured;
        let idempotent_16 = rate(&cells, "idempotent", 16).max(f64::MIN_POSITIVE);
        let group_commit_gain = one_commit_each
            .iter()
            .map(|c| {
                (
                    c.clients,
                    rate(&cells, "idempotent", c.clients) / c.per_second.max(f64::MIN_POSITIVE),
                )
            })
            .collect();
        Self {
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            disk_commits_per_second,
            create_vs_plain: create_vs_plain(&cells),
            replay_per_second: replay.per_second,
            edit_per_second_16: edits.per_second,
            edit_vs_create_16: edits.per_second / idempotent_16,
            edit_p99_ms_16: edits.p99_ms,
            search,
            list_first_page_p50_ms_100k: lists.first_page_p50,
            list_first_page_p99_ms_100k: lists.first_page_p99,
            list_deep_page_p99_ms_100k: lists.deep_page_p99,
            home_page_p99_ms_100k: lists.home_page_p99,
            replay_vs_create_16: replay.per_second / idempotent_16,
            lone_p99_ms: lone.group_commit_p99_ms,
            lone_p99_ms_one_commit_each: lone.one_commit_each_p99_ms,
            same_key_128_p99_ms: bursts.same_key_p99,
            replay_128_p99_ms: bursts.replay_p99,
            same_key_128_vs_replay_128_p99: bursts.same_key_p99
                / bursts.replay_p99.max(f64::MIN_POSITIVE),
            same_key_128_notes_per_key: bursts.notes_per_key,
            wasm_bytes: wasm.raw,
            wasm_gzip_bytes: wasm.gzip,
            wasm_brotli_bytes: wasm.brotli,
            wasm_chunks: wasm.chunks,
            wasm_chunks_brotli_bytes: wasm.chunks_brotli,
            wasm_heaviest_page: wasm.heaviest_page,
            server_peak_rss_kib,
            cells,
            page,
            one_commit_each,
            group_commit_gain,
            healthz_p99_ms_idle: latency.healthz_idle,
            healthz_p99_ms_loaded: latency.healthz_loaded,
            replay_p99_ms_idle: latency.replay_idle,
            replay_p99_ms_loaded: latency.replay_loaded,
            postgres,
            live,
            files,
        }
    }

    /// Creates per second of the SQLite cell of `mode` at `clients`.
    fn rate(&self, mode: &str, clients: usize) -> f64 {
        rate(&self.cells, mode, clients)
    }

    /// Each figure against its target.
    pub fn print_targets(&self) {
        println!("\n── against the targets ─────────────────────────────────");
        print_create_targets("SQLite", &self.cells);
        if let Some(pg) = &self.postgres {
            print_postgres_targets(pg);
        }
        for (clients, gain) in &self.group_commit_gain {
            println!(
                "group commit / one commit each at {clients:>2} clients: {gain:.2}× (idempotent creates per second)"
            );
        }
        let lone_before = self.lone_p99_ms_one_commit_each;
        println!(
            "a lone create's p99 (two new servers taking turns): {:.2} ms with group commit, {lone_before:.2} ms with one commit each (target: no worse — within 10%: {})",
            self.lone_p99_ms,
            verdict(self.lone_p99_ms <= lone_before * 1.1)
        );
        println!(
            "/healthz p99 under 64 writers / alone: {:.2}× (target ≤ 2×: {}); replay: {:.2}× (target ≤ 2×: {})",
            self.healthz_p99_ms_loaded / self.healthz_p99_ms_idle.max(f64::MIN_POSITIVE),
            verdict(self.healthz_p99_ms_loaded <= 2.0 * self.healthz_p99_ms_idle),
            self.replay_p99_ms_loaded / self.replay_p99_ms_idle.max(f64::MIN_POSITIVE),
            verdict(self.replay_p99_ms_loaded <= 2.0 * self.replay_p99_ms_idle)
        );
        println!(
            "replay / create at 16 clients: {:.2}× (target ≥ 3×: {})",
            self.replay_vs_create_16,
            verdict(self.replay_vs_create_16 >= 3.0)
        );
        println!(
            "128 requests with one new key: p99 {:.2} ms vs 128 replays of a stored key released together: p99 {:.2} ms = {:.2}× (target ≤ 2×: {}); most notes stored for one key: {} (must be 1: {})",
            self.same_key_128_p99_ms,
            self.replay_128_p99_ms,
            self.same_key_128_vs_replay_128_p99,
            verdict(self.same_key_128_vs_replay_128_p99 <= 2.0),
            self.same_key_128_notes_per_key,
            verdict(self.same_key_128_notes_per_key == 1)
        );
        println!(
            "edit / create at 16 clients: {:.2}× ({:.0} edits/s)",
            self.edit_vs_create_16, self.edit_per_second_16
        );
        for figures in &self.search {
            println!(
                "search p99 at {} notes: {:.2} ms (target ≤ 50 ms: {})",
                figures.notes,
                figures.p99_ms,
                verdict(figures.p99_ms <= 50.0)
            );
        }
        if let Some(page) = &self.page {
            print_page_targets(page);
        }
        println!(
            "wasm for the first page: {} B raw, {} B gzip, {} B brotli (target ≤ 250 KB \
             brotli: {}){}",
            self.wasm_bytes,
            self.wasm_gzip_bytes,
            self.wasm_brotli_bytes,
            verdict(self.wasm_brotli_bytes <= 250_000),
            super::wasm::chunk_line(
                self.wasm_chunks,
                self.wasm_chunks_brotli_bytes,
                self.wasm_heaviest_page.as_ref()
            )
        );
        let live = &self.live;
        println!(
            "live: write → event p99 with {} streams open: {:.1} ms (target ≤ 250 ms: {})",
            live.streams,
            live.event_p99_ms,
            verdict(live.event_p99_ms <= 250.0)
        );
        let idle_mb = live.memory_kib_for_idle_streams() as f64 / 1024.0;
        let measured = if live.idle_streams >= super::live::IDLE_STREAMS {
            "measured".to_owned()
        } else {
            format!(
                "projected from {} streams, the most this machine's open-file limit allows",
                live.idle_streams
            )
        };
        println!(
            "live: server memory with {} idle streams open: {idle_mb:.0} MB, {:.1} KiB a stream ({measured}; target ≤ 150 MB: {})",
            super::live::IDLE_STREAMS,
            live.kib_per_idle_stream(),
            verdict(idle_mb <= 150.0)
        );
        let feed_tax = live.creates_with_streams_per_second
            / live
                .creates_without_streams_per_second
                .max(f64::MIN_POSITIVE);
        let server_cpu = match (
            live.server_cpu_us_per_create_without_streams,
            live.server_cpu_us_per_create_with_streams,
        ) {
            (Some(without), Some(with)) => format!(
                "; the server's CPU per create {without:.0} → {with:.0} µs = {:.2}×",
                with / without.max(f64::MIN_POSITIVE)
            ),
            _ => String::new(),
        };
        println!(
            "live: creates at 16 clients with 1,000 streams open / none: {feed_tax:.2}× (target ≥ 0.95×: {}){server_cpu}",
            verdict(feed_tax >= 0.95)
        );
        println!(
            "durable commit ceiling {:.0}/s; idempotent create at 64 clients {:.0}/s = {:.0}% of it (target > 100%: {})",
            self.disk_commits_per_second,
            self.rate("idempotent", 64),
            100.0 * self.rate("idempotent", 64)
                / self.disk_commits_per_second.max(f64::MIN_POSITIVE),
            verdict(self.rate("idempotent", 64) > self.disk_commits_per_second)
        );
        println!(
            "server peak memory: {} KiB",
            self.server_peak_rss_kib
                .map(|k| k.to_string())
                .unwrap_or_else(|| "unknown".into())
        );
    }

    /// SQLite's figures beside PostgreSQL's, when PostgreSQL was measured.
    pub fn print_side_by_side(&self) {
        let Some(pg) = &self.postgres else {
            return;
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
        for clients in CLIENTS {
            row(
                format!("idempotent create, {clients} clients"),
                self.rate("idempotent", clients),
                rate(&pg.cells, "idempotent", clients),
                "/s",
            );
        }
        for (clients, ratio) in &pg.create_vs_plain {
            println!(
                "{:<40} {:>12} {:>12}",
                format!("create / plain insert, {clients} clients"),
                format!(
                    "{:.2}×",
                    self.rate("idempotent", *clients)
                        / self.rate("plain", *clients).max(f64::MIN_POSITIVE)
                ),
                format!("{ratio:.2}×")
            );
        }
        row(
            "replay, 16 clients".into(),
            self.replay_per_second,
            pg.replay_per_second,
            "/s",
        );
        row(
            "edit, 16 clients".into(),
            self.edit_per_second_16,
            pg.edit_per_second_16,
            "/s",
        );
        row(
            "edit p99, 16 clients".into(),
            self.edit_p99_ms_16,
            pg.edit_p99_ms_16,
            " ms",
        );
        for (sqlite, pg) in self.search.iter().zip(&pg.search) {
            row(
                format!("search p99 at {} notes", sqlite.notes),
                sqlite.p99_ms,
                pg.p99_ms,
                " ms",
            );
        }
    }

    /// Writes the report to `out/bench-<time>.json`; the file's path.
    pub fn write_json(&self, out: &Path) -> anyhow::Result<PathBuf> {
        std::fs::create_dir_all(out)?;
        let file = out.join(format!("bench-{}.json", self.at.replace(':', "-")));
        std::fs::File::create(&file)?.write_all(serde_json::to_string_pretty(self)?.as_bytes())?;
        Ok(file)
    }
}

/// PostgreSQL's figures against their targets: creates against its own plain insert,
/// fan-out across replicas, search.
pub fn print_postgres_targets(pg: &PostgresFigures) {
    print_create_targets("PostgreSQL", &pg.cells);
    println!(
        "PostgreSQL: write on one replica → event on another, p99 {:.1} ms (target ≤ 500 ms: {})",
        pg.fan_out_event_p99_ms,
        verdict(pg.fan_out_event_p99_ms <= 500.0)
    );
    for search in &pg.search {
        println!(
            "PostgreSQL search p99 at {} notes: {:.2} ms (target ≤ 50 ms: {})",
            search.notes,
            search.p99_ms,
            verdict(search.p99_ms <= 50.0)
        );
    }
}

/// Idempotent creates against plain inserts on `database` (SQLite: ≥ 0.9× at one client,
/// ≥ 1.0× at 16 and 64; PostgreSQL: ≥ 0.8× its own plain insert), and the CPU each costs.
pub fn print_create_targets(database: &str, cells: &[Cell]) {
    for (clients, ratio) in create_vs_plain(cells) {
        let target = match (database, clients) {
            ("PostgreSQL", _) => 0.8,
            (_, 1) => 0.9,
            _ => 1.0,
        };
        println!(
            "{database} idempotent create / plain insert at {clients:>2} clients: {ratio:.2}× (target ≥ {target:.1}×: {})",
            verdict(ratio >= target)
        );
    }
    print_cpu_per_request(database, cells);
}

/// The server's CPU time per request at 16 clients: a create, a plain insert and a bare
/// request (`/healthz`), and what the create's own work costs beside the insert's (each
/// less the bare request): a figure the load of a shared machine moves little.
fn print_cpu_per_request(database: &str, cells: &[Cell]) {
    let (Some(create), Some(plain), Some(bare)) = (
        cpu_per_request(cells, "idempotent", 16),
        cpu_per_request(cells, "plain", 16),
        cpu_per_request(cells, "healthz", 16),
    ) else {
        return;
    };
    println!(
        "{database} server CPU per request at 16 clients: create {create:.0} µs, plain insert {plain:.0} µs, /healthz {bare:.0} µs; create / plain {:.2}×, beyond a bare request {:.2}×",
        create / plain.max(f64::MIN_POSITIVE),
        (create - bare) / (plain - bare).max(f64::MIN_POSITIVE)
    );
}

/// The browser's figures against their targets.
pub fn print_page_targets(page: &serde_json::Value) {
    let p95 = |name: &str| page[name]["p95_ms"].as_f64().unwrap_or(f64::NAN);
    println!(
        "click → Saved in Chromium, p95: {:.1} ms (target ≤ 100 ms: {})",
        p95("click_to_saved"),
        verdict(p95("click_to_saved") <= 100.0)
    );
    println!(
        "a search from the box of an open page at 100,000 notes in Chromium (typed, Enter 0.6-0.9 s after hydration → the first result painted, timed in the page), p95: {:.1} ms (target ≤ 50 ms: {}); filled in at once right after hydration and timed through Playwright, as before: p95 {:.1} ms; the search page loaded by its address: p95 {:.1} ms, the home page loaded the same way: p95 {:.1} ms",
        p95("search_box"),
        verdict(p95("search_box") <= 50.0),
        p95("search_box_at_once"),
        p95("search_page"),
        p95("home_page")
    );
    let p50 = |name: &str| page[name]["p50_ms"].as_f64().unwrap_or(f64::NAN);
    println!(
        "  the search from the box ({} searches), p50 / p95: {:.1} / {:.1} ms; of which its /api/search request {:.1} / {:.1} ms (to the answer's first byte {:.1} / {:.1} ms; of that, the server's own time by its Server-Timing, to the answer's head: the whole request {:.1} / {:.1} ms, the search route's part {:.1} / {:.1} ms)",
        page["search_box"]["n"],
        p50("search_box"),
        p95("search_box"),
        p50("search_box_request"),
        p95("search_box_request"),
        p50("search_box_request_to_first_byte"),
        p95("search_box_request_to_first_byte"),
        p50("search_box_server_total"),
        p95("search_box_server_total"),
        p50("search_box_server_search"),
        p95("search_box_server_search")
    );
    let alone = super::page::box_words_alone_line(&page["search_box_words_alone"]);
    if !alone.is_empty() {
        println!("{alone}");
    }
    let alongside = &page["search_box_feed_reads_alongside"];
    println!(
        "  the page's own work, p50 / p95: Enter → the request started {:.1} / {:.1} ms, the answer's last byte → the results painted {:.1} / {:.1} ms (→ in the document {:.1} / {:.1} ms); reads of the change feed (the offline copy's and the live page's) in flight beside the search's request: in {} of {} searches (at most {} at once)",
        p50("search_box_before_request"),
        p95("search_box_before_request"),
        p50("search_box_after_answer"),
        p95("search_box_after_answer"),
        p50("search_box_answer_to_document"),
        p95("search_box_answer_to_document"),
        alongside["with_one_or_more"],
        alongside["searches"],
        alongside["most"]
    );
    for run in page["lighthouse"].as_array().into_iter().flatten() {
        print_lighthouse_run(run);
    }
}

/// Prints a Lighthouse run against its targets, and where its long tasks fell.
pub fn print_lighthouse_run(run: &serde_json::Value) {
    println!("{}", lighthouse_line(run));
    let long_tasks = super::page::long_tasks_line(run);
    if !long_tasks.is_empty() {
        println!("{long_tasks}");
    }
}

/// One Lighthouse run against its targets (performance ≥ 95, accessibility and best
/// practices 100); a run slowed for real is a diagnostic beside them, without a verdict.
fn lighthouse_line(run: &serde_json::Value) -> String {
    let page = run["page"].as_str().unwrap_or("/");
    let preset = run["preset"].as_str().unwrap_or("?");
    if let Some(failure) = super::page::lighthouse_failure(run) {
        return format!(
            "Lighthouse {page} {preset}: not measured ({failure}); performance ≥ 95, accessibility and best practices 100: NOT met"
        );
    }
    let score = |name: &str| run[name].as_i64().unwrap_or(0);
    if super::page::slowed_for_real(run) {
        return format!(
            "Lighthouse {page} {preset} (slowed for real; not the target's run): performance {}, TBT {:.0} ms",
            score("performance"),
            run["tbt_ms"].as_f64().unwrap_or(f64::NAN),
        );
    }
    format!(
        "Lighthouse {page} {preset}: performance {} (≥ 95: {}), accessibility {} (100: {}), best practices {} (100: {}){}",
        score("performance"),
        verdict(score("performance") >= 95),
        score("accessibility"),
        verdict(score("accessibility") == 100),
        score("best_practices"),
        verdict(score("best_practices") == 100),
        super::page::lighthouse_warnings(run)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simulated_lighthouse_run_is_judged_against_the_targets() {
        let run = serde_json::json!({
            "page": "/", "preset": "mobile", "runtime_error": null, "slowed_for_real": false,
            "performance": 71, "accessibility": 100, "best_practices": 100, "tbt_ms": 2728.0
        });
        assert_eq!(
            lighthouse_line(&run),
            format!(
                "Lighthouse / mobile: performance 71 (≥ 95: {}), accessibility 100 (100: {}), best practices 100 (100: {})",
                verdict(false),
                verdict(true),
                verdict(true)
            )
        );
    }

    #[test]
    fn a_lighthouse_run_slowed_for_real_is_a_diagnostic_without_a_verdict() {
        let run = serde_json::json!({
            "page": "/", "preset": "mobile-as-run", "runtime_error": null, "slowed_for_real": true,
            "performance": 89, "accessibility": 100, "best_practices": 100, "tbt_ms": 421.4
        });
        let line = lighthouse_line(&run);
        assert_eq!(
            line,
            "Lighthouse / mobile-as-run (slowed for real; not the target's run): performance 89, TBT 421 ms"
        );
        assert!(!line.contains(verdict(false)) && !line.contains(verdict(true)));
    }
}
