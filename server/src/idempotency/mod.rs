//! Idempotency: the key a request carries, the fingerprint of what it asks for, and the
//! table that remembers which key produced which answer.

mod fingerprint;
mod gate;
mod key;
mod persistence;

pub use fingerprint::Fingerprint;
pub use gate::{KeyGates, Pass};
pub use key::IdempotencyKey;
pub use persistence::{
    Claim, StoredResponse, commit, find_stored, replace_answer, sweep_expired, try_claim,
};

/// The scope every key lives in until accounts exist (PROTOCOL.md §Server 8).
pub const SHARED_SCOPE: &str = "shared";
