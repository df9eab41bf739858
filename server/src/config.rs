//! Configuration, read once from the environment at start. Every variable is listed in
//! the README; each has a default so the app runs with no configuration at all.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;

/// Everything the server needs to start.
#[derive(Clone, Debug)]
pub struct Config {
    /// `DATABASE_URL`: a `sqlite:` URL. Default: a file under `./data/`.
    pub database_url: String,
    /// `LEPTOS_SITE_ADDR`: where to listen.
    pub site_addr: SocketAddr,
    /// `LEPTOS_SITE_ROOT`: the folder with `pkg/` (wasm, JS, CSS) built by cargo-leptos.
    pub site_root: String,
    /// `ONCENOTE_IDEMPOTENCY_TTL_SECS`: how long an idempotency row is kept.
    pub idempotency_ttl: Duration,
    /// `ONCENOTE_KEY_WAIT_MS`: how long a request waits for the database write lock (and
    /// so for a concurrent request with the same key) before answering 409.
    pub key_wait: Duration,
    /// `ONCENOTE_SWEEP_INTERVAL_SECS`: how often expired idempotency rows are deleted.
    pub sweep_interval: Duration,
    /// `ONCENOTE_BUILD_ID`: names the service worker's cache instead of the asset hashes
    /// (for a deployment that wants its own version names, and for tests).
    pub build_id: Option<String>,
}

pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/oncenote.db";

impl Config {
    /// Reads the environment; a variable that is set but unreadable is an error, not a
    /// silent default.
    pub fn from_env() -> anyhow::Result<Self> {
        Ok(Self {
            database_url: var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_owned()),
            site_addr: var("LEPTOS_SITE_ADDR")
                .as_deref()
                .unwrap_or("127.0.0.1:3000")
                .parse()
                .context("LEPTOS_SITE_ADDR must be an address like 127.0.0.1:3000")?,
            site_root: var("LEPTOS_SITE_ROOT").unwrap_or_else(|| "target/site".to_owned()),
            idempotency_ttl: Duration::from_secs(number("ONCENOTE_IDEMPOTENCY_TTL_SECS", 86_400)?),
            key_wait: Duration::from_millis(number("ONCENOTE_KEY_WAIT_MS", 5_000)?),
            sweep_interval: Duration::from_secs(
                number("ONCENOTE_SWEEP_INTERVAL_SECS", 300)?.max(1),
            ),
            build_id: var("ONCENOTE_BUILD_ID"),
        })
    }

    /// Settings for tests: a given database, port 0, short intervals.
    pub fn for_tests(database_url: String) -> Self {
        Self {
            database_url,
            site_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            site_root: "target/site".to_owned(),
            idempotency_ttl: Duration::from_secs(86_400),
            key_wait: Duration::from_secs(5),
            sweep_interval: Duration::from_secs(300),
            build_id: None,
        }
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn number(name: &str, default: u64) -> anyhow::Result<u64> {
    match var(name) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .with_context(|| format!("{name} must be a whole number, got {v:?}")),
    }
}
