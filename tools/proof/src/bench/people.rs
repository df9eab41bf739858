//! The people a benchmark server serves: every figure runs as signed-in people, on a
//! server started with open sign-up.

use std::path::Path;
use std::time::Duration;

use crate::server_process::ServerProcess;

/// Starts the benchmark server `binary` on `database_url` with open sign-up, plus `extra`
/// settings (after the common ones).
pub async fn start_server(
    binary: &Path,
    database_url: String,
    extra: &[(&str, &str)],
) -> anyhow::Result<ServerProcess> {
    let mut server = ServerProcess::with_url(binary, database_url)?;
    server.env = vec![
        ("ONCENOTE_SIGNUP".into(), "open".into()),
        // Every simulated person signs up from 127.0.0.1: lift the per-address limit
        // on new accounts (five times this) for them.
        ("ONCENOTE_SIGN_IN_MAX_FAILURES".into(), "1000".into()),
        // The search's answers say the server's time on them (the page's figures split
        // the browser's wait for an answer with it).
        ("ONCENOTE_SERVER_TIMING".into(), "on".into()),
    ];
    server.env.extend(
        extra
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned())),
    );
    server.start().await?;
    Ok(server)
}

/// The URL of the SQLite database file `database`, as a server opens it.
pub fn sqlite_database(database: &Path) -> String {
    format!("sqlite://{}", database.display())
}

/// Signs one person up; their client (carrying the session) and session token.
pub async fn person(
    client: &reqwest::Client,
    base: &str,
    name: &str,
) -> anyhow::Result<(reqwest::Client, String)> {
    let token = crate::load::sign_up(client, base, name).await?;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::COOKIE,
        format!("oncenote_session={token}").parse()?,
    );
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(30))
        .default_headers(headers)
        .build()?;
    Ok((client, token))
}

/// `n` people signed up on the server: a client each, carrying its session. Each call
/// makes new people (never those of an earlier call).
pub async fn people(
    client: &reqwest::Client,
    base: &str,
    n: usize,
) -> anyhow::Result<Vec<reqwest::Client>> {
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let mut clients = Vec::with_capacity(n);
    for _ in 0..n {
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("bench-{}-{n}", std::process::id());
        clients.push(person(client, base, &name).await?.0);
    }
    Ok(clients)
}

/// The id of the person signed in on `client`: the scope their notes are kept under.
pub async fn scope_of(client: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let me: serde_json::Value = client
        .get(format!("{base}/api/me"))
        .send()
        .await?
        .json()
        .await?;
    Ok(me["user_id"].as_str().unwrap_or_default().to_owned())
}
