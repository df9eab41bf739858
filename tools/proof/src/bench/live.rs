//! Live updates at scale: how long a write takes to reach the streams of its person with
//! 1,000 streams open on one process, and the server's memory for 10,000 idle streams
//! (measured as the growth of its resident memory from before they opened).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::mpsc;

use super::people::{people, sqlite_database, start_server};
use super::writes::note_body;
use crate::stats::{ms, percentile};

/// The figures of live updates.
#[derive(Clone, Debug, Serialize)]
pub struct LiveFigures {
    pub streams: usize,
    pub writes: usize,
    /// From a write's request sent to its change event received on each of its person's
    /// streams (an upper bound of commit → event).
    pub event_p50_ms: f64,
    pub event_p99_ms: f64,
    /// The same writes' own answers (request sent → answer), for scale.
    pub write_p50_ms: f64,
    pub idle_streams: usize,
    /// The server's resident memory before and with the idle streams open.
    pub idle_rss_before_kib: u64,
    pub idle_rss_with_streams_kib: u64,
}

/// Opens `per_person` streams for each of `users`; each reports the note ids of the
/// change events it receives (with when), and `ready` once its first bytes came.
async fn open_streams(
    users: &[reqwest::Client],
    base: &str,
    per_person: usize,
    events: Option<mpsc::UnboundedSender<(String, Instant)>>,
) -> anyhow::Result<Vec<tokio::task::JoinHandle<()>>> {
    let mut tasks = Vec::new();
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel::<()>();
    for user in users {
        for _ in 0..per_person {
            let response = user
                .get(format!("{base}/api/events"))
                .timeout(Duration::from_secs(3600))
                .send()
                .await?;
            anyhow::ensure!(
                response.status() == 200,
                "a stream was refused: {}",
                response.status()
            );
            let (events, ready) = (events.clone(), ready_tx.clone());
            tasks.push(tokio::spawn(read_stream(response, events, ready)));
        }
    }
    let expected = tasks.len();
    for _ in 0..expected {
        ready_rx.recv().await;
    }
    Ok(tasks)
}

async fn read_stream(
    mut response: reqwest::Response,
    events: Option<mpsc::UnboundedSender<(String, Instant)>>,
    ready: mpsc::UnboundedSender<()>,
) {
    let mut buffer = String::new();
    let mut first = true;
    while let Ok(Some(bytes)) = response.chunk().await {
        let at = Instant::now();
        if first {
            let _ = ready.send(());
            first = false;
        }
        buffer.push_str(&String::from_utf8_lossy(&bytes));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            if let (Some(events), Some(data)) = (
                &events,
                block.lines().find_map(|l| l.strip_prefix("data: ")),
            ) && let Ok(change) = serde_json::from_str::<serde_json::Value>(data)
                && let Some(id) = change["note_id"].as_str()
            {
                let _ = events.send((id.to_owned(), at));
            }
        }
    }
}

/// Both figures, each on a server of its own.
pub async fn at_scale(binary: &Path, dir: &Path) -> anyhow::Result<LiveFigures> {
    // The benchmark holds 10,000 connections itself.
    server::open_files::raise_to_hard_limit();
    let many = [
        ("ONCENOTE_STREAMS_PER_PERSON", "100000"),
        ("ONCENOTE_STREAMS_MAX", "100000"),
        ("ONCENOTE_MAX_CONNECTIONS", "100000"),
    ];
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;

    // Latency: 1,000 streams, 20 for each of 50 people; 200 writes spread over them.
    let (people_n, per_person, writes_n) = (50, 20, 200);
    let mut server = start_server(binary, sqlite_database(&dir.join("live.db")), &many).await?;
    let base = server.base_url();
    let users = people(&client, &base, people_n).await?;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let streams = open_streams(&users, &base, per_person, Some(tx)).await?;
    let sent: Arc<std::sync::Mutex<std::collections::HashMap<String, Instant>>> = Arc::default();
    let mut write_times = Vec::with_capacity(writes_n);
    for n in 0..writes_n {
        let user = &users[n % people_n];
        let started = Instant::now();
        let answer = user
            .post(format!("{base}/api/notes"))
            .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
            .header("Content-Type", "application/json")
            .body(note_body(n as u64))
            .send()
            .await?;
        anyhow::ensure!(
            answer.status() == 201,
            "a write failed: {}",
            answer.status()
        );
        write_times.push(started.elapsed());
        let note: serde_json::Value = answer.json().await?;
        sent.lock()
            .unwrap()
            .insert(note["id"].as_str().unwrap_or_default().to_owned(), started);
        // A write every 20 ms: the streams' reads, not a queue of writes, are measured.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut latencies = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while latencies.len() < writes_n * per_person && Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(1), rx.recv()).await {
            Ok(Some((id, at))) => {
                if let Some(started) = sent.lock().unwrap().get(&id) {
                    latencies.push(at.duration_since(*started));
                }
            }
            _ => continue,
        }
    }
    anyhow::ensure!(
        latencies.len() == writes_n * per_person,
        "{} of {} change events arrived",
        latencies.len(),
        writes_n * per_person
    );
    for stream in streams {
        stream.abort();
    }
    server.kill()?;

    // Memory: 10,000 idle streams, 500 for each of 20 people.
    let (idle_people, idle_per_person) = (20, 500);
    let mut server = start_server(binary, sqlite_database(&dir.join("idle.db")), &many).await?;
    let base = server.base_url();
    let users = people(&client, &base, idle_people).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = server.memory_kib().unwrap_or(0);
    let idle = open_streams(&users, &base, idle_per_person, None).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let with_streams = server.memory_kib().unwrap_or(0);
    for stream in idle {
        stream.abort();
    }
    server.kill()?;

    let figures = LiveFigures {
        streams: people_n * per_person,
        writes: writes_n,
        event_p50_ms: ms(percentile(&mut latencies, 50.0)),
        event_p99_ms: ms(percentile(&mut latencies, 99.0)),
        write_p50_ms: ms(percentile(&mut write_times, 50.0)),
        idle_streams: idle_people * idle_per_person,
        idle_rss_before_kib: before,
        idle_rss_with_streams_kib: with_streams,
    };
    println!(
        "live: write → event p50 {:.1} ms, p99 {:.1} ms with {} streams open (the write's own answer p50 {:.1} ms)",
        figures.event_p50_ms, figures.event_p99_ms, figures.streams, figures.write_p50_ms
    );
    println!(
        "live: {} idle streams: server memory {} → {} KiB (+{} KiB, {:.1} KiB per stream)",
        figures.idle_streams,
        before,
        with_streams,
        with_streams.saturating_sub(before),
        with_streams.saturating_sub(before) as f64 / figures.idle_streams as f64
    );
    Ok(figures)
}
