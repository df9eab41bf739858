//! The server binary in a process of its own: for tests that must kill it, or measure its
//! memory apart from the other tests running in this one.

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

    /// SIGKILL: no destructor, no drop guard runs in the server.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
