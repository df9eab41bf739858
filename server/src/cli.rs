//! The command line: `server` serves the app; `server check-config` says whether the
//! configuration in the environment would start, and with what; `server healthcheck` asks
//! the running server for `/healthz` (the container's HEALTHCHECK); `server backup PATH`
//! writes a consistent copy of the database while the server runs.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use crate::accounts;
use crate::config::{Config, DatabaseUrl, redacted};
use crate::storage::sqlite::backup;

/// Every variable the server reads (each is documented in the README and in
/// `deploy/oncenote.env.example`).
const ENVIRONMENT: &str = "\
Configuration comes from the environment; nothing is required:
  DATABASE_URL                   sqlite://data/oncenote.db (default) or postgres://…
  LEPTOS_SITE_ADDR               address to listen on (127.0.0.1:3000)
  LEPTOS_SITE_ROOT               the built site with pkg/ (target/site)
  ONCENOTE_PUBLIC_URL            the address people use (links; https:// → Secure cookies)
  ONCENOTE_ALLOWED_HOSTS         host names answered besides IPs and localhost
  ONCENOTE_TRUSTED_PROXIES       proxy addresses whose X-Forwarded-* are believed
  ONCENOTE_ADMIN_USERNAME        the first admin, made at the first start ...
  ONCENOTE_ADMIN_PASSWORD        ... with this password (else a setup link is printed)
  ONCENOTE_SIGNUP                invite (default) or open
  ONCENOTE_SESSION_DAYS          a session ends after this many days unused (30)
  ONCENOTE_SIGN_IN_MAX_FAILURES  failed sign-ins to one account from one address
                                 before a lockout there (5; x4 from anywhere)
  ONCENOTE_SIGN_IN_WINDOW_SECS   the window they are counted in (900)
  ONCENOTE_SIGN_IN_LOCKOUT_SECS  how long a lockout lasts (900)
  ONCENOTE_IDEMPOTENCY_TTL_SECS  how long a key's answer is kept (86400)
  ONCENOTE_KEY_WAIT_MS           wait for the write lock or a same-key request (5000)
  ONCENOTE_SWEEP_INTERVAL_SECS   how often expired keys and sessions are swept
                                 and the trash is emptied (300)
  ONCENOTE_TRASH_DAYS            the trash empties itself after this many days (30)
  ONCENOTE_TOMBSTONE_DAYS        a delete for good is remembered this many days (365)
  ONCENOTE_FILE_GRACE_DAYS       a file no note refers to is swept after this
                                 many days (7; at least 1)
  ONCENOTE_HEADER_TIMEOUT_SECS   time allowed for a request's headers (10)
  ONCENOTE_BODY_TIMEOUT_SECS     time allowed for a request's body (30); for a
                                 file upload, the longest wait for its next byte
  ONCENOTE_FILE_MAX_BYTES        the largest file an upload may bring (26214400)
  ONCENOTE_FILE_QUOTA_BYTES      the bytes one person's files may take (1073741824)
  ONCENOTE_UPLOADS_PER_PERSON    uploads one person may have running at once (4)
  ONCENOTE_UPLOADS_MAX           uploads this process runs at once (16)
  ONCENOTE_UPLOAD_MIN_BYTES_PER_SEC slowest average upload after its start, then 408
                                 (8192; 0: none)
  ONCENOTE_UPLOAD_RATE_AFTER_SECS how long an upload may start slowly (60)
  ONCENOTE_SPOOL_DIR             where uploads wait until stored (<temp>/oncenote-uploads)
  ONCENOTE_MAX_CONNECTIONS       connections open at once, then 503 (4096, less
                                 if the open-file limit leaves less room)
  ONCENOTE_MAX_CONNECTIONS_PER_ADDRESS  connections one client address may hold,
                                 then 429 (64; behind a trusted proxy, requests
                                 per forwarded address; 0: no bound)
  ONCENOTE_SEND_TIMEOUT_SECS     an answer the client takes no byte of for this
                                 long closes its connection (30)
  ONCENOTE_STREAMS_PER_PERSON    live streams one person may hold open (16)
  ONCENOTE_STREAMS_MAX           live streams this process holds open (half of
                                 ONCENOTE_MAX_CONNECTIONS, at most 10000)
  ONCENOTE_FEED_POLL_MS          how often live streams check for changes no
                                 signal announced (2000)
  ONCENOTE_STREAM_LIFETIME_SECS  a live stream ends after this long and the
                                 browser reconnects from where it stood (1800)
  ONCENOTE_RENAME_MAX_CHARS      the most text one tag rename rewrites (4000000)
  ONCENOTE_WRITE_BATCH           SQLite: writes that may share one commit (64)
  ONCENOTE_SQLITE_MMAP_MB        SQLite: MiB of the file its reads map (0; up to 2047)
  ONCENOTE_DB_POOL_SIZE          PostgreSQL connections per pool (8; two pools)
  ONCENOTE_DB_CONNECT_TIMEOUT_SECS  wait for a database connection (10)
  ONCENOTE_BUILD_ID              names the offline cache instead of asset hashes
  ONCENOTE_SERVER_TIMING         on: searches say the server's time (off)
  RUST_LOG                       log filter (info,sqlx=warn,tower_http=info)";

#[derive(Parser, Debug)]
#[command(
    name = "server",
    version,
    about = "oncenote: a notes server where a note you save is stored exactly once",
    after_help = ENVIRONMENT
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug, PartialEq, Eq)]
pub enum Command {
    /// Serve the app (what `server` does with no command).
    Serve,
    /// Read the configuration from the environment and say what is wrong with it, or
    /// what the server would run with. Exits 0 when it would start, 2 when not.
    CheckConfig,
    /// Ask the server running on this machine (at LEPTOS_SITE_ADDR) for /healthz. Exits 0
    /// when it answers 200, 1 otherwise (the container image's HEALTHCHECK).
    Healthcheck,
    /// Write a consistent copy of the database to PATH (a new file) while the server
    /// keeps running; the copy is checked before this returns.
    Backup {
        /// Where to write the copy; must not exist yet.
        path: PathBuf,
    },
    /// Copy everything from the SQLite database in DATABASE_URL into the PostgreSQL
    /// database at TARGET (made and migrated if new): accounts, sessions, notes, history,
    /// and every stored answer, keys unchanged. Copying twice adds nothing. Stop the
    /// server first.
    CopyTo {
        /// A postgres:// URL.
        target: String,
    },
}

