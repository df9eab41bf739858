//! Logs: `RUST_LOG` picks what is shown (default: info for oncenote, warnings for the rest).
//! Colours only on a terminal: the journal, `docker logs` and a redirected file get plain
//! text, so `grep 'setup?token='` finds the setup link whole.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

pub fn init() {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    // A second init (tests start many apps in one process) is harmless: ignore it.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::stdout().is_terminal())
        .try_init();
}
