//! The client's save path, free of browser types so `cargo test` checks it natively:
//! a [`intent::SaveIntent`] owns one idempotency key; the [`retry_policy`] decides, from
//! the outcome of one attempt, whether to stop, retry or wait; the [`sender`] drives one
//! burst of attempts through any [`sender::Transport`] (browser fetch, or a native HTTP
//! client in the integration tests).

#[cfg(feature = "native-client")]
pub mod http_transport;
pub mod intent;
pub mod lease;
pub mod press;
pub mod retry_policy;
pub mod sender;
