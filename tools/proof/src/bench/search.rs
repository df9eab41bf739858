//! Search latency at exactly 10,000 and 100,000 notes, on a server and database of their
//! own; the list and page figures run over the same notes.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::lists::{ListFigures, list_latency};
use super::people::{person, scope_of, sqlite_database, start_server};
use super::seed::{self, word};
use crate::server_process::ServerProcess;
use crate::stats::{ms, percentile};

/// The database sizes searched.
pub const SIZES: [usize; 2] = [10_000, 100_000];

/// Search latency over a set of queries at one size of the database.
#[derive(Serialize, Clone)]
pub struct SearchFigures {
    pub notes: usize,
    pub queries: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// The server of the search, list and page figures, and the one person whose notes
/// they are.
pub struct SearchServer {
    pub process: ServerProcess,
    pub base: String,
    /// The person's client, carrying their session.
    pub client: reqwest::Client,
    /// The person's session token (for the browser).
    pub token: String,
    database: std::path::PathBuf,
}

impl SearchServer {
    /// Starts a server on the SQLite file `database` and signs one person up through
    /// `client`.
    pub async fn start(
        binary: &Path,
        database: &Path,
        client: &reqwest::Client,
    ) -> anyhow::Result<Self> {
        let process = start_server(binary, sqlite_database(database), &[]).await?;
        let base = process.base_url();
        let (client, token) =
            person(client, &base, &format!("search-{}", std::process::id())).await?;
        Ok(Self {
            process,
            base,
            client,
            token,
            database: database.to_owned(),
        })
    }

    /// Fills the person's notes up to `target`.
    pub async fn seed(&self, target: usize) -> anyhow::Result<()> {
        let have = count_notes(&self.database).await?;
        if have < target {
            let scope = scope_of(&self.client, &self.base).await?;
            seed::notes(&sqlite_database(&self.database), target - have, &scope).await?;
        }
        Ok(())
    }

    /// Fills the person's notes up to each size and searches them; the lists at the
    /// largest. Prints a line for each.
    pub async fn search_and_lists(&self) -> anyhow::Result<(Vec<SearchFigures>, ListFigures)> {
        let mut search = Vec::new();
        let mut lists = ListFigures::default();
        for target in SIZES {
            self.seed(target).await?;
            search.push(search_latency(&self.client, &self.base, target).await?);
            if target == 100_000 {
                lists = list_latency(&self.client, &self.base).await?;
            }
        }
        Ok((search, lists))
    }
}

/// Notes in the benchmark's database.
async fn count_notes(database: &Path) -> anyhow::Result<usize> {
    let mut conn = crate::invariants::open(&crate::invariants::sqlite_url(database)).await?;
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notes")
        .fetch_one(&mut conn)
        .await?;
    Ok(n as usize)
}

/// A search's first page of 20 (its answer's body still to read); an answer other than
/// 200 is an error.
pub async fn searched(
    client: &reqwest::Client,
    base: &str,
    q: &str,
) -> anyhow::Result<reqwest::Response> {
    let response = client
        .get(format!("{base}/api/search"))
        .query(&[("q", q), ("limit", "20")])
        .send()
        .await?;
    anyhow::ensure!(
        response.status() == 200,
        "a search for {q:?} answered {}",
        response.status()
    );
    Ok(response)
}

/// The benchmark's 240 queries: 40 each of a common word, a rare word, two words, a
/// phrase, an exclusion and an alternative.
pub fn queries() -> Vec<String> {
    let mut queries = Vec::new();
    for i in 0..40 {
        queries.push(word(i));
        queries.push(word(2000 + i * 37));
        queries.push(format!("{} {}", word(i), word(i + 1)));
        queries.push(format!("\"{} {}\"", word(i), word(i + 3)));
        queries.push(format!("{} -{}", word(i), word(i + 2)));
        queries.push(format!("{} or {}", word(300 + i), word(900 + i)));
    }
    queries
}

/// Latency of searches over a fixed set of queries: common, rare and two-word, a phrase,
/// an exclusion, an alternative. `notes` is how many the person has; prints the line.
pub async fn search_latency(
    client: &reqwest::Client,
    base: &str,
    notes: usize,
) -> anyhow::Result<SearchFigures> {
    let queries = queries();
    let mut latencies = Vec::new();
    for q in &queries {
        let sent = Instant::now();
        searched(client, base, q).await?.bytes().await?;
        latencies.push(sent.elapsed());
    }
    let figures = SearchFigures {
        notes,
        queries: queries.len(),
        p50_ms: ms(percentile(&mut latencies, 50.0)),
        p99_ms: ms(percentile(&mut latencies, 99.0)),
    };
    println!(
        "search at {:>7} notes: {} queries, p50 {:.2} ms, p99 {:.2} ms",
        figures.notes, figures.queries, figures.p50_ms, figures.p99_ms
    );
    Ok(figures)
}
