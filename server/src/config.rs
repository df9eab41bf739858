//! Configuration, read once from the environment at start. Every variable is listed in
//! the README; each has a default so the app runs with no configuration at all. A value
//! the server cannot honour stops the start with a message that names the variable.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, bail};

/// Everything the server needs to start.
#[derive(Clone, Debug)]
pub struct Config {
    /// `DATABASE_URL`: where the notes live.
    pub database: DatabaseUrl,
    /// `LEPTOS_SITE_ADDR`: where to listen.
    pub site_addr: SocketAddr,
    /// `LEPTOS_SITE_ROOT`: the folder with `pkg/` (wasm, JS, CSS) built by cargo-leptos.
    pub site_root: String,
    /// `ONCENOTE_IDEMPOTENCY_TTL_SECS`: how long an idempotency row is kept.
    pub idempotency_ttl: Duration,
    /// `ONCENOTE_KEY_WAIT_MS`: how long a write waits for the database's write lock, and a
    /// request for a running request with the same key, before answering 503 / 409.
    pub key_wait: Duration,
    /// `ONCENOTE_SWEEP_INTERVAL_SECS`: how often expired idempotency rows are deleted.
    pub sweep_interval: Duration,
    /// `ONCENOTE_TRASH_DAYS`: notes in the trash longer than this are deleted for good.
    pub trash_retention: Duration,
    /// `ONCENOTE_BUILD_ID`: names the service worker's cache instead of the asset hashes
    /// (for a deployment that wants its own version names, and for tests).
    pub build_id: Option<String>,
    /// `ONCENOTE_ALLOWED_HOSTS`: host names (besides IP addresses and `localhost`) the
    /// server answers to; any other `Host` is refused, which defeats DNS rebinding.
    pub allowed_hosts: Vec<String>,
    /// `ONCENOTE_HEADER_TIMEOUT_SECS`: how long a connection may take to send a request's
    /// headers, and how long an idle keep-alive connection stays open.
    pub header_timeout: Duration,
    /// `ONCENOTE_BODY_TIMEOUT_SECS`: how long a request may take to send its body.
    pub body_timeout: Duration,
}

/// The databases the server can use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A `sqlite:` URL (the file and its folder are created on first start).
    Sqlite(String),
}

impl DatabaseUrl {
    /// Reads a `DATABASE_URL`. A URL the server cannot serve is an error, never a file
    /// name: `postgres://…` once became a folder named `postgres:` here.
    pub fn parse(url: &str) -> anyhow::Result<Self> {
        let url = url.trim();
        let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("sqlite") => Ok(Self::Sqlite(url.to_owned())),
            Some("postgres" | "postgresql") => bail!(
                "DATABASE_URL is a PostgreSQL URL, and this version of oncenote speaks SQLite \
                 only; use a sqlite: URL such as {DEFAULT_DATABASE_URL}"
            ),
            _ => bail!(
                "DATABASE_URL must be a sqlite: URL such as {DEFAULT_DATABASE_URL}, got {url:?}"
            ),
        }
    }
}

impl std::fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatabaseUrl::Sqlite(url) => f.write_str(url),
        }
    }
}

pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/oncenote.db";

/// The longest idempotency TTL accepted: ten years. Longer values are mistakes (and past
/// some point the clock cannot represent the expiry at all).
const MAX_TTL_SECS: u64 = 10 * 365 * 24 * 3600;

