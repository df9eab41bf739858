//! The release server as a child process on loopback: started, waited for, killed with
//! SIGKILL (a crash), restarted on the same database.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

pub struct ServerProcess {
    binary: PathBuf,
    pub addr: SocketAddr,
    pub database_url: String,
    /// Extra environment for the server (its configuration variables).
    pub env: Vec<(String, String)>,
    child: Option<Child>,
}

/// A free port on 127.0.0.1 (bound, then released for the child to take).
pub fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl ServerProcess {
    /// A server for `database` (a SQLite file) on a free loopback port; not started yet.
    pub fn new(binary: &Path, database: &Path) -> anyhow::Result<Self> {
        Self::with_url(binary, format!("sqlite://{}", database.display()))
    }

    /// A server for the database at `database_url` on a free loopback port.
    pub fn with_url(binary: &Path, database_url: String) -> anyhow::Result<Self> {
        if !binary.is_file() {
            bail!(
                "no server binary at {} (run scripts/build.sh first)",
                binary.display()
            );
        }
        Ok(Self {
            binary: binary.to_owned(),
            addr: SocketAddr::from(([127, 0, 0, 1], free_port()?)),
            database_url,
            env: Vec::new(),
            child: None,
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Starts the server and waits (up to 30 s) until `/healthz` answers.
    pub async fn start(&mut self) -> anyhow::Result<()> {
        let child = Command::new(&self.binary)
            .env("LEPTOS_SITE_ADDR", self.addr.to_string())
            .env("DATABASE_URL", &self.database_url)
            .env("RUST_LOG", "error")
            // The load driver, the fault proxy and every client they play come from one
            // loopback address: a cap on one address's connections would measure itself.
            .env("ONCENOTE_MAX_CONNECTIONS_PER_ADDRESS", "0")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("could not start {}", self.binary.display()))?;
        self.child = Some(child);
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(2))
            .build()?;
        let started = Instant::now();
        loop {
            if let Ok(response) = client
                .get(format!("{}/healthz", self.base_url()))
                .send()
                .await
                && response.status().is_success()
            {
                return Ok(());
            }
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                bail!("the server exited at start: {status}");
            }
            if started.elapsed() > Duration::from_secs(30) {
                bail!("the server did not answer /healthz within 30 s");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// SIGKILL: no shutdown, no flush — a crash.
    pub fn kill(&mut self) -> anyhow::Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill().context("could not kill the server")?;
            child.wait()?;
        }
        Ok(())
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

impl ServerProcess {
    /// The server's peak resident memory so far (VmHWM), in KiB, on Linux.
    pub fn peak_memory_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()?)).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// The server's resident memory now (VmRSS), in KiB, on Linux.
    pub fn memory_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()?)).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

/// The CPU time (user and system) process `pid` has used so far, all its threads
/// together, ended ones included (Linux: `/proc/<pid>/stat`, in ticks of 10 ms).
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name in parentheses may hold spaces: the fields are counted after it.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // Linux counts them in USER_HZ, which is 100 on every architecture it runs on.
    Some(Duration::from_millis(ticks * 10))
}
