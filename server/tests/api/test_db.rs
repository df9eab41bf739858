//! The database a test app runs on: SQLite (a file in a temporary folder) by default, or
//! PostgreSQL when `ONCENOTE_TEST_DATABASE=postgres` — a database of its own on the server
//! at `ONCENOTE_TEST_PG_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`), a copy
//! of a migrated template made for the test and dropped after it. Tests read and poke the database through an
//! `AnyPool` with SQL both databases take (`$1` parameters); the few things that differ
//! (injected failures, holding a lock) are methods here.

use std::sync::{Once, OnceLock};
use std::time::Duration;

use sqlx::{AnyConnection, AnyPool, Connection, Executor};
use tempfile::TempDir;

/// Which database the suite runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The backend this run of the suite tests (`ONCENOTE_TEST_DATABASE`).
pub fn backend() -> Backend {
    match std::env::var("ONCENOTE_TEST_DATABASE").as_deref() {
        Ok("postgres") => Backend::Postgres,
        Ok("sqlite") | Err(_) => Backend::Sqlite,
        Ok(other) => panic!("ONCENOTE_TEST_DATABASE is sqlite or postgres, got {other:?}"),
    }
}

/// The PostgreSQL server the tests make their databases on.
pub fn postgres_server() -> String {
    std::env::var("ONCENOTE_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A test's own database, removed when dropped.
pub struct TestDb {
    pub url: String,
    pub backend: Backend,
    /// SQLite: the folder holding the file.
    _dir: Option<TempDir>,
    /// PostgreSQL: the database's name, dropped at the end.
    pg_name: Option<String>,
}

impl TestDb {
    /// A database on the backend this run tests.
    pub async fn new() -> Self {
        Self::on(backend()).await
    }

    /// A database on `backend`.
    pub async fn on(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("a temporary folder");
                let url = format!("sqlite://{}", dir.path().join("oncenote.db").display());
                Self {
                    url,
                    backend: Backend::Sqlite,
                    _dir: Some(dir),
                    pg_name: None,
                }
            }
            Backend::Postgres => Self::postgres(Some(migrated_template())).await,
        }
    }

    /// A database on `backend` with nothing in it, not even the migrations: for tests of
    /// what the server does with a new database. (On PostgreSQL, [`Self::on`] copies a
    /// migrated one; on SQLite every test's database is a new file.)
    pub async fn unmigrated(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => Self::on(Backend::Sqlite).await,
            Backend::Postgres => Self::postgres(None).await,
        }
    }

    /// A new PostgreSQL database, a copy of `template` if one is named.
    async fn postgres(template: Option<&str>) -> Self {
        let name = format!("oncenote_test_{}", uuid::Uuid::new_v4().simple());
        let copy_of = template
            .map(|t| format!(" TEMPLATE {t}"))
            .unwrap_or_default();
        let mut admin = admin_connection().await;
        admin
            .execute(format!("CREATE DATABASE {name}{copy_of}").as_str())
            .await
            .expect("the test creates its database");
        admin.close().await.ok();
        Self {
            url: database_url(&name),
            backend: Backend::Postgres,
            _dir: None,
            pg_name: Some(name),
        }
    }

    /// The test's own connections to the database.
    pub async fn pool(&self) -> AnyPool {
        install_drivers();
        AnyPool::connect(&self.url)
            .await
            .expect("the test opens the database")
    }

    /// Makes the transaction of every note insert fail right after the insert.
    pub async fn fail_note_inserts(&self, pool: &AnyPool) {
        let statements: &[&str] = match self.backend {
            Backend::Sqlite => &["CREATE TRIGGER fail_storing_answer AFTER INSERT ON notes \
                 BEGIN SELECT RAISE(ABORT, 'injected failure after the note insert'); END"],
            Backend::Postgres => &[
                "CREATE FUNCTION fail_after_note() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'injected failure after the note insert'; END $$",
                "CREATE TRIGGER fail_storing_answer AFTER INSERT ON notes \
                 FOR EACH ROW EXECUTE FUNCTION fail_after_note()",
            ],
        };
        run(pool, statements).await;
    }

    /// Undoes [`Self::fail_note_inserts`].
    pub async fn stop_failing_note_inserts(&self, pool: &AnyPool) {
        let statements: &[&str] = match self.backend {
            Backend::Sqlite => &["DROP TRIGGER fail_storing_answer"],
            Backend::Postgres => &["DROP TRIGGER fail_storing_answer ON notes"],
        };
        run(pool, statements).await;
    }

    /// Makes every note insert take a second or more, so a request can be held inside
    /// its transaction.
    pub async fn slow_down_note_inserts(&self, pool: &AnyPool) {
        let statements: &[&str] = match self.backend {
            // A trigger that counts to 30 million.
            Backend::Sqlite => &["CREATE TRIGGER slow_insert AFTER INSERT ON notes BEGIN \
                 SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 \
                 FROM c WHERE x < 30000000) SELECT x FROM c); END"],
            Backend::Postgres => &[
                "CREATE FUNCTION slow_note() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN PERFORM pg_sleep(1.2); RETURN NEW; END $$",
                "CREATE TRIGGER slow_insert AFTER INSERT ON notes \
                 FOR EACH ROW EXECUTE FUNCTION slow_note()",
            ],
        };
        run(pool, statements).await;
    }

    /// Another writer takes the database's write lock (SQLite: `BEGIN IMMEDIATE`) or,
    /// on PostgreSQL, a lock on the notes that lets reads through and holds every write
    /// (`LOCK TABLE notes IN EXCLUSIVE MODE`), until the returned connection rolls back.
    pub async fn hold_the_write_lock(&self) -> AnyConnection {
        install_drivers();
        let mut holder = AnyConnection::connect(&self.url)
            .await
            .expect("a second connection");
        let statements: &[&str] = match self.backend {
            Backend::Sqlite => &["BEGIN IMMEDIATE"],
            Backend::Postgres => &["BEGIN", "LOCK TABLE notes IN EXCLUSIVE MODE"],
        };
        for statement in statements {
            holder.execute(*statement).await.expect("the lock is taken");
        }
        holder
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Some(name) = self.pg_name.take() else {
            return;
        };
        // Outside the test's runtime (it may be ending), and never a panic here: a drop
        // during a failing test's unwinding that panicked would abort the whole run.
        let dropped = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async move {
                install_drivers();
                let Ok(mut admin) = AnyConnection::connect(&postgres_server()).await else {
                    eprintln!("test database {name} left behind: no connection to drop it");
                    return;
                };
                let dropped = tokio::time::timeout(
                    Duration::from_secs(20),
                    admin.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str()),
                )
                .await;
                if !matches!(dropped, Ok(Ok(_))) {
                    eprintln!("test database {name} left behind: {dropped:?}");
                }
                admin.close().await.ok();
            });
        });
        let _ = dropped.join();
    }
}

