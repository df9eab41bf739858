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
        // Outside the test's runtime (it may be ending).
        on_a_thread_of_its_own(async move {
            let mut admin = admin_connection().await;
            let _ = tokio::time::timeout(
                Duration::from_secs(20),
                admin.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str()),
            )
            .await;
            admin.close().await.ok();
        });
    }
}

/// Runs `work` to its end on a new thread with a runtime of its own, outside the calling
/// test's runtime.
fn on_a_thread_of_its_own<T: Send + 'static>(
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(work)
    })
    .join()
    .expect("the thread's work ends without a panic")
}

/// The migrated database every PostgreSQL test database is a copy of (`CREATE DATABASE …
/// TEMPLATE`): migrating a new database took about 0.6 s of each test, a copy takes
/// about 0.1 s. Made once per set of migrations, by the server's own `Store::open` (so it
/// is what a server starting on a new database makes), and named by the migrations' hash;
/// it stays on the PostgreSQL server for later runs, and making one drops the others.
fn migrated_template() -> &'static str {
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    TEMPLATE.get_or_init(|| on_a_thread_of_its_own(make_template()))
}

async fn make_template() -> String {
    let name = format!("oncenote_test_template_{}", migrations_hash());
    let mut admin = admin_connection().await;
    // Two runs of the suite at once make it once.
    admin
        .execute("SELECT pg_advisory_lock(7461504331)")
        .await
        .expect("the template's lock");
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut admin)
            .await
            .expect("the template is looked up");
    if !exists {
        // Made under another name and renamed when whole: a run that dies meanwhile
        // leaves no template half made.
        let making = format!("{name}_making");
        for statement in [
            format!("DROP DATABASE IF EXISTS {making} WITH (FORCE)"),
            format!("CREATE DATABASE {making}"),
        ] {
            admin
                .execute(statement.as_str())
                .await
                .expect("the template's database");
        }
        let config = server::config::Config::for_tests(database_url(&making));
        let store = server::storage::store::Store::open(&config)
            .await
            .expect("the server migrates the template");
        store.close().await;
        drop(store);
        // The store's listener leaves on its own; a template must have no one connected.
        for _ in 0..100 {
            let connected: i64 =
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
        admin
            .execute(format!("ALTER DATABASE {making} RENAME TO {name}").as_str())
            .await
            .expect("the template is named");
        let older: Vec<String> = sqlx::query_scalar(
            r"SELECT datname FROM pg_database
              WHERE datname LIKE 'oncenote\_test\_template\_%' AND datname <> $1",
        )
        .bind(&name)
        .fetch_all(&mut admin)
        .await
        .expect("the older templates are listed");
        for old in older {
            // Not forced: a run of another checkout may be copying it.
            let _ = admin
                .execute(format!("DROP DATABASE IF EXISTS {old}").as_str())
                .await;
        }
    }
    admin
        .execute("SELECT pg_advisory_unlock(7461504331)")
        .await
        .expect("the template's lock is released");
    admin.close().await.ok();
    name
}

/// The first 16 hex digits of the SHA-256 of the PostgreSQL migrations (names and text).
fn migrations_hash() -> String {
    use sha2::{Digest, Sha256};
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations/postgres");
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .expect("the migrations folder")
        .map(|entry| entry.expect("a migration").path())
        .collect();
    files.sort();
    let mut hash = Sha256::new();
    for file in files {
        hash.update(file.file_name().expect("a file name").as_encoded_bytes());
        hash.update(std::fs::read(&file).expect("a migration's text"));
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

async fn run(pool: &AnyPool, statements: &[&str]) {
    for statement in statements {
        sqlx::query(statement)
            .execute(pool)
            .await
            .unwrap_or_else(|error| panic!("{statement}: {error}"));
    }
}
