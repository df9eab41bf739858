//! The chaos driver: many clients save notes through a proxy that loses answers, resets
//! connections and answers 503; in crash mode a server is SIGKILLed and restarted on
//! the same database. With `--replicas 2` the proxy spreads requests over two servers on
//! one database (PostgreSQL with `--postgres`), and the kills alternate between them. At
//! the end the database must hold every intent exactly once.
//!
//!     cargo run --release -p proof --bin chaos -- --intents 10000 --kills 20
//!     cargo run --release -p proof --bin chaos -- --postgres postgres://postgres@127.0.0.1/postgres --replicas 2 --kills 6

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use app::save::retry_policy::RetryPolicy;
use clap::Parser;
use proof::fault_proxy::{FaultProxy, Faults, ProxyCounts};
use proof::invariants::{self, Check};
use proof::load::{self, LoadConfig, Progress};
use proof::server_process::ServerProcess;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Parser, Debug)]
#[command(
    about = "Saves notes under injected faults and crashes, then checks exactly-once against the database"
)]
struct Args {
    /// Concurrent virtual clients.
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// Save intents in all.
    #[arg(long, default_value_t = 10_000)]
    intents: usize,
    /// Share of answers lost after the server answered.
    #[arg(long, default_value_t = 0.20)]
    lose: f64,
    /// Share of requests whose connection is reset before forwarding.
    #[arg(long, default_value_t = 0.05)]
    reset: f64,
    /// Share of requests answered 503 with Retry-After without forwarding.
    #[arg(long, default_value_t = 0.05)]
    busy: f64,
    /// The Retry-After of those 503s, in seconds.
    #[arg(long, default_value_t = 1)]
    retry_after_secs: u64,
    /// Largest extra delay before forwarding, in milliseconds.
    #[arg(long, default_value_t = 20)]
    max_delay_ms: u64,
    /// Share of intents sent by 2–4 senders at once with the same key (as tabs without a
    /// lock would).
    #[arg(long, default_value_t = 0.05)]
    same_key_share: f64,
    /// Share of created notes that are then edited or ticked one to three times (and some
    /// pinned and unpinned, their tag renamed, moved to the trash and back), each write an
    /// intent of its own.
    #[arg(long, default_value_t = 0.3)]
    follow_up_share: f64,
    /// Idempotency rows expire after this many seconds and are swept every second, so
    /// keys expire while the load runs and late retries meet only the note's own key.
    #[arg(long)]
    ttl_secs: Option<u64>,
    /// SIGKILLs of the server during the load (0: no crash mode).
    #[arg(long, default_value_t = 0)]
    kills: usize,
    /// Seed for faults, kill moments and jitter.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give up on unsaved intents after this many seconds.
    #[arg(long, default_value_t = 900)]
    deadline_secs: u64,
    /// The release server binary.
    #[arg(long, default_value = "target/release/server")]
    server: PathBuf,
    /// Server processes on the one database, behind the proxy (taken in turn).
    #[arg(long, default_value_t = 1)]
    replicas: usize,
    /// Run on PostgreSQL: a server URL (with a database to connect to for administration,
    /// e.g. postgres://postgres@127.0.0.1:5432/postgres); a database of the run's own is
    /// made there and dropped when every invariant held. Without it: a SQLite file.
    #[arg(long)]
    postgres: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = std::env::temp_dir().join(format!(
        "oncenote-chaos-{}-{}",
        std::process::id(),
        args.seed
    ));
    std::fs::create_dir_all(&dir)?;
    anyhow::ensure!(args.replicas >= 1, "--replicas is at least 1");
    let database = match &args.postgres {
        None => ChaosDatabase::Sqlite(dir.join("chaos.db")),
        Some(server) => ChaosDatabase::postgres(server, args.seed).await?,
    };
    let mut servers = Vec::new();
    for _ in 0..args.replicas {
        let mut server = ServerProcess::with_url(&args.server, database.url())?;
        // Each virtual client signs up as a person of their own.
        server.env = vec![
            ("ONCENOTE_SIGNUP".into(), "open".into()),
            // Every simulated person signs up from 127.0.0.1: lift the per-address limit
            // on new accounts (five times this) for them.
            ("ONCENOTE_SIGN_IN_MAX_FAILURES".into(), "1000".into()),
        ];
        if let Some(ttl) = args.ttl_secs {
            server.env.extend([
                ("ONCENOTE_IDEMPOTENCY_TTL_SECS".into(), ttl.to_string()),
                ("ONCENOTE_SWEEP_INTERVAL_SECS".into(), "1".into()),
            ]);
        }
        server.start().await?;
        servers.push(server);
    }

