//! The list at 100,000 notes: its first page, a page 40,000 notes deep, and the
//! server-rendered home page.

use std::time::Instant;

use crate::stats::{ms, percentile};

/// List latencies (ms) at 100,000 notes.
#[derive(Clone, Copy, Default)]
pub struct ListFigures {
    pub first_page_p50: f64,
    pub first_page_p99: f64,
    pub deep_page_p99: f64,
    pub home_page_p99: f64,
}

/// Times each page 100 times, as the person signed in on `client`; prints the line.
pub async fn list_latency(client: &reqwest::Client, base: &str) -> anyhow::Result<ListFigures> {
    let timed = |url: String| {
        let client = client.clone();
        async move {
            let mut latencies = Vec::new();
            for _ in 0..100 {
                let sent = Instant::now();
                let response = client.get(&url).send().await?;
                anyhow::ensure!(
                    response.status() == 200,
                    "{url} answered {}",
                    response.status()
                );
                response.bytes().await?;
                latencies.push(sent.elapsed());
            }
            Ok::<_, anyhow::Error>(latencies)
        }
    };
    let mut first = timed(format!("{base}/api/notes?limit=50")).await?;
    // Walk 40,000 notes deep, then time that page.
    let mut cursor = None::<String>;
    for _ in 0..200 {
        let url = match &cursor {
            Some(c) => format!("{base}/api/notes?limit=200&cursor={c}"),
            None => format!("{base}/api/notes?limit=200"),
        };
        let page: serde_json::Value = client.get(url).send().await?.json().await?;
        cursor = page["next"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    let mut deep = match cursor {
        Some(c) => timed(format!("{base}/api/notes?limit=50&cursor={c}")).await?,
        None => Vec::new(),
    };
    let mut home = timed(format!("{base}/")).await?;
    let figures = ListFigures {
        first_page_p50: ms(percentile(&mut first, 50.0)),
        first_page_p99: ms(percentile(&mut first, 99.0)),
        deep_page_p99: ms(percentile(&mut deep, 99.0)),
        home_page_p99: ms(percentile(&mut home, 99.0)),
    };
    println!(
        "list at 100,000 notes: first page p50 {:.2} ms p99 {:.2} ms · a page 40,000 notes deep p99 {:.2} ms · the home page (SSR) p99 {:.2} ms",
        figures.first_page_p50,
        figures.first_page_p99,
        figures.deep_page_p99,
        figures.home_page_p99
    );
    Ok(figures)
}
