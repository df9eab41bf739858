//! The signed-in home page of a person with 100,000 notes under Lighthouse's mobile preset
//! (the default, simulated run the target is judged on), several runs in a row
//! (`node end2end/bench/home.mjs`): a cheaper comparison of two builds of the page's load,
//! hydration and the offline copy's first fill than a whole page run. Each run is printed
//! as the page run prints it, then the median of the runs.

/// How many times the page is run.
const RUNS: usize = 3;

/// Runs the home page `RUNS` times for the person of `token` at `base` and prints each run
/// and their median.
pub async fn home_runs(base: &str, token: &str) -> anyhow::Result<()> {
    let args = vec![base.to_owned(), token.to_owned(), RUNS.to_string()];
    let figures = super::node::node_json("home.mjs", args, &[]).await?;
    let runs = figures["home"].as_array().cloned().unwrap_or_default();
    for run in &runs {
        super::report::print_lighthouse_run(run);
    }
    println!("{}", median_line(&runs));
    if let Some(stray) = figures["stray_rejections"]
        .as_array()
        .filter(|s| !s.is_empty())
    {
        println!(
            "  Lighthouse's stray checks rejected {} times after a load that timed out (counted, not fatal)",
            stray.len()
        );
    }
    Ok(())
}

/// The median performance score and TBT of the runs that were scored (of an even number,
/// the mean of the middle two).
pub fn median_line(runs: &[serde_json::Value]) -> String {
    let scored: Vec<&serde_json::Value> = runs
        .iter()
        .filter(|r| r["performance"].is_number())
        .collect();
    let median = |name: &str| {
        let mut values: Vec<f64> = scored.iter().filter_map(|r| r[name].as_f64()).collect();
        values.sort_by(f64::total_cmp);
        let middle = values.len() / 2;
        match values.len() {
            0 => None,
            n if n % 2 == 1 => Some(values[middle]),
            _ => Some((values[middle - 1] + values[middle]) / 2.0),
        }
    };
    // Lighthouse's measure of the host's CPU speed: runs on a host of another speed
    // (another time on this shared machine) are not comparable.
    let index = median("benchmark_index").map_or("?".to_owned(), |i| format!("{i:.0}"));
    match (median("performance"), median("tbt_ms")) {
        (Some(performance), Some(tbt)) => format!(
            "Lighthouse / mobile, the median of {} scored runs of {}: performance {performance:.0}, TBT {tbt:.0} ms (host CPU index {index})",
            scored.len(),
            runs.len()
        ),
        _ => format!("Lighthouse / mobile: none of {} runs scored", runs.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_of_the_scored_runs_only_and_of_two_the_mean() {
        let runs = [
            serde_json::json!({ "performance": 71, "tbt_ms": 2728.0, "benchmark_index": 1100.0 }),
            serde_json::json!({ "performance": null, "runtime_error": "NO_NAVSTART" }),
            serde_json::json!({ "performance": 80, "tbt_ms": 1500.4, "benchmark_index": 1900.0 }),
            serde_json::json!({ "performance": 75, "tbt_ms": 2000.0, "benchmark_index": 1500.0 }),
        ];
        assert_eq!(
            median_line(&runs),
            "Lighthouse / mobile, the median of 3 scored runs of 4: performance 75, TBT 2000 ms (host CPU index 1500)"
        );
        assert_eq!(
            median_line(&runs[..2]),
            "Lighthouse / mobile, the median of 1 scored runs of 2: performance 71, TBT 2728 ms (host CPU index 1100)"
        );
        assert_eq!(
            median_line(&[runs[0].clone(), runs[2].clone()]),
            "Lighthouse / mobile, the median of 2 scored runs of 2: performance 76, TBT 2114 ms (host CPU index 1500)"
        );
        assert_eq!(
            median_line(&runs[1..2]),
            "Lighthouse / mobile: none of 1 runs scored"
        );
    }
}