    let faults = Faults {
        lose_answer: args.lose,
        reset: args.reset,
        busy: args.busy,
        retry_after_secs: args.retry_after_secs,
        max_delay: Duration::from_millis(args.max_delay_ms),
    };
    let proxy = FaultProxy::start(
        servers.iter().map(ServerProcess::base_url).collect(),
        faults.clone(),
        args.seed,
    )
    .await?;
    println!(
        "chaos: {} intents, {} clients, faults lose={:.0}% reset={:.0}% busy={:.0}% delay≤{} ms, \
         same key from several senders={:.0}%, later writes on {:.0}% of notes, key expiry={}, \
         kills={}, replicas={} on {}, seed={}",
        args.intents,
        args.clients,
        args.lose * 100.0,
        args.reset * 100.0,
        args.busy * 100.0,
        args.max_delay_ms,
        args.same_key_share * 100.0,
        args.follow_up_share * 100.0,
        args.ttl_secs
            .map(|t| format!("{t} s"))
            .unwrap_or_else(|| "off".into()),
        args.kills,
        args.replicas,
        database.backend(),
        args.seed
    );

    let progress = Arc::new(Progress::default());
    let killer = tokio::spawn(kill_at_random_moments(
        servers,
        database.check_url(),
        progress.clone(),
        args.kills,
        args.intents,
        args.seed,
    ));

    let config = LoadConfig {
        clients: args.clients,
        intents: args.intents,
        deadline: Duration::from_secs(args.deadline_secs),
        seed: args.seed,
        policy: RetryPolicy::default(),
        same_key_share: args.same_key_share,
        follow_up_share: args.follow_up_share,
    };
    let local = tokio::task::LocalSet::new();
    let result = local
        .run_until(load::run(&proxy.base_url(), &config, progress.clone()))
        .await?;
    let (mut servers, kill_checks) = killer.await??;
    for server in &mut servers {
        server.kill()?;
    }

    let mut checks = invariants::check_all(
        &database.check_url(),
        &result.records,
        args.ttl_secs.is_some(),
    )
    .await?;
    checks.extend(kill_checks);

    let c = &result.counts;
    let p = &proxy.counts;
    println!("\n── summary ─────────────────────────────────────────────");
    println!("intents            {}", result.records.len());
    println!(
        "elapsed            {:.1} s ({:.0} intents/s)",
        result.elapsed.as_secs_f64(),
        result.records.len() as f64 / result.elapsed.as_secs_f64()
    );
    println!(
        "attempts           {} ({:.2} per intent)",
        c.attempts,
        c.attempts as f64 / result.records.len().max(1) as f64
    );
    println!(
        "bursts             {}",
        result.records.iter().map(|r| r.bursts as u64).sum::<u64>()
    );
    println!(
        "failed attempts    network {} · timeout {} · 503 {} · 409 in-use {} · other {:?}",
        c.network_errors, c.timeouts, c.busy_503, c.in_use_409, c.other_answers
    );
    println!(
        "saved              first answer {} · by replay {}",
        c.saved_first_time, c.saved_by_replay
    );
    println!(
        "proxy              forwarded {} · answers lost {} · resets {} · 503s {} · server down {}",
        ProxyCounts::get(&p.forwarded),
        ProxyCounts::get(&p.lost_answers),
        ProxyCounts::get(&p.resets),
        ProxyCounts::get(&p.busy),
        ProxyCounts::get(&p.upstream_down)
    );
    println!(
        "same key at once   {} intents from several senders",
        result.records.iter().filter(|r| r.senders > 1).count()
    );
    println!(
        "later writes       {} edits, ticks, pins, tag renames, moves to the trash and back, on {} notes",
        result
            .records
            .iter()
            .map(|r| r.acked_follow_ups())
            .sum::<usize>(),
        result
            .records
            .iter()
            .filter(|r| !r.follow_ups.is_empty())
            .count()
    );
    println!(
        "after expiry       {} late retries answered 200 from the note's own key",
        ProxyCounts::get(&p.late_answers)
    );
    println!("kills              {}", args.kills);
    println!("── invariants ──────────────────────────────────────────");
    for Check { name, held, detail } in &checks {
        println!("{} {name}: {detail}", if *held { "ok  " } else { "FAIL" });
    }
    let failed = checks.iter().filter(|c| !c.held).count();
    println!("{} passed, {} failed", checks.len() - failed, failed);
    if failed == 0 {
        let _ = std::fs::remove_dir_all(&dir);
        database.drop_database().await?;
        Ok(())
    } else {
        eprintln!(
            "chaos: invariants violated; the database is kept at {}",
            database.url()
        );
        std::process::exit(1);
    }
}

