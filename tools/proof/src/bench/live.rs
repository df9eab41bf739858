//! Live updates at scale: how long a write takes to reach the streams of its person with
//! 1,000 streams open on one process, and the server's memory for 10,000 idle streams
//! (measured as the growth of its resident memory from before they opened).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::mpsc;

use super::people::{people, sqlite_database, start_server};
use super::writes::{Cell, note_body, throughput, with_cpu};
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
    /// Idempotent creates per second at 16 clients on one server, with no stream open,
    /// then with 1,000 open (two for each writing person, the rest other people's).
    pub creates_without_streams_per_second: f64,
    pub creates_with_streams_per_second: f64,
    /// The server's CPU time per create in each (µs): its own share of the tax, apart
    /// from the benchmark's reading of the events on the same cores.
    pub server_cpu_us_per_create_without_streams: Option<f64>,
    pub server_cpu_us_per_create_with_streams: Option<f64>,
}

impl LiveFigures {
    /// The server's memory each idle stream took, in KiB.
    pub fn kib_per_idle_stream(&self) -> f64 {
        self.idle_rss_with_streams_kib
            .saturating_sub(self.idle_rss_before_kib) as f64
            / self.idle_streams.max(1) as f64
    }

    /// The server's memory with [`IDLE_STREAMS`] idle streams open: measured, or — when
    /// this machine's open-file limit allowed fewer — the memory before them plus that
    /// many times what each one took.
    pub fn memory_kib_for_idle_streams(&self) -> u64 {
        if self.idle_streams >= IDLE_STREAMS {
            return self.idle_rss_with_streams_kib;
        }
        self.idle_rss_before_kib + (self.kib_per_idle_stream() * IDLE_STREAMS as f64) as u64
    }
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
            if response.status() != 200 {
                let status = response.status();
                anyhow::bail!(
                    "a stream was refused: {status} {}",
                    response.text().await.unwrap_or_default()
                );
            }
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

/// How long each of `writes` creates (spread over `users`, sent to `write_base`) takes
/// to reach each of its person's `per_person` streams (opened on `stream_base`): the
/// event latencies, and the writes' own.
pub async fn event_latency(
    users: &[reqwest::Client],
    write_base: &str,
    stream_base: &str,
    per_person: usize,
    writes_n: usize,
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let people_n = users.len();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let streams = open_streams(users, stream_base, per_person, Some(tx)).await?;
    let sent: Arc<std::sync::Mutex<std::collections::HashMap<String, Instant>>> = Arc::default();
    let mut write_times = Vec::with_capacity(writes_n);
    for n in 0..writes_n {
        let user = &users[n % people_n];
        let started = Instant::now();
        let answer = user
            .post(format!("{write_base}/api/notes"))
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
    Ok((latencies, write_times))
}

/// The idle streams whose memory is the figure.
pub const IDLE_STREAMS: usize = 10_000;

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
    let (mut latencies, mut write_times) =
        event_latency(&users, &base, &base, per_person, writes_n).await?;
    server.kill()?;

    // Memory: 10,000 idle streams, 500 for each of 20 people — or as many as this
    // machine's open-file limit lets the server hold (half its connections; the figure
    // for 10,000 is then projected from the memory each one took).
    let open_files = server::open_files::raise_to_hard_limit();
    let allowed = server::open_files::connection_cap(100_000, open_files) / 2;
    let idle_people = 20;
    let idle_per_person = (IDLE_STREAMS.min(allowed.saturating_sub(100)) / idle_people).max(1);
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

    let (creates_without_streams, creates_with_streams) =
        creates_beside_streams(binary, dir, &client, &many).await?;

    let figures = LiveFigures {
        streams: people_n * per_person,
        writes: writes_n,
        event_p50_ms: ms(percentile(&mut latencies, 50.0)),
        event_p99_ms: ms(percentile(&mut latencies, 99.0)),
        write_p50_ms: ms(percentile(&mut write_times, 50.0)),
        idle_streams: idle_people * idle_per_person,
        idle_rss_before_kib: before,
        idle_rss_with_streams_kib: with_streams,
        creates_without_streams_per_second: creates_without_streams.per_second,
        creates_with_streams_per_second: creates_with_streams.per_second,
        server_cpu_us_per_create_without_streams: creates_without_streams.server_cpu_us,
        server_cpu_us_per_create_with_streams: creates_with_streams.server_cpu_us,
    };
    println!(
        "live: write → event p50 {:.1} ms, p99 {:.1} ms with {} streams open (the write's own answer p50 {:.1} ms)",
        figures.event_p50_ms, figures.event_p99_ms, figures.streams, figures.write_p50_ms
    );
    println!(
        "live: {} idle streams: server memory {} → {} KiB (+{} KiB, {:.1} KiB per stream; {:.0} MB for {IDLE_STREAMS})",
        figures.idle_streams,
        before,
        with_streams,
        with_streams.saturating_sub(before),
        figures.kib_per_idle_stream(),
        figures.memory_kib_for_idle_streams() as f64 / 1024.0
    );
    let cpu = |us: Option<f64>| us.map_or("?".to_owned(), |us| format!("{us:.0}"));
    println!(
        "live: creates at 16 clients {:.0}/s with no stream open, {:.0}/s with 1,000 open = {:.2}× (server CPU per create {} → {} µs)",
        figures.creates_without_streams_per_second,
        figures.creates_with_streams_per_second,
        figures.creates_with_streams_per_second
            / figures
                .creates_without_streams_per_second
                .max(f64::MIN_POSITIVE),
        cpu(figures.server_cpu_us_per_create_without_streams),
        cpu(figures.server_cpu_us_per_create_with_streams)
    );
    Ok(figures)
}

/// Creates at 16 clients (16 people) on a server of their own, first with no stream
/// open, then with 1,000: two for each writing person (each create wakes them, and they
/// read the feed) and 968 of 44 other people (idle).
async fn creates_beside_streams(
    binary: &Path,
    dir: &Path,
    client: &reqwest::Client,
    settings: &[(&str, &str)],
) -> anyhow::Result<(Cell, Cell)> {
    const SECONDS: Duration = Duration::from_secs(5);
    let mut server =
        start_server(binary, sqlite_database(&dir.join("feed-tax.db")), settings).await?;
    let base = server.base_url();
    let writers = people(client, &base, 16).await?;
    let others = people(client, &base, 44).await?;
    let pid = server.pid();
    let without = with_cpu(pid, throughput(&writers, &base, "idempotent", 16, SECONDS)).await?;
    let mut streams = open_streams(&writers, &base, 2, None).await?;
    streams.extend(open_streams(&others, &base, 22, None).await?);
    let with = with_cpu(pid, throughput(&writers, &base, "idempotent", 16, SECONDS)).await?;
    for stream in streams {
        stream.abort();
    }
    server.kill()?;
    Ok((without, with))
}
