//! The page in a browser (`node end2end/bench/page.mjs`): click → Saved, a search from the
//! search box of an open page at 100,000 notes, and Lighthouse (mobile, desktop) on the
//! home page and on a note page with a long Markdown note, in Chromium; and the offline
//! copy's first fill (`fill`).

use std::time::Instant;

use super::seed::word;
use crate::stats::{ms, percentile};

/// Runs the browser measurements against `base` as the person of `token` (timing `saves`
/// saves) and prints their line; `None` (with the reason printed) if they could not run.
pub async fn in_the_browser(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    saves: usize,
) -> Option<serde_json::Value> {
    let alone = match box_words_alone(client, base).await {
        Ok(alone) => {
            println!("{}", box_words_alone_line(&alone));
            Some(alone)
        }
        Err(error) => {
            println!("the box's words searched alone: not measured ({error:#})");
            None
        }
    };
    let page = match long_note(client, base).await {
        Ok(note_path) => page_figures(base, token, saves, &note_path).await,
        Err(error) => Err(error),
    };
    let fill = super::fill::first_fill(base, token).await;
    let page = page.map(|mut figures| {
        if let Some(alone) = alone {
            figures["search_box_words_alone"] = alone;
        }
        if let Some(fill) = fill {
            figures["first_fill"] = fill;
        }
        figures
    });
    match &page {
        Ok(figures) => println!(
            "in the browser: click → Saved p95 {:.1} ms, search from the box p95 {:.1} ms at 100,000 notes (filled in at once right after hydration: p95 {:.1} ms; the search page loaded: p95 {:.1} ms); Lighthouse {}",
            figures["click_to_saved"]["p95_ms"]
                .as_f64()
                .unwrap_or(f64::NAN),
            figures["search_box"]["p95_ms"].as_f64().unwrap_or(f64::NAN),
            figures["search_box_at_once"]["p95_ms"]
                .as_f64()
                .unwrap_or(f64::NAN),
            figures["search_page"]["p95_ms"]
                .as_f64()
                .unwrap_or(f64::NAN),
            lighthouse_summary(&figures["lighthouse"])
                + &stray_rejections(&figures["stray_rejections"])
        ),
        Err(error) => println!("in the browser: not measured ({error:#})"),
    }
    page.ok()
}

