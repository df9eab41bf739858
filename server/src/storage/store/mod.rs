//! [`Store`]: the database the server runs on, and what it keeps grouped by concern.
//! Each group is a small view borrowed from the store (`store.notes()`, `store.search()`,
//! `store.accounts()`, `store.sessions()`, `store.api_tokens()`, `store.limits()`,
//! `store.sweeps()`, `store.files()`), one file here and one file per database
//! (`sqlite/`, `postgres/`); a new concern is a new group, not more methods on one list.
//! Opening, health and shutdown stay on [`Store`] itself.

/// Each method of a group hands the call to the database that runs; the handlers never
/// know which one it is. (Defined before the groups' modules so they can use it.)
macro_rules! delegate {
    ($group:ident { $( $(#[$attr:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty; )* }) => {
        impl $group<'_> {
            $(
                $(#[$attr])*
                pub async fn $name(&self $(, $arg: $ty)*) -> $ret {
                    match self.0 {
                        $crate::storage::store::Store::Sqlite(db) => db.$name($($arg),*).await,
                        $crate::storage::store::Store::Postgres(db) => db.$name($($arg),*).await,
                    }
                }
            )*
        }
    };
}

pub mod accounts;
pub mod api_tokens;
pub mod changes;
pub mod files;
pub mod limits;
pub mod notes;
pub mod search;
pub mod sessions;
pub mod sweeps;
pub mod tags;

use super::{postgres, sqlite};
use crate::config::{Config, DatabaseUrl};
use crate::storage::StorageError;

/// The database the server runs on.
#[derive(Clone)]
pub enum Store {
    Sqlite(sqlite::SqliteStore),
    Postgres(postgres::PgStore),
}

impl Store {
    /// Opens the database named by the configuration and migrates it.
    pub async fn open(config: &Config) -> anyhow::Result<Self> {
        match &config.database {
            DatabaseUrl::Sqlite(url) => Ok(Store::Sqlite(
                sqlite::SqliteStore::open(
                    url,
                    config.key_wait,
                    config.write_batch,
                    config.sqlite_mmap_bytes,
                    config.sqlite_max_pages,
                )
                .await?,
            )),
            DatabaseUrl::Postgres(url) => {
                Ok(Store::Postgres(postgres::PgStore::open(url, config).await?))
            }
        }
    }

    /// How many write transactions (groups of writes) SQLite has committed since the
    /// start; PostgreSQL commits each write on its own and does not count.
    pub fn write_commits(&self) -> Option<u64> {
        match self {
            Store::Sqlite(db) => Some(db.write_commits()),
            Store::Postgres(_) => None,
        }
    }

    /// `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    /// Whether the database answers a query.
    pub async fn ping(&self) -> Result<(), StorageError> {
        match self {
            Store::Sqlite(db) => db.ping().await,
            Store::Postgres(db) => db.ping().await,
        }
    }

    /// Closes every connection (at shutdown).
    pub async fn close(&self) {
        match self {
            Store::Sqlite(db) => db.close().await,
            Store::Postgres(db) => db.close().await,
        }
    }
}
