//! The client's save path, free of browser types so `cargo test` checks it natively:
//! a [`intent::SaveIntent`] owns one idempotency key; [`outcome`] reads an answer, once,
//! into what the attempt meant; the [`retry_policy`] decides, from that outcome, whether to
//! stop, retry or wait; the [`sender`] drives one burst of attempts through any
//! [`sender::Transport`] (browser fetch, or a native HTTP client in the integration
//! tests); [`waiting`] keeps why an intent waits; [`press`] decides what a press of Save
//! does with the draft; [`tick`] which text a tick of a task is made from; [`chain`] how
//! an edit made behind another starts from what that one became; [`file_reference`] what
//! a file added to a note becomes in its text, and [`file_upload`] how it is uploaded
//! before the note that refers to it.

pub mod chain;
pub mod file_reference;
pub mod file_upload;
#[cfg(feature = "native-client")]
pub mod http_transport;
pub mod intent;
pub mod outcome;
pub mod press;
pub mod retry_policy;
pub mod sender;
pub mod tick;
pub mod waiting;