/// The database a chaos run writes to.
enum ChaosDatabase {
    Sqlite(PathBuf),
    /// A database of the run's own on a PostgreSQL server: (server URL, database URL, name).
    Postgres {
        server: String,
        url: String,
        name: String,
    },
}

impl ChaosDatabase {
    /// Makes a fresh database on the PostgreSQL server at `server`.
    async fn postgres(server: &str, seed: u64) -> anyhow::Result<Self> {
        let name = format!("oncenote_chaos_{}_{seed}", std::process::id());
        let mut admin = invariants::open(server).await?;
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name}"))
            .execute(&mut admin)
            .await?;
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await?;
        let base = server
            .rsplit_once('/')
            .map(|(base, _)| base)
            .ok_or_else(|| anyhow::anyhow!("--postgres {server:?} names no database"))?;
        Ok(Self::Postgres {
            server: server.to_owned(),
            url: format!("{base}/{name}"),
            name,
        })
    }

    /// The URL the servers use.
    fn url(&self) -> String {
        match self {
            ChaosDatabase::Sqlite(path) => format!("sqlite://{}", path.display()),
            ChaosDatabase::Postgres { url, .. } => url.clone(),
        }
    }

    /// The URL the checks read through (read-only for a SQLite file).
    fn check_url(&self) -> String {
        match self {
            ChaosDatabase::Sqlite(path) => invariants::sqlite_url(path),
            ChaosDatabase::Postgres { url, .. } => url.clone(),
        }
    }

    fn backend(&self) -> &'static str {
        match self {
            ChaosDatabase::Sqlite(_) => "SQLite",
            ChaosDatabase::Postgres { .. } => "PostgreSQL",
        }
    }

    /// Drops a PostgreSQL database of the run's own (a SQLite file goes with its folder).
    async fn drop_database(&self) -> anyhow::Result<()> {
        if let ChaosDatabase::Postgres { server, name, .. } = self {
            let mut admin = invariants::open(server).await?;
            sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut admin)
                .await?;
        }
        Ok(())
    }
}

/// Kills a server `kills` times at random moments of the load (by progress) — the
/// replicas in turn — restarts it on the same database each time, and checks that every
/// intent acknowledged before the kill is there exactly once.
async fn kill_at_random_moments(
    mut servers: Vec<ServerProcess>,
    database: String,
    progress: Arc<Progress>,
    kills: usize,
    intents: usize,
    seed: u64,
) -> anyhow::Result<(Vec<ServerProcess>, Vec<Check>)> {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x6b696c6c);
    let mut moments: Vec<usize> = (0..kills)
        .map(|_| (rng.random_range(0.05..0.9) * intents as f64) as usize)
        .collect();
    moments.sort_unstable();
    let mut checks = Vec::new();
    for (n, moment) in moments.into_iter().enumerate() {
        while progress.acked.load(Ordering::Relaxed) < moment {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Give in-flight requests a random slice of time to be mid-transaction.
        tokio::time::sleep(Duration::from_millis(rng.random_range(0..30))).await;
        let acknowledged = progress.acked_keys.lock().expect("not poisoned").clone();
        let follow_ups = progress
            .acked_follow_up_keys
            .lock()
            .expect("not poisoned")
            .clone();
        let replica = n % servers.len();
        let server = &mut servers[replica];
        server.kill()?;
        tokio::time::sleep(Duration::from_millis(rng.random_range(20..250))).await;
        server.start().await?;
        let mut check =
            invariants::acknowledged_survived(&database, &acknowledged, &follow_ups).await?;
        check.name = format!("kill {} (replica {}): {}", n + 1, replica + 1, check.name);
        checks.push(check);
    }
    Ok((servers, checks))
}
