//! The server binary in a process of its own: for tests that must kill it, or measure its
//! memory apart from the other tests running in this one.

use std::future::Future;
use std::time::Duration;

pub struct ServerProcess {
    pub child: std::process::Child,
    pub address: String,
}

impl ServerProcess {
    /// Starts the binary on a free port with the test admin and `env` (`DATABASE_URL` and
    /// whatever else the test sets), and waits until it answers `/healthz`.
    pub async fn start(env: &[(&str, String)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_server"))
            .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
            .env("ONCENOTE_ADMIN_USERNAME", crate::helpers::ADMIN)
            .env("ONCENOTE_ADMIN_PASSWORD", crate::helpers::ADMIN_PASSWORD)
            .env("RUST_LOG", "warn")
            .envs(env.iter().map(|(name, value)| (*name, value.as_str())))
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("the server binary starts");
        let address = format!("http://127.0.0.1:{port}");
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while reqwest::get(format!("{address}/healthz")).await.is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not start"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Self { child, address }
    }

    /// The test admin's session cookie (`oncenote_session=…`), from a sign-in of its own.
    pub async fn admin_cookie(&self) -> String {
        let signed_in = reqwest::Client::new()
            .post(format!("{}/api/session", self.address))
            .json(&serde_json::json!({
                "username": crate::helpers::ADMIN,
                "password": crate::helpers::ADMIN_PASSWORD,
            }))
            .send()
            .await
            .expect("the sign-in");
        let token = crate::helpers::session_token(&signed_in).expect("signed in");
        format!("oncenote_session={token}")
    }

    /// SIGKILL: no destructor, no drop guard runs in the server.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The resident memory of the process `pid` before `work` and at its highest while
/// `work` ran (sampled every 2 ms on a thread of its own), and what `work` gave.
pub async fn peak_memory_while<T>(pid: u32, work: impl Future<Output = T>) -> (T, Memory) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let before = resident_bytes(pid);
    let peak = Arc::new(AtomicU64::new(before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = std::thread::spawn({
        let (peak, done) = (peak.clone(), done.clone());
        move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(resident_bytes(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    });
    let output = work.await;
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let peak = peak.load(Ordering::Relaxed);
    (output, Memory { before, peak })
}

/// A process's resident memory before some work and at its peak during it.
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    pub before: u64,
    pub peak: u64,
}

impl Memory {
    /// How much the peak is above the start.
    pub fn grew(&self) -> u64 {
        self.peak.saturating_sub(self.before)
    }
}

impl std::fmt::Display for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} MiB before, {} MiB at the peak (+{} MiB)",
            self.before >> 20,
            self.peak >> 20,
            self.grew() >> 20
        )
    }
}

/// A process's resident memory, in bytes.
pub fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