/// `check-config`: the configuration, or what is wrong with it (`Err` holds every problem).
pub fn check_config(config: anyhow::Result<Config>) -> Result<Vec<String>, Vec<String>> {
    let config = config.map_err(|error| vec![format!("{error:#}")])?;
    let mut problems = Vec::new();
    let pkg = Path::new(&config.site_root).join("pkg");
    if !pkg.is_dir() {
        problems.push(format!(
            "LEPTOS_SITE_ROOT {:?} has no pkg/ folder: build the site (`cargo leptos build --release`) \
             or point LEPTOS_SITE_ROOT at it",
            config.site_root
        ));
    }
    if let Some((username, password)) = &config.admin {
        if let Err(error) = accounts::valid_username(username) {
            problems.push(format!("ONCENOTE_ADMIN_USERNAME: {error}"));
        }
        if let Err(error) = accounts::valid_password(password) {
            problems.push(format!("ONCENOTE_ADMIN_PASSWORD: {error}"));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut warnings = Vec::new();
    if !config.site_addr.ip().is_loopback() && config.public_url.is_none() {
        warnings.push(format!(
            "warning: LEPTOS_SITE_ADDR {} listens beyond this machine and ONCENOTE_PUBLIC_URL \
             is not set: links (setup, invitations) use the Host people type, and cookies are \
             Secure only behind a trusted proxy that says https",
            config.site_addr
        ));
    }
    let secs = |d: std::time::Duration| d.as_secs();
    let lines = vec![
        format!(
            "database          {}",
            redacted(&config.database.to_string())
        ),
        format!("listening on      {}", config.site_addr),
        format!("site files        {}", config.site_root),
        format!(
            "public address    {}",
            config
                .public_url
                .as_deref()
                .unwrap_or("(not set: links use the Host people type)")
        ),
        format!(
            "first admin       {}",
            match &config.admin {
                Some((name, _)) => format!("{name} (from the environment)"),
                None => "a setup link is printed at start while there is no account".to_owned(),
            }
        ),
        format!(
            "signup            {}",
            if config.signup_open {
                "open to anyone"
            } else {
                "by invitation"
            }
        ),
        format!(
            "sessions          end after {} days unused",
            secs(config.session_lifetime) / 86_400
        ),
        format!("idempotency keys  kept {} s", secs(config.idempotency_ttl)),
        format!(
            "trash             emptied after {} days",
            secs(config.trash_retention) / 86_400
        ),
        format!(
            "deletes for good  remembered {} days",
            secs(config.tombstone_retention) / 86_400
        ),
        format!(
            "unused files      swept after {} days",
            secs(config.file_grace) / 86_400
        ),
    ];
    Ok(lines.into_iter().chain(warnings).collect())
}

/// `copy-to TARGET`: what was copied, table by table.
pub async fn copy_to(config: &Config, target: &str) -> anyhow::Result<String> {
    let DatabaseUrl::Sqlite(source_url) = &config.database else {
        anyhow::bail!("copy-to reads a SQLite database: set DATABASE_URL to its sqlite: URL");
    };
    let DatabaseUrl::Postgres(target_url) = DatabaseUrl::parse(target)? else {
        anyhow::bail!("copy-to writes to PostgreSQL: TARGET is a postgres:// URL");
    };
    let file = source_url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .split('?')
        .next()
        .unwrap_or_default();
    if !std::path::Path::new(file).is_file() {
        anyhow::bail!("there is no SQLite database at {file:?} (DATABASE_URL {source_url:?})");
    }
    let source = crate::storage::sqlite::SqliteStore::open(
        source_url,
        config.key_wait,
        config.write_batch,
        config.sqlite_mmap_bytes,
        None,
    )
    .await?;
    let target = crate::storage::postgres::PgStore::open(&target_url, config).await?;
    let report = crate::storage::transfer::copy(&source, &target).await;
    source.close().await;
    target.close().await;
    Ok(format!(
        "copied {} to {}:\n{}",
        redacted(source_url),
        redacted(&target_url),
        report?
    ))
}

/// `backup PATH`: the copy, described.
pub async fn backup(config: &Config, to: &Path) -> anyhow::Result<String> {
    match &config.database {
        DatabaseUrl::Sqlite(url) => {
            let report = backup::backup(url, to).await?;
            Ok(format!(
                "wrote {} ({} bytes): {} accounts, {} notes, {} revisions, {} files ({} bytes); \
                 integrity ok",
                to.display(),
                report.bytes,
                report.users,
                report.notes,
                report.revisions,
                report.files,
                report.file_bytes
            ))
        }
        DatabaseUrl::Postgres(_) => anyhow::bail!(
            "on PostgreSQL, back up with pg_dump (e.g. `pg_dump --format=custom --file=FILE \
             DATABASE_URL`), which takes a consistent snapshot while the servers run"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> anyhow::Result<Config> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        Config::from_lookup(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn the_help_lists_every_variable_the_configuration_reads() {
        let source = include_str!("config.rs");
        let names: std::collections::BTreeSet<&str> = source
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| {
                w.starts_with("ONCENOTE_") || w.starts_with("LEPTOS_SITE_") || *w == "DATABASE_URL"
            })
            .collect();
        assert!(names.len() > 15, "{names:?}");
        for name in names {
            assert!(ENVIRONMENT.contains(name), "{name} is missing from --help");
        }
    }

    #[test]
    fn the_commands_parse() {
        let parse = |args: &[&str]| Cli::try_parse_from(args).map(|c| c.command);
        assert_eq!(parse(&["server"]).unwrap(), None);
        assert_eq!(
            parse(&["server", "check-config"]).unwrap(),
            Some(Command::CheckConfig)
        );
        assert_eq!(
            parse(&["server", "healthcheck"]).unwrap(),
            Some(Command::Healthcheck)
        );
        assert_eq!(
            parse(&["server", "backup", "/tmp/b.db"]).unwrap(),
            Some(Command::Backup {
                path: "/tmp/b.db".into()
            })
        );
        assert!(
            parse(&["server", "backup"]).is_err(),
            "a backup needs a path"
        );
        assert!(parse(&["server", "serve-please"]).is_err());
    }

    #[test]
    fn check_config_names_each_problem() {
        let problems = check_config(config(&[
            ("LEPTOS_SITE_ROOT", "/nonexistent"),
            ("ONCENOTE_ADMIN_USERNAME", "ada"),
            ("ONCENOTE_ADMIN_PASSWORD", "short"),
        ]))
        .unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("LEPTOS_SITE_ROOT"));
        assert!(problems[1].contains("ONCENOTE_ADMIN_PASSWORD"));
        let unreadable = check_config(config(&[("ONCENOTE_TRASH_DAYS", "soon")])).unwrap_err();
        assert!(
            unreadable[0].contains("ONCENOTE_TRASH_DAYS"),
            "{unreadable:?}"
        );
    }

    #[test]
    fn check_config_describes_a_good_configuration() {
        let site = tempfile::tempdir().unwrap();
        std::fs::create_dir(site.path().join("pkg")).unwrap();
        let root = site.path().display().to_string();
        let lines = check_config(config(&[("LEPTOS_SITE_ROOT", &root)])).unwrap();
        assert!(lines[0].contains("sqlite://data/oncenote.db"), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("by invitation")));
        assert!(!lines.iter().any(|l| l.starts_with("warning")), "{lines:?}");
        let exposed = check_config(config(&[
            ("LEPTOS_SITE_ROOT", &root),
            ("LEPTOS_SITE_ADDR", "0.0.0.0:3000"),
        ]))
        .unwrap();
        assert!(
            exposed.last().unwrap().contains("ONCENOTE_PUBLIC_URL"),
            "{exposed:?}"
        );
    }

    #[test]
    fn a_password_in_the_database_url_is_never_printed() {
        let url = DatabaseUrl::parse("postgres://notes:secret@db:5432/notes").unwrap();
        assert_eq!(
            redacted(&url.to_string()),
            "postgres://notes:***@db:5432/notes"
        );
    }

    #[tokio::test]
    async fn a_backup_is_a_checked_copy_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("live.db").display());
        let store = crate::storage::Store::open(&Config::for_tests(url.clone()))
            .await
            .unwrap();
        let config = Config::for_tests(url);
        let to = dir.path().join("copy.db");
        // A file, as an upload stores it (its row, its chunk, its usage).
        let bytes = b"\x89PNG\r\n\x1a\nbacked up".to_vec();
        let spool = dir.path().join("upload");
        std::fs::write(&spool, &bytes).unwrap();
        let sha256 = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes));
        store
            .files()
            .insert_file(
                "someone",
                &sha256,
                bytes.len() as u64,
                "image/png",
                &spool,
                1 << 20,
                "2026-12-01T00:00:00.000000Z",
            )
            .await
            .unwrap();
        let said = backup(&config, &to).await.unwrap();
        assert!(
            said.contains("0 notes")
                && said.contains(&format!("1 files ({} bytes)", bytes.len()))
                && said.contains("integrity ok"),
            "{said}"
        );
        let copy =
            crate::storage::Store::open(&Config::for_tests(format!("sqlite://{}", to.display())))
                .await
                .unwrap();
        let chunks = copy
            .files()
            .file_chunks("someone", &sha256, 0, 0)
            .await
            .unwrap();
        assert_eq!(chunks.concat(), bytes, "the backup holds the file's bytes");
        copy.close().await;
        let again = backup(&config, &to).await.unwrap_err();
        assert!(again.to_string().contains("never overwrites"), "{again}");
        store.close().await;
    }

    #[tokio::test]
    async fn a_backup_carries_the_files_in_notes_with_all_their_bytes() {
        use crate::storage::files::FileInsert;
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("live.db").display());
        let config = Config::for_tests(url);
        let store = crate::storage::Store::open(&config).await.unwrap();
        let spool = dir.path().join("upload");
        let bytes: Vec<u8> = (0..600_000u32).map(|n| n as u8).collect();
        std::fs::write(&spool, &bytes).unwrap();
        let name = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes));
        let stored = store
            .files()
            .insert_file(
                "someone",
                &name,
                600_000,
                "image/png",
                &spool,
                u64::MAX,
                "2026-12-01T00:00:00.000000Z",
            )
            .await
            .unwrap();
        assert!(matches!(stored, FileInsert::Stored(_)), "{stored:?}");
        let to = dir.path().join("copy.db");
        let said = backup(&config, &to).await.unwrap();
        assert!(said.contains("1 files (600000 bytes)"), "{said}");
        store.close().await;
    }
}
