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
    /// `ONCENOTE_SWEEP_INTERVAL_SECS`: how often expired idempotency rows and sessions are
    /// deleted and the trash is emptied.
    pub sweep_interval: Duration,
    /// `ONCENOTE_TRASH_DAYS`: notes in the trash longer than this are deleted for good.
    pub trash_retention: Duration,
    /// `ONCENOTE_TOMBSTONE_DAYS`: how long a delete for good is remembered (the tombstone,
    /// and every key that wrote to the note), so a late retry of one of those writes is
    /// told "deleted elsewhere" rather than making the note again.
    pub tombstone_retention: Duration,
    /// `ONCENOTE_FILE_GRACE_DAYS`: a file no note refers to (never did, or lost its last
    /// note to a delete for good) is swept once it was last uploaded or last lost a
    /// reference this long ago. A file referred to again before then is kept.
    pub file_grace: Duration,
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
    /// `ONCENOTE_MAX_CONNECTIONS`: connections open at once; past it a client gets 503.
    /// Lowered at start to what the process's open-file limit leaves room for.
    pub max_connections: usize,
    /// `ONCENOTE_MAX_CONNECTIONS_PER_ADDRESS`: connections open at once from one client
    /// address (an IPv6 address counted by its /64); past it the address gets 429. Behind
    /// a trusted proxy, requests in flight per forwarded address. `0`: no bound.
    pub max_per_address: usize,
    /// `ONCENOTE_SEND_TIMEOUT_SECS`: how long an answer may wait for the client to take a
    /// byte of it before the connection is closed (a client that never reads).
    pub send_timeout: Duration,
    /// `ONCENOTE_ADMIN_USERNAME` and `ONCENOTE_ADMIN_PASSWORD`: the first admin, made at
    /// the first start (for installs without a person at the keyboard).
    pub admin: Option<(String, Secret)>,
    /// `ONCENOTE_SIGNUP`: `open` lets anyone make an account; `invite` (the default) lets
    /// only people an admin invited.
    pub signup_open: bool,
    /// `ONCENOTE_SESSION_DAYS`: a session ends after this long without use.
    pub session_lifetime: Duration,
    /// `ONCENOTE_SIGN_IN_MAX_FAILURES`: failed sign-ins to one account from one address
    /// within `sign_in_window` before that account is locked at that address (four times as
    /// many from anywhere lock it everywhere, five times as many from one address to any
    /// accounts lock the address; see `accounts::limits`).
    pub sign_in_max_failures: i64,
    /// `ONCENOTE_SIGN_IN_WINDOW_SECS`: the window failures are counted in.
    pub sign_in_window: Duration,
    /// `ONCENOTE_SIGN_IN_LOCKOUT_SECS`: how long a locked sign-in stays locked.
    pub sign_in_lockout: Duration,
    /// `ONCENOTE_TRUSTED_PROXIES`: addresses of reverse proxies whose `X-Forwarded-For` and
    /// `X-Forwarded-Proto` are believed (the client's address for sign-in limits, HTTPS for
    /// `Secure` cookies).
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// `ONCENOTE_DB_POOL_SIZE`: PostgreSQL connections per pool; a server process has two
    /// pools (writes, reads), so it opens at most twice this many (SQLite has one writer
    /// and a fixed set of readers).
    pub db_pool_size: u32,
    /// `ONCENOTE_DB_CONNECT_TIMEOUT_SECS`: how long to wait for a database connection
    /// (at start, and for a request when every pooled connection is busy).
    pub db_connect_timeout: Duration,
    /// `ONCENOTE_WRITE_BATCH`: on SQLite, how many writes that arrive together may share
    /// one commit (one fsync); `1` commits every write on its own. A lone write never
    /// waits for company.
    pub write_batch: usize,
    /// `ONCENOTE_SQLITE_MMAP_MB`: on SQLite, how much of the database file (in bytes here)
    /// the read connections map into memory and read without a system call per page
    /// (`PRAGMA mmap_size`); `0` reads it through `read()` as before. The mapped pages
    /// are the operating system's page cache, shared, not memory of the process's own.
    pub sqlite_mmap_bytes: u64,
    /// `ONCENOTE_PUBLIC_URL`: the address people use (for links printed and sent: setup,
    /// invitations); `https://…` also marks cookies `Secure`.
    pub public_url: Option<String>,
    /// `ONCENOTE_STREAMS_PER_PERSON`: live streams (`/api/events`) one person may hold open
    /// at once (tabs, devices); past it, 429 `too-many-streams`.
    pub streams_per_person: usize,
    /// `ONCENOTE_STREAMS_MAX`: live streams this process holds open at once; past it, 503
    /// `streams-full`. Each holds a connection: by default half of
    /// `ONCENOTE_MAX_CONNECTIONS`, at most 10,000.
    pub streams_max: usize,
    /// `ONCENOTE_RENAME_MAX_CHARS`: the most text (titles and bodies, in characters) one
    /// tag rename may rewrite (4,000,000); past it the rename is refused 422
    /// `rename-too-large`. On SQLite a rename holds every person's writes while it writes.
    pub rename_max_chars: u64,
    /// `ONCENOTE_STREAM_LIFETIME_SECS`: a live stream ends after this long (half an hour)
    /// and the browser opens the next from where it stood; shorter for a proxy that cuts
    /// long answers, or for the API fuzzer, which reads each stream to its end.
    pub stream_lifetime: Duration,
    /// `ONCENOTE_FEED_POLL_MS`: how often the live streams' backstop reads every person's
    /// latest seq, for a change no signal announced (a sweep, a notification missed).
    pub feed_poll: Duration,
    /// `ONCENOTE_FILE_MAX_BYTES`: the largest file one upload may bring (25 MiB); past it,
    /// 413 before the body is read (or as soon as it passes the limit).
    pub file_max_bytes: u64,
    /// `ONCENOTE_FILE_QUOTA_BYTES`: the bytes one person's files may take in all (1 GiB);
    /// past it, 413 `quota-exceeded`.
    pub file_quota_bytes: u64,
    /// `ONCENOTE_UPLOADS_PER_PERSON`: uploads one person may have running at once (4);
    /// past it, 429 `too-many-uploads`.
    pub uploads_per_person: usize,
    /// `ONCENOTE_UPLOADS_MAX`: uploads this process runs at once (16); past it, 503
    /// `uploads-full`. Each holds a spool file and a connection for as long as its body
    /// takes.
    pub uploads_max: usize,
    /// `ONCENOTE_UPLOAD_MIN_BYTES_PER_SEC`: the slowest average an upload (or an import)
    /// may keep once [`upload_rate_after`](Self::upload_rate_after) has passed (8 KiB/s);
    /// slower → 408. Without it a byte every 29 s (just inside the body timeout) holds an
    /// upload's place for its whole hour. 0 turns it off.
    pub upload_min_rate: u64,
    /// `ONCENOTE_UPLOAD_RATE_AFTER_SECS`: how long an upload may start slowly (60 s: a
    /// phone waking its radio) before its average rate is held to the minimum.
    pub upload_rate_after: Duration,
    /// `ONCENOTE_SPOOL_DIR`: where uploads are written while they arrive, before they are
    /// stored in the database (default: `oncenote-uploads` in the system's temporary
    /// folder). Needs room for `ONCENOTE_UPLOADS_MAX` files of the largest size.
    pub spool_dir: std::path::PathBuf,
    /// No environment variable: a cap on the SQLite database's size in pages
    /// (`PRAGMA max_page_count` on the write connection), so a test can fill the
    /// "disk" (SQLITE_FULL) without a small filesystem. `None` in every real run.
    pub sqlite_max_pages: Option<u32>,
    /// `ONCENOTE_SERVER_TIMING`: `on` adds `Server-Timing` (the server's time, in ms) to
    /// the search's answers; `off` (the default). Off because a search's time also
    /// depends a little on other people's notes (the index holds everyone's): a precise
    /// figure would help someone tell which words others use often.
    pub server_timing: bool,
}

