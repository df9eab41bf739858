//! The database a test app runs on: SQLite (a file in a temporary folder) by default, or
//! PostgreSQL when `ONCENOTE_TEST_DATABASE=postgres` — a fresh database on the server at
//! `ONCENOTE_TEST_PG_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`), made
//! for the test and dropped after it. Tests read and poke the database through an
//! `AnyPool` with SQL both databases take (`$1` parameters); the few things that differ
//! (injected failures, holding a lock) are methods here.

use std::sync::Once;
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
            Backend::Postgres => {
                let name = format!("oncenote_test_{}", uuid::Uuid::new_v4().simple());
                let mut admin = admin_connection().await;
                admin
                    .execute(format!("CREATE DATABASE {name}").as_str())
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
        // Outside the test's runtime (it may be ending): a thread with its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let mut admin = admin_connection().await;
                let _ = tokio::time::timeout(
                    Duration::from_secs(20),
                    admin.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str()),
                )
                .await;
                admin.close().await.ok();
            });
        });
        let _ = dropped.join();
    }
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
