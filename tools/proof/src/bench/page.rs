//! The page in a browser (`node end2end/bench/page.mjs`): click → Saved, the search page
//! at 100,000 notes, and Lighthouse (mobile, desktop), in Chromium.

use super::seed::word;

/// Runs the browser measurements against `base` as the person of `token` (timing `saves`
/// saves) and prints their line; `None` (with the reason printed) if they could not run.
pub async fn in_the_browser(base: &str, token: &str, saves: usize) -> Option<serde_json::Value> {
    let page = page_figures(base, token, saves).await;
    match &page {
        Ok(figures) => println!(
            "in the browser: click → Saved p95 {:.1} ms, search page p95 {:.1} ms at 100,000 notes; Lighthouse {}",
            figures["click_to_saved"]["p95_ms"]
                .as_f64()
                .unwrap_or(f64::NAN),
            figures["search_page"]["p95_ms"]
                .as_f64()
                .unwrap_or(f64::NAN),
            lighthouse_summary(&figures["lighthouse"])
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
                    format!(
                        "{}: performance {} accessibility {} best practices {} (LCP {:.0} ms, TBT {:.0} ms, CLS {:.3}, {:.0} KB)",
                        r["preset"].as_str().unwrap_or("?"),
                        r["performance"],
                        r["accessibility"],
                        r["best_practices"],
                        r["lcp_ms"].as_f64().unwrap_or(f64::NAN),
                        r["tbt_ms"].as_f64().unwrap_or(f64::NAN),
                        r["cls"].as_f64().unwrap_or(f64::NAN),
                        r["total_bytes"].as_f64().unwrap_or(f64::NAN) / 1000.0
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

/// Runs `node end2end/bench/page.mjs` and reads its JSON.
async fn page_figures(base: &str, token: &str, saves: usize) -> anyhow::Result<serde_json::Value> {
    let mut command = std::process::Command::new("node");
    command
        .arg("bench/page.mjs")
        .arg(base)
        .arg(token)
        .arg(saves.to_string())
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