/// A value that must never be printed (a password): `Debug` shows `[redacted]`; the code
/// that needs it reads it as a `&str`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

impl std::ops::Deref for Secret {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

/// The databases the server can use. Shown (`Display`, `Debug`) without its password, so
/// no log line or error message carries it; the store reads the URL itself to connect.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A `sqlite:` URL (the file and its folder are created on first start).
    Sqlite(String),
    /// A `postgres://` or `postgresql://` URL (the database must exist; its tables are made
    /// at the first start).
    Postgres(String),
}

impl DatabaseUrl {
    /// Reads a `DATABASE_URL`. A URL the server cannot serve is an error, never a file
    /// name: `postgres://…` once became a folder named `postgres:` here.
    pub fn parse(url: &str) -> anyhow::Result<Self> {
        let url = url.trim();
        let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("sqlite") => Ok(Self::Sqlite(url.to_owned())),
            Some("postgres" | "postgresql") => Ok(Self::Postgres(url.to_owned())),
            _ => bail!(
                "DATABASE_URL must be a sqlite: URL such as {DEFAULT_DATABASE_URL} or a \
                 postgres:// URL such as postgres://oncenote@localhost/oncenote, got {url:?}"
            ),
        }
    }

    /// `sqlite` or `postgres`: the backend's name, as `/healthz` reports it.
    pub fn backend(&self) -> &'static str {
        match self {
            DatabaseUrl::Sqlite(_) => "sqlite",
            DatabaseUrl::Postgres(_) => "postgres",
        }
    }
}

