//! The browser's half of the benchmark: a script of `end2end/bench/` run by Node, which
//! prints its figures as one JSON document on stdout (its progress and reasons go to
//! stderr, shown as it runs).

use std::process::{Command, Stdio};

/// Runs `node bench/<script> <args…>` in `end2end/` with `env` set, on a blocking thread,
/// and reads the JSON it printed.
pub async fn node_json(
    script: &str,
    args: Vec<String>,
    env: &[(&str, &str)],
) -> anyhow::Result<serde_json::Value> {
    let mut command = Command::new("node");
    command
        .arg(format!("bench/{script}"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir("end2end")
        .stderr(Stdio::inherit());
    let output = tokio::task::spawn_blocking(move || command.output()).await??;
    anyhow::ensure!(
        output.status.success(),
        "node bench/{script} exited with {} (its reason is printed above)",
        output.status
    );
    Ok(serde_json::from_slice(&output.stdout)?)
}