impl Config {
    /// Reads the environment; a variable that is set but unreadable is an error, not a
    /// silent default.
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the configuration through `lookup` (the environment, or a test's map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let number = |name: &str, default: u64| -> anyhow::Result<u64> {
            match var(name) {
                None => Ok(default),
                Some(v) => v
                    .trim()
                    .parse()
                    .with_context(|| format!("{name} must be a whole number, got {v:?}")),
            }
        };
        let days = |name: &str, default: u64| -> anyhow::Result<u64> {
            let days = number(name, default)?;
            if days > 36_500 {
                bail!("{name} is {days}; at most 36500 (a hundred years) is accepted");
            }
            Ok(days)
        };
        let ttl_secs = number("ONCENOTE_IDEMPOTENCY_TTL_SECS", 86_400)?;
        if ttl_secs > MAX_TTL_SECS {
            bail!(
                "ONCENOTE_IDEMPOTENCY_TTL_SECS is {ttl_secs}; at most {MAX_TTL_SECS} (ten years) is accepted"
            );
        }
        let database = DatabaseUrl::parse(
            var("DATABASE_URL")
                .as_deref()
                .unwrap_or(DEFAULT_DATABASE_URL),
        )?;
        Ok(Self {
            database,
            site_addr: var("LEPTOS_SITE_ADDR")
                .as_deref()
                .unwrap_or("127.0.0.1:3000")
                .parse()
                .context("LEPTOS_SITE_ADDR must be an address like 127.0.0.1:3000")?,
            site_root: var("LEPTOS_SITE_ROOT").unwrap_or_else(|| "target/site".to_owned()),
            idempotency_ttl: Duration::from_secs(ttl_secs),
            key_wait: Duration::from_millis(number("ONCENOTE_KEY_WAIT_MS", 5_000)?),
            sweep_interval: Duration::from_secs(
                number("ONCENOTE_SWEEP_INTERVAL_SECS", 300)?.max(1),
            ),
            trash_retention: Duration::from_secs(days("ONCENOTE_TRASH_DAYS", 30)? * 86_400),
            build_id: var("ONCENOTE_BUILD_ID"),
            allowed_hosts: var("ONCENOTE_ALLOWED_HOSTS")
                .map(|list| parse_hosts(&list))
                .transpose()?
                .unwrap_or_default(),
            header_timeout: Duration::from_secs(number("ONCENOTE_HEADER_TIMEOUT_SECS", 10)?.max(1)),
            body_timeout: Duration::from_secs(number("ONCENOTE_BODY_TIMEOUT_SECS", 30)?.max(1)),
        })
    }

    /// Settings for tests: a given database, port 0, short intervals.
    pub fn for_tests(database_url: String) -> Self {
        Self {
            database: DatabaseUrl::parse(&database_url).expect("a test database URL"),
            site_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            site_root: "target/site".to_owned(),
            idempotency_ttl: Duration::from_secs(86_400),
            key_wait: Duration::from_secs(5),
            sweep_interval: Duration::from_secs(300),
            trash_retention: Duration::from_secs(30 * 86_400),
            build_id: None,
            allowed_hosts: Vec::new(),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
        }
    }
}

/// `notes.example.com, Notes.Example.org` → lower-case names; ports and schemes are
/// mistakes worth naming.
fn parse_hosts(list: &str) -> anyhow::Result<Vec<String>> {
    list.split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|host| {
            if host.contains(['/', ':', ' ']) {
                bail!(
                    "ONCENOTE_ALLOWED_HOSTS takes bare host names such as notes.example.com, got {host:?}"
                );
            }
            Ok(host.to_ascii_lowercase())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(vars: &[(&str, &str)]) -> anyhow::Result<Config> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn no_configuration_at_all_gives_a_working_default() {
        let config = config(&[]).unwrap();
        assert_eq!(
            config.database,
            DatabaseUrl::Sqlite(DEFAULT_DATABASE_URL.into())
        );
        assert_eq!(config.site_addr.to_string(), "127.0.0.1:3000");
    }

    #[test]
    fn a_postgres_url_stops_the_start_instead_of_becoming_a_file_name() {
        let error = config(&[("DATABASE_URL", "postgres://localhost/notes")])
            .unwrap_err()
            .to_string();
        assert!(error.contains("PostgreSQL"), "{error}");
        let error = config(&[("DATABASE_URL", "data/notes.db")])
            .unwrap_err()
            .to_string();
        assert!(error.contains("sqlite:"), "{error}");
    }

    #[test]
    fn a_ttl_the_clock_cannot_represent_stops_the_start() {
        let error = config(&[("ONCENOTE_IDEMPOTENCY_TTL_SECS", "18446744073709551615")])
            .unwrap_err()
            .to_string();
        assert!(error.contains("ONCENOTE_IDEMPOTENCY_TTL_SECS"), "{error}");
        assert!(config(&[("ONCENOTE_IDEMPOTENCY_TTL_SECS", "0")]).is_ok());
    }

    #[test]
    fn allowed_hosts_are_bare_lower_case_names() {
        let parsed = config(&[("ONCENOTE_ALLOWED_HOSTS", "Notes.Example.com, other.org")]).unwrap();
        assert_eq!(parsed.allowed_hosts, ["notes.example.com", "other.org"]);
        assert!(config(&[("ONCENOTE_ALLOWED_HOSTS", "https://notes.example.com")]).is_err());
    }
}