/// A URL without the password in it: `postgres://u:secret@h/db` → `postgres://u:***@h/db`,
/// and `…?password=secret` → `…?password=***`.
pub fn redacted(url: &str) -> String {
    let url = match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => match url[scheme + 3..at].split_once(':') {
            Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
            None => url.to_owned(),
        },
        _ => url.to_owned(),
    };
    match url.split_once('?') {
        Some((base, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name, _)) if name.eq_ignore_ascii_case("password") => {
                        format!("{name}=***")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{base}?{}", query.join("&"))
        }
        None => url,
    }
}

impl std::fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatabaseUrl::Sqlite(url) | DatabaseUrl::Postgres(url) => f.write_str(&redacted(url)),
        }
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatabaseUrl({self})")
    }
}

pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/oncenote.db";

/// Each person's room for files by default: 1 GiB.
pub const FILE_QUOTA_BYTES_DEFAULT: u64 = 1024 * 1024 * 1024;

/// How much of a SQLite database its read connections map by default: none. Mapping
/// speeds a search over 100,000 notes by a quarter, but SQLite drops a reader's mapping
/// whenever a commit changed the file, and whether that costs the write path more than
/// it saves was not settled by the benchmark on a noisy machine (README).
pub const SQLITE_MMAP_MB_DEFAULT: u64 = 0;

/// The most text one tag rename may rewrite by default: 40 notes at the longest a note may
/// be, or 4,000 notes of 1,000 characters (README, "Benchmarking": the writer's time on it).
pub const RENAME_MAX_CHARS_DEFAULT: u64 = 4_000_000;

/// Connections one client address may hold open by default: a household behind one
/// address with a few devices and tabs (six connections a browser, a live stream a tab)
/// stays well inside it; one client cannot take more than a sliver of the 4,096.
pub const MAX_PER_ADDRESS_DEFAULT: u64 = 64;

/// `ONCENOTE_SQLITE_MMAP_MB` in bytes. SQLite maps at most 2 GiB less 64 KiB (its build's
/// `SQLITE_MAX_MMAP_SIZE`) and would quietly map less than asked past that: refused here.
fn sqlite_mmap_bytes(mb: u64) -> anyhow::Result<u64> {
    if mb > 2047 {
        bail!("ONCENOTE_SQLITE_MMAP_MB is {mb}; at most 2047 is accepted (SQLite maps no more)");
    }
    Ok(mb << 20)
}

