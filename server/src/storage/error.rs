//! What can go wrong in the database, in storage's own terms. The layers above tell each
//! to the client (`error.rs`: `From<StorageError> for StorageError`); storage knows nothing
//! of HTTP.

/// A failure of a storage call.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A lock not free in time, or more writes waiting than the writer takes: nothing was
    /// written; the write can be tried again.
    #[error("the database is busy")]
    Busy,
    /// PostgreSQL aborted the transaction for a conflict with another one: nothing was
    /// written; the transaction can run again.
    #[error("the transaction met another one")]
    Conflict,
    /// The database cannot be reached (connection lost or refused, server restarting,
    /// pool closed or out of time).
    #[error("the database cannot be reached")]
    Unavailable,
    /// No room to write: a full disk, or the database's size limit.
    #[error("the disk or the database is full")]
    Full,
    /// Another request holds the idempotency key now (PostgreSQL waited `key_wait` for its
    /// row).
    #[error("a request with this key is being processed")]
    KeyInUse,
    /// The key holds the answer to another request.
    #[error("the key was used for another request")]
    KeyReused,
    /// Another request with this key stored its answer first (found when this write came
    /// to store its own, on SQLite): this write was rolled back, and the stored answer is
    /// the one to give. Not a failure of the write: someone else finished it.
    #[error("another request with this key finished first")]
    KeyTaken,
    /// The username is taken (a unique name, compared without case).
    #[error("the username is taken")]
    UsernameTaken,
    /// The work run inside a write transaction refused to go on, for a reason of its own
    /// (a note not found, a precondition): carried back unchanged, the transaction rolled
    /// back.
    #[error("{0}")]
    Refused(Box<dyn std::error::Error + Send + Sync>),
    /// Anything else: a bug or a broken database.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl StorageError {
    /// The class of database failure this is, if it is one.
    pub fn failure(&self) -> Option<DbFailure> {
        match self {
            StorageError::Conflict => Some(DbFailure::Conflict),
            StorageError::Busy => Some(DbFailure::Busy),
            StorageError::Unavailable => Some(DbFailure::Unavailable),
            StorageError::Full => Some(DbFailure::StorageFull),
            _ => None,
        }
    }
}

impl From<sqlx::Error> for StorageError {
    fn from(error: sqlx::Error) -> Self {
        DbFailure::of(&error).into_error(move || error.into())
    }
}

impl From<rusqlite::Error> for StorageError {
    fn from(error: rusqlite::Error) -> Self {
        DbFailure::of_rusqlite(&error).into_error(move || error.into())
    }
}

/// What a database error means: the one reading of `sqlx::Error` (and of `rusqlite::Error`,
/// the SQLite writer's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbFailure {
    /// PostgreSQL aborted the transaction for another one (`serialization_failure`,
    /// `deadlock_detected`): nothing was written; the transaction can run again.
    Conflict,
    /// A lock not free in time: SQLite's SQLITE_BUSY / SQLITE_LOCKED (and their extended
    /// codes), PostgreSQL's `lock_not_available` (past `lock_timeout`), `query_canceled`
    /// (past `statement_timeout`) and `too_many_connections`.
    Busy,
    /// The database cannot be reached: a connection lost or refused (an I/O error, a TLS
    /// or protocol failure), PostgreSQL shutting down, crashed or starting
    /// (`admin_shutdown`, `crash_shutdown`, `cannot_connect_now`, class 08), or a pool
    /// closed or out of time for a connection.
    Unavailable,
    /// No room to write: SQLite's SQLITE_FULL (a full disk, or the database's page
    /// limit), PostgreSQL's `disk_full` (53100).
    StorageFull,
    /// Anything else: a bug or a broken database, answered 500.
    Bug,
}

impl DbFailure {
    pub fn of(error: &sqlx::Error) -> Self {
        match error {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::WorkerCrashed => DbFailure::Unavailable,
            sqlx::Error::Database(db) => {
                let code = db.code();
                if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                    code.and_then(|c| c.parse::<i32>().ok())
                        .map_or(DbFailure::Bug, Self::of_sqlite_code)
                } else {
                    Self::of_sqlstate(code.as_deref().unwrap_or_default())
                }
            }
            _ => DbFailure::Bug,
        }
    }

    /// SQLite's result code (extended or primary: the primary code is the low byte).
    pub fn of_sqlite_code(code: i32) -> Self {
        match code & 0xff {
            5 | 6 => DbFailure::Busy,
            13 => DbFailure::StorageFull,
            _ => DbFailure::Bug,
        }
    }

    /// An error of the SQLite handle the writer runs its batches on (rusqlite's).
    pub fn of_rusqlite(error: &rusqlite::Error) -> Self {
        match error {
            rusqlite::Error::SqliteFailure(failure, _) => {
                Self::of_sqlite_code(failure.extended_code)
            }
            _ => DbFailure::Bug,
        }
    }

    /// PostgreSQL's SQLSTATE.
    pub fn of_sqlstate(code: &str) -> Self {
        match code {
            "40001" | "40P01" => DbFailure::Conflict,
            "55P03" | "57014" | "53300" => DbFailure::Busy,
            "53100" => DbFailure::StorageFull,
            "57P01" | "57P02" | "57P03" => DbFailure::Unavailable,
            c if c.starts_with("08") => DbFailure::Unavailable,
            _ => DbFailure::Bug,
        }
    }

    /// The error for this failure; `cause` is kept for the log of a bug.
    pub fn into_error(self, cause: impl FnOnce() -> anyhow::Error) -> StorageError {
        match self {
            DbFailure::Conflict => StorageError::Conflict,
            DbFailure::Busy => StorageError::Busy,
            DbFailure::Unavailable => StorageError::Unavailable,
            DbFailure::StorageFull => StorageError::Full,
            DbFailure::Bug => StorageError::Other(cause()),
        }
    }
}

/// Whether a database error is a lock not free in time (see [`DbFailure::Busy`]).
pub fn is_busy(error: &sqlx::Error) -> bool {
    DbFailure::of(error) == DbFailure::Busy
}
