//! Opening the PostgreSQL database: its two pools, the check that it syncs to disk, the
//! migrations, the search documents made again; and the store's health and shutdown.

use std::str::FromStr;

use std::sync::Arc;

use anyhow::Context;
use sqlx::Executor;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use tokio::sync::watch;

use super::PgStore;
use super::announcer::Announcer;
use super::search::{SEARCH_DOCUMENT, search_parts_of};
use super::sweeps::SWEEP_BATCH;
use crate::config::{Config, redacted};
use crate::storage::StorageError;
use crate::storage::feed::FeedSignal;
use crate::storage::rows::tags_column;

/// Reads are planned for storage where a read from anywhere costs little more than the
/// next page (an SSD, or the notes in memory): `random_page_cost` 1.1 for the reading
/// connections, unless the database's administrator set it (in the server's
/// configuration, for the database or for the role). With the default 4, a broad search
/// of a person with fewer notes than its window (`search::BROAD_WINDOW`) read all their
/// notes and sorted them on disk instead of walking the index that holds them in order
/// (search p99 at 10,000 notes 62 → 33 ms on the benchmark's notes).
const READS_FROM_FAST_STORAGE: &str = "SELECT set_config('random_page_cost', '1.1', false) \
     FROM pg_settings WHERE name = 'random_page_cost' AND source = 'default'";

impl PgStore {
    /// Connects and migrates (under sqlx's advisory lock: replicas starting together
    /// migrate once).
    pub async fn open(url: &str, config: &Config) -> anyhow::Result<Self> {
        let options = PgConnectOptions::from_str(url)
            .with_context(|| {
                format!(
                    "DATABASE_URL {} is not a valid postgres:// URL",
                    redacted(url)
                )
            })?
            .application_name("oncenote")
            // An answer goes out only for a write that is on disk (whatever the server's
            // default is).
            .options([("synchronous_commit", "on")]);
        let pools = PgPoolOptions::new()
            .max_connections(config.db_pool_size)
            .acquire_timeout(config.db_connect_timeout);
        // Starting up (the migrations wait for another replica's under an advisory lock,
        // for as long as they take): one connection of its own, without the writes' bound.
        let setup = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(config.db_connect_timeout)
            .connect_with(options.clone())
            .await
            .with_context(|| format!("could not connect to the database at {}", redacted(url)))?;
        let listener_options = options.clone();
        let announcer = Announcer::spawn(&options, config.db_connect_timeout);
        let reader = pools
            .clone()
            .after_connect(|connection, _| {
                Box::pin(async move {
                    // A planning hint: a database that refuses it still serves reads.
                    if let Err(error) = connection.execute(READS_FROM_FAST_STORAGE).await {
                        tracing::warn!(%error, "could not set random_page_cost for reads");
                    }
                    Ok(())
                })
            })
            .connect_lazy_with(options.clone());
        // A write waits for a lock another transaction holds for at most `key_wait`, on
        // every connection of the write pool, so that a write made in one statement,
        // outside an explicit transaction (`lone_insert`), is bounded too. Set once each
        // connection is made (not as a start-up option, which some poolers drop).
        let bound = format!(
            "SET lock_timeout = '{}ms'",
            config.key_wait.as_millis().max(1)
        );
        let pool = pools
            .after_connect(move |connection, _| {
                let bound = bound.clone();
                Box::pin(async move {
                    connection.execute(bound.as_str()).await?;
                    Ok(())
                })
            })
            .connect_lazy_with(options);
        let fsync: String = sqlx::query_scalar("SELECT current_setting('fsync')")
            .fetch_one(&setup)
            .await?;
        if fsync != "on" {
            anyhow::bail!(
                "the PostgreSQL server runs with fsync={fsync}: a write it acknowledged could \
                 be lost in a crash, which oncenote promises never happens; turn fsync on"
            );
        }
        sqlx::migrate!("../migrations/postgres")
            .run(&setup)
            .await
            .context("could not apply the database migrations")?;
        refold(&setup)
            .await
            .context("could not make the listed search documents again")?;
        fill_in_tags(&setup)
            .await
            .context("could not find the tags of notes written before tags")?;
        setup.close().await;
        let feed = FeedSignal::default();
        let (stop, stopped) = watch::channel(false);
        super::listen::spawn(&listener_options, feed.clone(), stopped);
        Ok(Self {
            announcer,
            pool,
            reader,
            feed,
            stop_listening: Arc::new(stop),
        })
    }

    pub async fn ping(&self) -> Result<(), StorageError> {
        sqlx::query_scalar::<_, i32>("SELECT 1")
            .fetch_one(&self.reader)
            .await?;
        Ok(())
    }

    pub async fn close(&self) {
        let _ = self.stop_listening.send(true);
        self.announcer.close().await;
        self.reader.close().await;
        self.pool.close().await;
    }
}

/// Makes again the search documents of the notes listed in `search_refold` (by a
/// migration, when the folding rule changed), a batch per transaction; replicas starting
/// together share the list.
async fn refold(pool: &PgPool) -> anyhow::Result<()> {
    loop {
        let mut tx = pool.begin().await?;
        let ids: Vec<String> = sqlx::query_scalar(
            "DELETE FROM search_refold WHERE note_id IN \
             (SELECT note_id FROM search_refold LIMIT $1 FOR UPDATE SKIP LOCKED) \
             RETURNING note_id",
        )
        .bind(SWEEP_BATCH)
        .fetch_all(&mut *tx)
        .await?;
        if ids.is_empty() {
            return Ok(());
        }
        for id in ids {
            let note: Option<(String, String)> =
                sqlx::query_as("SELECT title, body FROM notes WHERE id = $1 FOR UPDATE")
                    .bind(&id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some((title, body)) = note else {
                continue;
            };
            let (title, body, cjk) = search_parts_of(&title, &body);
            sqlx::query(&format!(
                "UPDATE notes SET search = {SEARCH_DOCUMENT} WHERE id = $4"
            ))
            .bind(title)
            .bind(body)
            .bind(cjk)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
    }
}

/// Finds the tags of notes written before tags existed (their `tags` is NULL), a batch per
/// transaction; replicas starting together share the work.
async fn fill_in_tags(pool: &PgPool) -> anyhow::Result<()> {
    loop {
        let mut tx = pool.begin().await?;
        let rows: Vec<(String, String, String, String)> = sqlx::query_as(
            "SELECT id, scope, title, body FROM notes WHERE tags IS NULL \
             LIMIT $1 FOR UPDATE SKIP LOCKED",
        )
        .bind(SWEEP_BATCH)
        .fetch_all(&mut *tx)
        .await?;
        if rows.is_empty() {
            // Rows another replica holds are skipped above; this one serves only once
            // they are done too (a rename here must find every tagged note).
            let left: i64 = sqlx::query_scalar("SELECT count(*) FROM notes WHERE tags IS NULL")
                .fetch_one(&mut *tx)
                .await?;
            if left == 0 {
                return Ok(());
            }
            drop(tx);
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            continue;
        }
        for (id, scope, title, body) in rows {
            let tags = crate::text::tags::of_note(&title, &body);
            sqlx::query("UPDATE notes SET tags = $1 WHERE id = $2")
                .bind(tags_column(&tags))
                .bind(&id)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO note_tags (scope, note_id, tag) \
                 SELECT $1, $2, tag FROM UNNEST($3::text[]) AS tag ON CONFLICT DO NOTHING",
            )
            .bind(&scope)
            .bind(&id)
            .bind(&tags)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
    }
}