/// The migrated database every PostgreSQL test database is a copy of (`CREATE DATABASE …
/// TEMPLATE`): migrating a new database took about 0.6 s of each test, a copy takes about
/// 0.1 s. Made by the server's own `Store::open` (what a server starting on a new database
/// makes), once per set of migrations and `Cargo.lock` (sqlx owns `_sqlx_migrations`), and
/// named by their hash. It stays on the PostgreSQL server for later runs; a run that makes
/// a new one drops the others no running suite is using.
fn migrated_template() -> &'static str {
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let (made, template) = std::sync::mpsc::channel();
        // A thread and a connection that live as long as this run: the connection holds a
        // shared lock on the template's key, so another run making its own leaves it be.
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let name = format!("oncenote_test_template_{}", template_hash());
                let mut keeper = admin_connection().await;
                keeper
                    .execute(
                        format!("SELECT pg_advisory_lock_shared({})", in_use_key(&name)).as_str(),
                    )
                    .await
                    .expect("the template's in-use lock");
                make_template(&name).await;
                let _ = made.send(name);
                std::future::pending::<()>().await;
            });
        });
        template
            .recv()
            .expect("the migrated template is made (the thread making it panicked)")
    })
}

/// The advisory lock one run of the suite holds shared on the template it copies (the
/// two-number form: apart from the server's own one-number locks).
fn in_use_key(template: &str) -> String {
    let hex = template.trim_start_matches("oncenote_test_template_");
    let number = u32::from_str_radix(hex.get(..8).unwrap_or("0"), 16).unwrap_or(0);
    format!("7461504, {}", number as i32)
}

