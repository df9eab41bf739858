//! Idempotency: the key a request carries, the fingerprint of what it asks for, the
//! answer stored for the key, and the one entry point every write goes through
//! ([`execute`]: replay a committed answer, or run the write and store its answer in the
//! same transaction).

mod answer;
mod fingerprint;
mod gate;
mod key;
mod pipeline;

pub use answer::{Answer, SavedAnswer, StoredAnswer};
pub use fingerprint::Fingerprint;
pub use gate::{KeyGates, Pass};
pub use key::IdempotencyKey;
pub use pipeline::{Applied, ClaimTicket, NextAction, Operation, Outcome, Pipeline, execute};

/// The scope of everything written before accounts existed (PROTOCOL.md §Server 8); the
/// first admin takes it over at setup. Since then every scope is a user's id.
pub const SHARED_SCOPE: &str = "shared";