/// Where uploads are spooled by default: `oncenote-uploads` in the temporary folder.
pub fn default_spool_dir() -> std::path::PathBuf {
    std::env::temp_dir().join("oncenote-uploads")
}

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
        // At least a day: a file is uploaded before the note that shows it is saved (and
        // an offline device may send that note much later); with no grace at all the sweep
        // could take the file in between.
        let file_grace_days = days("ONCENOTE_FILE_GRACE_DAYS", 7)?;
        if file_grace_days < 1 {
            bail!(
                "ONCENOTE_FILE_GRACE_DAYS is {file_grace_days}; at least 1 is needed, or a file could be swept before the note that shows it arrives"
            );
        }
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
            tombstone_retention: Duration::from_secs(
                days("ONCENOTE_TOMBSTONE_DAYS", 365)?.max(1) * 86_400,
            ),
            file_grace: Duration::from_secs(file_grace_days * 86_400),
            build_id: var("ONCENOTE_BUILD_ID"),
            allowed_hosts: var("ONCENOTE_ALLOWED_HOSTS")
                .map(|list| parse_hosts(&list))
                .transpose()?
                .unwrap_or_default(),
            header_timeout: Duration::from_secs(number("ONCENOTE_HEADER_TIMEOUT_SECS", 10)?.max(1)),
            max_connections: number("ONCENOTE_MAX_CONNECTIONS", 4096)?.clamp(1, 1_000_000) as usize,
            max_per_address: number("ONCENOTE_MAX_CONNECTIONS_PER_ADDRESS", MAX_PER_ADDRESS_DEFAULT)?
                .min(1_000_000) as usize,
            send_timeout: Duration::from_secs(number("ONCENOTE_SEND_TIMEOUT_SECS", 30)?.max(1)),
            body_timeout: Duration::from_secs(number("ONCENOTE_BODY_TIMEOUT_SECS", 30)?.max(1)),
            admin: match (var("ONCENOTE_ADMIN_USERNAME"), var("ONCENOTE_ADMIN_PASSWORD")) {
                (Some(user), Some(password)) => Some((user, Secret(password))),
                (None, None) => None,
                _ => bail!(
                    "set both ONCENOTE_ADMIN_USERNAME and ONCENOTE_ADMIN_PASSWORD, or neither"
                ),
            },
            signup_open: match var("ONCENOTE_SIGNUP").as_deref().map(str::trim) {
                None | Some("invite") => false,
                Some("open") => true,
                Some(other) => bail!("ONCENOTE_SIGNUP is open or invite, got {other:?}"),
            },
            server_timing: match var("ONCENOTE_SERVER_TIMING").as_deref().map(str::trim) {
                None | Some("off") => false,
                Some("on") => true,
                Some(other) => bail!("ONCENOTE_SERVER_TIMING is on or off, got {other:?}"),
            },
            session_lifetime: Duration::from_secs(days("ONCENOTE_SESSION_DAYS", 30)?.max(1) * 86_400),
            sign_in_max_failures: number("ONCENOTE_SIGN_IN_MAX_FAILURES", 5)?.clamp(1, 1000) as i64,
            sign_in_window: Duration::from_secs(number("ONCENOTE_SIGN_IN_WINDOW_SECS", 900)?.max(1)),
            sign_in_lockout: Duration::from_secs(number("ONCENOTE_SIGN_IN_LOCKOUT_SECS", 900)?.max(1)),
            trusted_proxies: var("ONCENOTE_TRUSTED_PROXIES")
                .map(|list| {
                    list.split(',')
                        .map(str::trim)
                        .filter(|a| !a.is_empty())
                        .map(|a| {
                            a.parse().with_context(|| {
                                format!("ONCENOTE_TRUSTED_PROXIES takes IP addresses, got {a:?}")
                            })
                        })
                        .collect::<anyhow::Result<Vec<_>>>()
                })
                .transpose()?
                .unwrap_or_default(),
            db_pool_size: number("ONCENOTE_DB_POOL_SIZE", 8)?.clamp(1, 1000) as u32,
            db_connect_timeout: Duration::from_secs(
                number("ONCENOTE_DB_CONNECT_TIMEOUT_SECS", 10)?.max(1),
            ),
            write_batch: number("ONCENOTE_WRITE_BATCH", 64)?.clamp(1, 1024) as usize,
            sqlite_mmap_bytes: sqlite_mmap_bytes(number(
                "ONCENOTE_SQLITE_MMAP_MB",
                SQLITE_MMAP_MB_DEFAULT,
            )?)?,
            sqlite_max_pages: None,
            file_max_bytes: number("ONCENOTE_FILE_MAX_BYTES", app::api::FILE_MAX_BYTES_DEFAULT)?
                .max(1),
            file_quota_bytes: number("ONCENOTE_FILE_QUOTA_BYTES", FILE_QUOTA_BYTES_DEFAULT)?,
            uploads_per_person: number("ONCENOTE_UPLOADS_PER_PERSON", 4)?.clamp(1, 10_000) as usize,
            uploads_max: number("ONCENOTE_UPLOADS_MAX", 16)?.clamp(1, 100_000) as usize,
            upload_min_rate: number("ONCENOTE_UPLOAD_MIN_BYTES_PER_SEC", 8 * 1024)?,
            upload_rate_after: Duration::from_secs(number("ONCENOTE_UPLOAD_RATE_AFTER_SECS", 60)?),
            spool_dir: var("ONCENOTE_SPOOL_DIR")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(default_spool_dir),
            streams_per_person: number("ONCENOTE_STREAMS_PER_PERSON", 16)?.clamp(1, 100_000) as usize,
            // By default half the connections at most, so streams never take them all.
            streams_max: number(
                "ONCENOTE_STREAMS_MAX",
                (number("ONCENOTE_MAX_CONNECTIONS", 4096)? / 2).clamp(1, 10_000),
            )?
            .clamp(1, 1_000_000) as usize,
            feed_poll: Duration::from_millis(number("ONCENOTE_FEED_POLL_MS", 2_000)?.clamp(100, 3_600_000)),
            stream_lifetime: Duration::from_secs(
                number("ONCENOTE_STREAM_LIFETIME_SECS", 1_800)?.clamp(1, 86_400),
            ),
            rename_max_chars: number("ONCENOTE_RENAME_MAX_CHARS", RENAME_MAX_CHARS_DEFAULT)?,
            public_url: var("ONCENOTE_PUBLIC_URL")
                .map(|url| {
                    let url = url.trim().trim_end_matches('/').to_owned();
                    if url.starts_with("http://") || url.starts_with("https://") {
                        Ok(url)
                    } else {
                        Err(anyhow::anyhow!(
                            "ONCENOTE_PUBLIC_URL is an address such as https://notes.example.com, got {url:?}"
                        ))
                    }
                })
                .transpose()?,
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
            tombstone_retention: Duration::from_secs(365 * 86_400),
            file_grace: Duration::from_secs(7 * 86_400),
            build_id: None,
            allowed_hosts: Vec::new(),
            header_timeout: Duration::from_secs(10),
            max_connections: 4096,
            max_per_address: MAX_PER_ADDRESS_DEFAULT as usize,
            send_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            admin: None,
            signup_open: false,
            server_timing: false,
            session_lifetime: Duration::from_secs(30 * 86_400),
            sign_in_max_failures: 5,
            sign_in_window: Duration::from_secs(900),
            sign_in_lockout: Duration::from_secs(900),
            trusted_proxies: Vec::new(),
            db_pool_size: 8,
            db_connect_timeout: Duration::from_secs(10),
            write_batch: 64,
            public_url: None,
            sqlite_mmap_bytes: SQLITE_MMAP_MB_DEFAULT << 20,
            sqlite_max_pages: None,
            file_max_bytes: app::api::FILE_MAX_BYTES_DEFAULT,
            file_quota_bytes: FILE_QUOTA_BYTES_DEFAULT,
            uploads_per_person: 4,
            uploads_max: 16,
            upload_min_rate: 8 * 1024,
            upload_rate_after: Duration::from_secs(60),
            spool_dir: default_spool_dir(),
            streams_per_person: 16,
            streams_max: 10_000,
            feed_poll: Duration::from_millis(2_000),
            stream_lifetime: Duration::from_secs(1_800),
            rename_max_chars: RENAME_MAX_CHARS_DEFAULT,
        }
    }

    /// Whether people reach the server over HTTPS (by its public address).
    pub fn public_https(&self) -> bool {
        self.public_url
            .as_deref()
            .is_some_and(|url| url.starts_with("https://"))
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
    fn sqlite_reads_map_nothing_by_default_and_any_size_up_to_sqlites_limit_when_asked() {
        assert_eq!(config(&[]).unwrap().sqlite_mmap_bytes, 0);
        let set = |v: &str| config(&[("ONCENOTE_SQLITE_MMAP_MB", v)]);
        assert_eq!(set("256").unwrap().sqlite_mmap_bytes, 256 << 20);
        assert_eq!(set("0").unwrap().sqlite_mmap_bytes, 0);
        assert_eq!(set("2047").unwrap().sqlite_mmap_bytes, 2047 << 20);
        let too_big = set("4096").unwrap_err().to_string();
        assert!(too_big.contains("at most 2047"), "{too_big}");
        assert!(set("lots").is_err());
    }

    #[test]
    fn the_database_url_picks_the_backend_and_anything_else_stops_the_start() {
        let pg = config(&[("DATABASE_URL", "postgres://localhost/notes")]).unwrap();
        assert_eq!(
            pg.database,
            DatabaseUrl::Postgres("postgres://localhost/notes".into())
        );
        assert_eq!(pg.database.backend(), "postgres");
        let pg = config(&[("DATABASE_URL", "postgresql://u@h/n")]).unwrap();
        assert_eq!(pg.database.backend(), "postgres");
        for wrong in ["data/notes.db", "mysql://localhost/notes"] {
            let error = config(&[("DATABASE_URL", wrong)]).unwrap_err().to_string();
            assert!(
                error.contains("sqlite:") && error.contains("postgres://"),
                "{error}"
            );
        }
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
    fn a_file_grace_of_less_than_a_day_stops_the_start() {
        let error = config(&[("ONCENOTE_FILE_GRACE_DAYS", "0")])
            .unwrap_err()
            .to_string();
        assert!(error.contains("ONCENOTE_FILE_GRACE_DAYS"), "{error}");
        let one = config(&[("ONCENOTE_FILE_GRACE_DAYS", "1")]).unwrap();
        assert_eq!(one.file_grace, Duration::from_secs(86_400));
    }

    #[test]
    fn a_configuration_printed_for_debugging_never_shows_the_admin_password() {
        let config = config(&[
            ("ONCENOTE_ADMIN_USERNAME", "ada"),
            ("ONCENOTE_ADMIN_PASSWORD", "correct horse battery staple"),
        ])
        .unwrap();
        let printed = format!("{config:?}");
        assert!(!printed.contains("correct horse"), "{printed}");
        assert!(printed.contains("ada"), "{printed}");
    }

    #[test]
    fn the_first_admin_needs_both_a_name_and_a_password() {
        assert!(config(&[("ONCENOTE_ADMIN_USERNAME", "ada")]).is_err());
        let both = config(&[
            ("ONCENOTE_ADMIN_USERNAME", "ada"),
            ("ONCENOTE_ADMIN_PASSWORD", "long enough"),
        ])
        .unwrap();
        assert_eq!(both.admin, Some(("ada".into(), "long enough".into())));
        assert!(config(&[("ONCENOTE_SIGNUP", "maybe")]).is_err());
        assert!(config(&[("ONCENOTE_SERVER_TIMING", "yes")]).is_err());
        assert!(
            config(&[("ONCENOTE_SERVER_TIMING", "on")])
                .unwrap()
                .server_timing
        );
        assert!(!config(&[]).unwrap().server_timing);
        assert!(config(&[("ONCENOTE_PUBLIC_URL", "notes.example.com")]).is_err());
        assert!(config(&[("ONCENOTE_TRUSTED_PROXIES", "127.0.0.1, ::1")]).is_ok());
        assert!(config(&[("ONCENOTE_TRUSTED_PROXIES", "localhost")]).is_err());
    }

    #[test]
    fn allowed_hosts_are_bare_lower_case_names() {
        let parsed = config(&[("ONCENOTE_ALLOWED_HOSTS", "Notes.Example.com, other.org")]).unwrap();
        assert_eq!(parsed.allowed_hosts, ["notes.example.com", "other.org"]);
        assert!(config(&[("ONCENOTE_ALLOWED_HOSTS", "https://notes.example.com")]).is_err());
    }

    #[test]
    fn a_database_url_never_shows_its_password() {
        for url in [
            "postgres://oncenote:hunter2secret@db.example/notes",
            "postgresql://db.example/notes?user=oncenote&password=hunter2secret",
        ] {
            let parsed = DatabaseUrl::parse(url).unwrap();
            for shown in [parsed.to_string(), format!("{parsed:?}")] {
                assert!(!shown.contains("hunter2secret"), "{shown}");
                assert!(shown.contains("db.example/notes"), "{shown}");
            }
        }
        let sqlite = DatabaseUrl::parse("sqlite://data/oncenote.db").unwrap();
        assert_eq!(sqlite.to_string(), "sqlite://data/oncenote.db");
    }
}