/// One line for the Lighthouse runs: scores and the page's vitals, run by run.
fn lighthouse_summary(runs: &serde_json::Value) -> String {
    runs.as_array()
        .map(|runs| {
            runs.iter()
                .map(|r| {
                    if let Some(failure) = lighthouse_failure(r) {
                        return format!(
                            "{} {}: not measured ({failure})",
                            r["page"].as_str().unwrap_or("/"),
                            r["preset"].as_str().unwrap_or("?"),
                        );
                    }
                    format!(
                        "{} {}: performance {} accessibility {} best practices {} (LCP {:.0} ms, TBT {:.0} ms, CLS {:.3}, {:.0} KB; host CPU index {})",
                        r["page"].as_str().unwrap_or("/"),
                        r["preset"].as_str().unwrap_or("?"),
                        r["performance"],
                        r["accessibility"],
                        r["best_practices"],
                        r["lcp_ms"].as_f64().unwrap_or(f64::NAN),
                        r["tbt_ms"].as_f64().unwrap_or(f64::NAN),
                        r["cls"].as_f64().unwrap_or(f64::NAN),
                        r["total_bytes"].as_f64().unwrap_or(f64::NAN) / 1000.0,
                        r["benchmark_index"].as_f64().map_or("?".to_owned(), |i| format!("{i:.0}"))
                    ) + &lighthouse_warnings(r)
                })
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

/// Lighthouse's stray rejections that `page.mjs` counted instead of ending (its check for a
/// quiet page, left running after a load that timed out), as a clause; empty if none.
fn stray_rejections(said: &serde_json::Value) -> String {
    match said.as_array().map_or(0, Vec::len) {
        0 => String::new(),
        n => format!(
            "; {n} stray Lighthouse rejections counted (its check for a quiet page, left running: \"Inspected target navigated or closed\" or \"Session closed\")"
        ),
    }
}

/// What Lighthouse warned of in a run (a load that did not finish within its time limit,
/// say), as a clause to append; empty without warnings.
pub fn lighthouse_warnings(run: &serde_json::Value) -> String {
    let said: Vec<&str> = run["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str())
        .collect();
    if said.is_empty() {
        String::new()
    } else {
        format!(" (Lighthouse warned: {})", said.join(" "))
    }
}

/// Whether the run's slowdowns were applied for real (Chromium's CPU throttling and network
/// emulation, `mobile-as-run`), not simulated: a diagnostic, not the target's run.
pub fn slowed_for_real(run: &serde_json::Value) -> bool {
    run["slowed_for_real"].as_bool().unwrap_or(false)
}

/// Where a Lighthouse run's long tasks fell, as a line. Its tasks as the trace observed
/// them (not simulated), each multiplied by the preset's CPU slowdown (`cpu_slowdown`: ×4
/// on mobile), roughly as its simulation slows them for TBT (a task that only did layout
/// ×2): how many are long (50 ms or more), the longest, and their blocking time (each
/// one's time over 50 ms) before and after `EARLY_MS` after the navigation started
/// (Lighthouse's time origin): the load and hydration, then the background work after it. TBT itself
/// is simulated and counts only up to the page's quiet; this says where the work was. A
/// run slowed for real (`slowed_for_real`, `mobile-as-run`) has its tasks counted as
/// observed (`cpu_slowdown` 1: they ran slowed).
/// Empty for a run without them (a JSON from before they were kept).
pub fn long_tasks_line(run: &serde_json::Value) -> String {
    /// Where the page's load and hydration end and its background work (the offline
    /// copy's first fill) goes on alone, roughly.
    const EARLY_MS: f64 = 5_000.0;
    let Some(tasks) = run["long_tasks"].as_array() else {
        return String::new();
    };
    let slowdown = run["cpu_slowdown"].as_f64().unwrap_or(1.0);
    let tasks: Vec<(f64, f64)> = tasks
        .iter()
        .filter_map(|t| {
            Some((
                t["start_ms"].as_f64()?,
                t["duration_ms"].as_f64()? * slowdown,
            ))
        })
        .filter(|(_, slowed)| *slowed >= 50.0)
        .collect();
    let blocking = |early: bool| -> (usize, f64) {
        tasks
            .iter()
            .filter(|(start, _)| (*start < EARLY_MS) == early)
            .fold((0, 0.0), |(n, ms), (_, slowed)| {
                (n + 1, ms + (slowed - 50.0))
            })
    };
    let counted = if slowed_for_real(run) {
        "as they ran on the CPU slowed for real (×4 on mobile), counted as observed".to_owned()
    } else {
        format!("×{slowdown} as its CPU slowdown roughly counts them for TBT")
    };
    let (early, early_blocking) = blocking(true);
    let (late, late_blocking) = blocking(false);
    let longest = tasks.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
    format!(
        "  its main thread's tasks as the trace observed them, {counted}: {} long{}; in the first 5 s after the navigation started {early} (blocking {early_blocking:.0} ms), after them {late} (blocking {late_blocking:.0} ms)",
        tasks.len(),
        longest.map_or(String::new(), |(start, slowed)| format!(
            ", the longest {slowed:.0} ms at {start:.0} ms"
        )),
    )
}

/// Why a Lighthouse run has no scores, if it has none: Lighthouse's runtime error (such
/// as `NO_NAVSTART`, a run without a trace), or `THROWN` with what was thrown, or a
/// category it left unscored.
pub fn lighthouse_failure(run: &serde_json::Value) -> Option<String> {
    if let Some(code) = run["runtime_error"].as_str() {
        return Some(match run["error"].as_str() {
            Some(error) => format!("{code}: {error}"),
            None => code.to_owned(),
        });
    }
    ["performance", "accessibility", "best_practices"]
        .into_iter()
        .find(|category| !run[*category].is_i64())
        .map(|category| format!("no {} score", category.replace('_', " ")))
}

/// Creates the long Markdown note Lighthouse opens; its page's path.
async fn long_note(client: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let answer = client
        .post(format!("{base}/api/notes"))
        .header("content-type", "application/json")
        .header("idempotency-key", uuid::Uuid::new_v4().to_string())
        .body(
            serde_json::json!({
                "title": "Field guide (a long Markdown note)",
                "body": long_markdown(),
                "written_at": "2026-11-30T05:00:00.000Z"
            })
            .to_string(),
        )
        .send()
        .await?;
    anyhow::ensure!(answer.status() == 201, "the long note was not made");
    let note: serde_json::Value = answer.json().await?;
    Ok(format!(
        "/notes/{}",
        note["id"].as_str().unwrap_or_default()
    ))
}

/// About 24 KB of Markdown as people write it: 40 sections, each with a heading, a
/// paragraph with emphasis, a link and code, a list, tasks, a quote, a table, a code
/// block.
pub fn long_markdown() -> String {
    let mut text = String::from("Notes from the field, kept as they came.\n\n");
    for n in 1..=40 {
        text.push_str(&format!(
            "## Day {n}: {} to {}\n\n\
             We left at *{n}:30* and walked along the **{}** ridge; the map \
             ([trail {n}](https://example.org/trails/{n})) says `{n}.{n} km`, it felt longer.\n\n\
             - water: {n} litres\n- snacks: {}\n  - kept for the top\n- weather: fair\n\n\
             - [x] check the bus times\n- [ ] send photos to {}\n\n\
             > The {} was quiet; only the wind and a {} far off.\n\n\
             | leg | km | hours |\n|---|---:|---:|\n| out | {n} | {} |\n| back | {n} | {} |\n\n\
             ```\nsummit {n}: {} m\n```\n\n",
            word(n),
            word(n + 1),
            word(n + 2),
            word(n + 3),
            word(n + 4),
            word(n + 5),
            word(n + 6),
            n % 5 + 1,
            n % 4 + 1,
            1000 + n * 37
        ));
    }
    text
}

/// The words the page searches for from the box, each searched as often as the page does.
fn box_words() -> [String; 4] {
    [word(1), word(2), word(3), word(2037)]
}

/// The same searches the box makes, asked by the load driver over HTTP (no browser) just
/// before the browser runs, the same person, words and limit: each timed from sent to its
/// answer's last byte read (uncompressed: the driver asks for no compression), on a
/// server nothing else is using; and the server's own time on each (its `Server-Timing`
/// `total`). `{n, p50_ms, p95_ms, answer_bytes_p50, server_total: {p50_ms, p95_ms}}`.
async fn box_words_alone(
    client: &reqwest::Client,
    base: &str,
) -> anyhow::Result<serde_json::Value> {
    let mut took = Vec::new();
    let mut sizes = Vec::new();
    let mut server = Vec::new();
    for _ in 0..5 {
        for q in box_words() {
            let sent = Instant::now();
            let response = super::search::searched(client, base, &q).await?;
            server.push(server_total(&response)?);
            let answer = response.bytes().await?;
            took.push(sent.elapsed());
            sizes.push(answer.len());
        }
    }
    Ok(serde_json::json!({
        "n": took.len(),
        "p50_ms": ms(percentile(&mut took, 50.0)),
        "p95_ms": ms(percentile(&mut took, 95.0)),
        "answer_bytes_p50": percentile(&mut sizes, 50.0),
        "server_total": {
            "p50_ms": ms(percentile(&mut server, 50.0)),
            "p95_ms": ms(percentile(&mut server, 95.0)),
        },
    }))
}

/// The server's whole time on a request, from its `Server-Timing` header's `total`.
fn server_total(response: &reqwest::Response) -> anyhow::Result<std::time::Duration> {
    let header = response
        .headers()
        .get_all(server::http::server_timing::SERVER_TIMING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect::<Vec<_>>()
        .join(", ");
    let ms = server::http::server_timing::duration_of(&header, "total").ok_or_else(|| {
        anyhow::anyhow!("the search's answer has no Server-Timing total: {header:?}")
    })?;
    Ok(std::time::Duration::from_secs_f64(ms.max(0.0) / 1000.0))
}

/// The line for [`box_words_alone`]'s figures; empty when they are missing (a run's JSON
/// from before they were measured).
pub fn box_words_alone_line(alone: &serde_json::Value) -> String {
    if alone.is_null() {
        return String::new();
    }
    format!(
        "  the box's words searched alone by the load driver over HTTP (no browser; just before the browser ran, on a server nothing else used), {} searches, sent → the answer's last byte read, p50 / p95: {:.1} / {:.1} ms (the server's own time, its Server-Timing total: {:.1} / {:.1} ms); an answer (limit 20) is {} bytes uncompressed (p50)",
        alone["n"],
        alone["p50_ms"].as_f64().unwrap_or(f64::NAN),
        alone["p95_ms"].as_f64().unwrap_or(f64::NAN),
        alone["server_total"]["p50_ms"].as_f64().unwrap_or(f64::NAN),
        alone["server_total"]["p95_ms"].as_f64().unwrap_or(f64::NAN),
        alone["answer_bytes_p50"]
    )
}

/// Runs `node end2end/bench/page.mjs` and reads its JSON.
async fn page_figures(
    base: &str,
    token: &str,
    saves: usize,
    note_path: &str,
) -> anyhow::Result<serde_json::Value> {
    let mut args = vec![base.to_owned(), token.to_owned(), saves.to_string()];
    args.extend(box_words());
    super::node::node_json("page.mjs", args, &[("ONCENOTE_BENCH_NOTE", note_path)]).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lighthouse_run_that_threw_is_reported_by_its_reason_instead_of_zero_scores() {
        let thrown = serde_json::json!({
            "page": "/", "preset": "mobile", "runtime_error": "THROWN",
            "error": "Protocol error (Runtime.evaluate): Inspected target navigated or closed"
        });
        assert_eq!(
            lighthouse_failure(&thrown).as_deref(),
            Some("THROWN: Protocol error (Runtime.evaluate): Inspected target navigated or closed")
        );
        let summary = lighthouse_summary(&serde_json::json!([thrown]));
        assert!(
            summary.starts_with("/ mobile: not measured (THROWN"),
            "{summary}"
        );
        assert!(!summary.contains("performance 0"), "{summary}");
    }

    #[test]
    fn a_lighthouse_run_with_a_category_left_unscored_is_not_measured_rather_than_zero() {
        let run = serde_json::json!({
            "page": "/", "preset": "mobile", "runtime_error": null,
            "performance": null, "accessibility": 100, "best_practices": 100
        });
        assert_eq!(
            lighthouse_failure(&run).as_deref(),
            Some("no performance score")
        );
    }

    #[test]
    fn a_scored_lighthouse_run_says_what_lighthouse_warned_of() {
        let run = serde_json::json!({
            "page": "/", "preset": "mobile", "runtime_error": null, "performance": 95,
            "accessibility": 100, "best_practices": 100,
            "warnings": ["The page loaded too slowly to finish within the time limit."]
        });
        assert_eq!(lighthouse_failure(&run), None);
        let summary = lighthouse_summary(&serde_json::json!([run]));
        assert!(summary.contains("performance 95"), "{summary}");
        assert!(
            summary.ends_with(
                "(Lighthouse warned: The page loaded too slowly to finish within the time limit.)"
            ),
            "{summary}"
        );
    }

    #[test]
    fn a_runs_long_tasks_are_counted_slowed_down_and_split_into_the_load_and_the_work_after_it() {
        let run = serde_json::json!({ "cpu_slowdown": 4.0, "long_tasks": [
            { "start_ms": 900.0, "duration_ms": 75.5 },
            { "start_ms": 4_000.0, "duration_ms": 12.5 },
            { "start_ms": 9_000.0, "duration_ms": 17.5 },
            { "start_ms": 12_000.0, "duration_ms": 10.0 },
        ]});
        assert_eq!(
            long_tasks_line(&run),
            "  its main thread's tasks as the trace observed them, ×4 as its CPU slowdown roughly counts them for TBT: 3 long, the longest 302 ms at 900 ms; in the first 5 s after the navigation started 2 (blocking 252 ms), after them 1 (blocking 20 ms)"
        );
        let unthrottled = serde_json::json!({ "cpu_slowdown": 1.0, "long_tasks": [] });
        assert_eq!(
            long_tasks_line(&unthrottled),
            "  its main thread's tasks as the trace observed them, ×1 as its CPU slowdown roughly counts them for TBT: 0 long; in the first 5 s after the navigation started 0 (blocking 0 ms), after them 0 (blocking 0 ms)"
        );
        assert_eq!(
            long_tasks_line(&serde_json::json!({ "long_tasks": null })),
            ""
        );
    }

    #[test]
    fn a_run_slowed_for_real_has_its_long_tasks_counted_as_they_ran() {
        let run = serde_json::json!({ "cpu_slowdown": 1.0, "slowed_for_real": true, "long_tasks": [
            { "start_ms": 5_300.0, "duration_ms": 420.0 },
            { "start_ms": 1_000.0, "duration_ms": 30.0 },
        ]});
        assert_eq!(
            long_tasks_line(&run),
            "  its main thread's tasks as the trace observed them, as they ran on the CPU slowed for real (×4 on mobile), counted as observed: 1 long, the longest 420 ms at 5300 ms; in the first 5 s after the navigation started 0 (blocking 0 ms), after them 1 (blocking 370 ms)"
        );
    }
}