async fn make_template(name: &str) {
    let mut admin = admin_connection().await;
    // Two runs of the suite at once make it once (advisory locks are per database: runs
    // whose URLs name different databases do not see each other's). Waiting is bounded:
    // a stuck session holding the lock fails the run with a message, not a hang.
    run_on(
        &mut admin,
        [
            "SET lock_timeout = '120s'".to_owned(),
            "SELECT pg_advisory_lock(7461504331)".to_owned(),
        ],
        "the template's lock (held by another session for 2 minutes?)",
    )
    .await;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(name)
            .fetch_one(&mut admin)
            .await
            .expect("the template is looked up");
    if !exists {
        // Made under another name and renamed when whole: a run that dies meanwhile
        // leaves no template half made.
        let making = format!("{name}_making");
        run_on(
            &mut admin,
            [
                format!("DROP DATABASE IF EXISTS {making} WITH (FORCE)"),
                format!("CREATE DATABASE {making}"),
            ],
            "the template's database",
        )
        .await;
        let config = server::config::Config::for_tests(database_url(&making));
        let store = server::storage::store::Store::open(&config)
            .await
            .expect("the server migrates the template");
        store.close().await;
        drop(store);
        // The store's listener leaves on its own; a template must have no one connected.
        let mut connected = 1_i64;
        for _ in 0..100 {
            connected =
                sqlx::query_scalar("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1")
                    .bind(&making)
                    .fetch_one(&mut admin)
                    .await
                    .expect("the template's connections are counted");
            if connected == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(connected, 0, "connections to {making} stayed open for 10 s");
        run_on(
            &mut admin,
            [
                format!("ALTER DATABASE {making} RENAME TO {name}"),
                // Copied only, never connected to (a connection would stop every copy).
                format!("ALTER DATABASE {name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"),
            ],
            "the template is named and closed",
        )
        .await;
        drop_unused_templates(&mut admin, name).await;
    }
    admin
        .execute("SELECT pg_advisory_unlock(7461504331)")
        .await
        .expect("the template's lock is released");
    admin.close().await.ok();
}

/// Drops the templates of other sets of migrations that no running suite holds.
async fn drop_unused_templates(admin: &mut AnyConnection, keep: &str) {
    let others: Vec<String> = sqlx::query_scalar(
        r"SELECT datname::text FROM pg_database
          WHERE datname LIKE 'oncenote\_test\_template\_%' AND datname <> $1",
    )
    .bind(keep)
    .fetch_all(&mut *admin)
    .await
    .expect("the other templates are listed");
    for other in others {
        let key = in_use_key(&other);
        let unused: bool = sqlx::query_scalar(&format!("SELECT pg_try_advisory_lock({key})"))
            .fetch_one(&mut *admin)
            .await
            .unwrap_or(false);
        if unused {
            for statement in [
                format!("ALTER DATABASE {other} WITH IS_TEMPLATE false"),
                format!("DROP DATABASE IF EXISTS {other}"),
            ] {
                let _ = admin.execute(statement.as_str()).await;
            }
            let _ = admin
                .execute(format!("SELECT pg_advisory_unlock({key})").as_str())
                .await;
        }
    }
}

/// The first 16 hex digits of the SHA-256 of the PostgreSQL migrations (names and text)
/// and `Cargo.lock`.
fn template_hash() -> String {
    use sha2::{Digest, Sha256};
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut files: Vec<_> = std::fs::read_dir(format!("{root}/migrations/postgres"))
        .expect("the migrations folder")
        .map(|entry| entry.expect("a migration").path())
        .collect();
    files.sort();
    files.push(format!("{root}/Cargo.lock").into());
    let mut hash = Sha256::new();
    for file in files {
        hash.update(file.file_name().expect("a file name").as_encoded_bytes());
        hash.update(std::fs::read(&file).expect("a migration's text, or Cargo.lock"));
    }
    hex::encode(&hash.finalize()[..8])
}

fn install_drivers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(sqlx::any::install_default_drivers);
}

/// `postgres://…/postgres` with another database name.
fn database_url(name: &str) -> String {
    let server = postgres_server();
    match server.rsplit_once('/') {
        Some((base, _)) => format!("{base}/{name}"),
        None => panic!("ONCENOTE_TEST_PG_URL {server:?} names no database"),
    }
}

async fn admin_connection() -> AnyConnection {
    install_drivers();
    let server = postgres_server();
    AnyConnection::connect(&server)
        .await
        .unwrap_or_else(|error| {
            panic!("PostgreSQL at {server} is needed for ONCENOTE_TEST_DATABASE=postgres: {error}")
        })
}

/// Runs `statements` in turn on the admin connection; `what` names them if one fails.
async fn run_on<const N: usize>(admin: &mut AnyConnection, statements: [String; N], what: &str) {
    for statement in statements {
        admin
            .execute(statement.as_str())
            .await
            .unwrap_or_else(|error| panic!("{what}: {statement}: {error}"));
    }
}

async fn run(pool: &AnyPool, statements: &[&str]) {
    for statement in statements {
        sqlx::query(statement)
            .execute(pool)
            .await
            .unwrap_or_else(|error| panic!("{statement}: {error}"));
    }
}
