//! Files: how fast one upload goes in (a 10 MiB file, start to 201: streamed to the
//! spool while hashed, then stored in one transaction), and how much memory the server
//! takes while 8 people upload 25 MiB each at once — beside its memory idle, on a server
//! of its own. An upload is streamed a frame at a time and stored a chunk at a time, so
//! the second should be close to the first, not 200 MiB above it.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::people::{people, sqlite_database, start_server};

const MIB: usize = 1024 * 1024;
/// The file timed alone, and how many times.
const ALONE_BYTES: usize = 10 * MIB;
const ALONE_RUNS: usize = 7;
/// The files uploaded at once, one per person.
const PARALLEL_BYTES: usize = 25 * MIB;
const PARALLEL: usize = 8;

/// The figures of files.
#[derive(Clone, Debug, Serialize)]
pub struct FileFigures {
    /// One 10 MiB upload, request sent → 201, in MiB/s: the median of the runs, and each.
    pub upload_10mib_mib_per_s: f64,
    pub upload_10mib_runs_mib_per_s: Vec<f64>,
    pub parallel_uploads: usize,
    pub parallel_file_mib: usize,
    /// How long the parallel uploads took, from the first sent to the last 201.
    pub parallel_seconds: f64,
    /// The server's resident memory idle (signed-up people, no upload yet), and its peak
    /// while the uploads ran: sampled VmRSS every 2 ms, and VmHWM after.
    pub idle_rss_kib: u64,
    pub parallel_peak_rss_kib: u64,
    pub parallel_hwm_kib: Option<u64>,
}

/// `n` bytes, different for each `seed` (so no upload is a replay of another).
fn file_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            // xorshift: cheap bytes that do not compress to nothing.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

async fn put(client: &reqwest::Client, base: &str, bytes: Vec<u8>) -> anyhow::Result<()> {
    let name = hex::encode(Sha256::digest(&bytes));
    let answer = client
        .put(format!("{base}/api/files/{name}"))
        .header("content-type", "application/octet-stream")
        .timeout(Duration::from_secs(600))
        .body(bytes)
        .send()
        .await?;
    anyhow::ensure!(
        answer.status() == 201,
        "an upload answered {}",
        answer.status()
    );
    Ok(())
}

fn resident_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Both figures, each on a server of its own.
pub async fn upload_figures(binary: &Path, dir: &Path) -> anyhow::Result<FileFigures> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    let spool = dir.join("spool");
    let spool_env = spool.display().to_string();
    let env = [("ONCENOTE_SPOOL_DIR", spool_env.as_str())];

    // One upload at a time.
    let mut server = start_server(binary, sqlite_database(&dir.join("files.db")), &env).await?;
    let base = server.base_url();
    let user = people(&client, &base, 1).await?.remove(0);
    put(&user, &base, file_bytes(MIB, 0)).await?; // warm up
    let mut runs = Vec::with_capacity(ALONE_RUNS);
    for run in 0..ALONE_RUNS {
        let bytes = file_bytes(ALONE_BYTES, 1 + run as u64);
        let started = Instant::now();
        put(&user, &base, bytes).await?;
        runs.push((ALONE_BYTES as f64 / MIB as f64) / started.elapsed().as_secs_f64());
    }
    server.kill()?;
    let mut sorted = runs.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];

    // Eight people, 25 MiB each, at once.
    let mut server = start_server(
        binary,
        sqlite_database(&dir.join("files-parallel.db")),
        &env,
    )
    .await?;
    let base = server.base_url();
    let uploaders = people(&client, &base, PARALLEL).await?;
    let files: Vec<Vec<u8>> = (0..PARALLEL)
        .map(|n| file_bytes(PARALLEL_BYTES, 100 + n as u64))
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = server.pid().ok_or_else(|| anyhow::anyhow!("no server"))?;
    let idle = resident_kib(pid);
    let peak = Arc::new(AtomicU64::new(idle));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = std::thread::spawn({
        let (peak, done) = (peak.clone(), done.clone());
        move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(resident_kib(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    });
    let started = Instant::now();
    let uploads = uploaders
        .iter()
        .zip(files)
        .map(|(user, bytes)| put(user, &base, bytes));
    let outcomes = futures::future::join_all(uploads).await;
    let parallel_seconds = started.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    let hwm = server.peak_memory_kib();
    server.kill()?;
    for outcome in outcomes {
        outcome?;
    }
    let _ = std::fs::remove_dir_all(&spool);

    let figures = FileFigures {
        upload_10mib_mib_per_s: median,
        upload_10mib_runs_mib_per_s: runs,
        parallel_uploads: PARALLEL,
        parallel_file_mib: PARALLEL_BYTES / MIB,
        parallel_seconds,
        idle_rss_kib: idle,
        parallel_peak_rss_kib: peak.load(Ordering::Relaxed),
        parallel_hwm_kib: hwm,
    };
    println!(
        "files: a 10 MiB upload at {:.1} MiB/s (median of {ALONE_RUNS}; runs {:?})",
        figures.upload_10mib_mib_per_s,
        figures
            .upload_10mib_runs_mib_per_s
            .iter()
            .map(|r| (r * 10.0).round() / 10.0)
            .collect::<Vec<_>>()
    );
    println!(
        "files: {PARALLEL} parallel {} MiB uploads in {:.1} s: server memory {} KiB idle → \
         peak {} KiB sampled (+{} KiB), VmHWM {}",
        figures.parallel_file_mib,
        figures.parallel_seconds,
        figures.idle_rss_kib,
        figures.parallel_peak_rss_kib,
        figures
            .parallel_peak_rss_kib
            .saturating_sub(figures.idle_rss_kib),
        figures
            .parallel_hwm_kib
            .map_or("unknown".to_owned(), |k| format!("{k} KiB")),
    );
    Ok(figures)
}
