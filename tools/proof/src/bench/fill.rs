//! The offline copy's first fill in Chromium (`node end2end/bench/fill.mjs`): a new
//! browser profile opening the home page of a person with 100,000 notes, its main thread
//! slowed ×4 as a phone's (Chromium's own throttling, as Lighthouse's mobile preset
//! assumes) and not slowed, watched for its first 30 s: how many notes the copy holds, and
//! the long tasks (50 ms or more as they ran) before hydration and in the time watched
//! after it.

/// How long each fill is watched, in seconds.
const WATCHED_S: u64 = 30;

/// Watches the first fill for the person of `token` at `base` and prints its line; `None`
/// (with the reason printed) if it could not run.
pub async fn first_fill(base: &str, token: &str) -> Option<serde_json::Value> {
    let args = [base, token, &WATCHED_S.to_string(), "4", "1"].map(str::to_owned);
    let figures = super::node::node_json("fill.mjs", args.to_vec(), &[]).await;
    match figures {
        Ok(figures) => {
            for run in figures["fill"].as_array().into_iter().flatten() {
                println!("{}", fill_line(run));
            }
            Some(figures["fill"].clone())
        }
        Err(error) => {
            println!("the offline copy's first fill: not measured ({error:#})");
            None
        }
    }
}

/// One run of the fill as a line.
pub fn fill_line(run: &serde_json::Value) -> String {
    let tasks = |name: &str| {
        let t = &run[name];
        format!(
            "{} blocking {} ms (longest {} ms)",
            t["n"], t["blocking_ms"], t["longest_ms"]
        )
    };
    format!(
        "the offline copy's first fill in Chromium, CPU ×{}: {} notes in {} s ({} a second; hydrated at {} ms); long tasks (≥ 50 ms as run) to hydration {}, in the time watched after it {}",
        run["cpu_slowdown"],
        run["notes_each_second"]
            .as_array()
            .and_then(|n| n.last())
            .unwrap_or(&serde_json::Value::Null),
        run["seconds"],
        run["notes_per_second"],
        run["hydrated_ms"],
        tasks("long_tasks_to_hydration"),
        tasks("long_tasks_after"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fills_line_gives_the_notes_copied_and_the_long_tasks_before_and_after_hydration() {
        let run = serde_json::json!({
            "cpu_slowdown": 4, "seconds": 30, "hydrated_ms": 2400,
            "notes_each_second": [50, 150, 3000], "notes_per_second": 100,
            "long_tasks_to_hydration": {"n": 3, "blocking_ms": 700, "longest_ms": 600},
            "long_tasks_after": {"n": 0, "blocking_ms": 0, "longest_ms": 0},
        });
        assert_eq!(
            fill_line(&run),
            "the offline copy's first fill in Chromium, CPU ×4: 3000 notes in 30 s (100 a second; hydrated at 2400 ms); long tasks (≥ 50 ms as run) to hydration 3 blocking 700 ms (longest 600 ms), in the time watched after it 0 blocking 0 ms (longest 0 ms)"
        );
    }
}
