//! The values the database keeps and gives back, below every layer that uses them:
//! idempotency keys, request fingerprints and stored answers; people and sessions; where
//! a page of a list starts. `storage` reads and writes these and nothing above it; the
//! domain (`idempotency`, `accounts`, `notes`) builds and reads them.

mod answer;
mod claim;
pub mod cursor;
pub mod file_cursor;
mod fingerprint;
mod key;
mod people;

pub use answer::{Answer, SavedAnswer, StoredAnswer};
pub use claim::{Applied, ClaimTicket, NextAction};
pub use fingerprint::Fingerprint;
pub use key::{IdempotencyKey, KeyError};
pub use people::{Credential, NewUser, User, Viewer};

/// The scope of everything written before accounts existed (PROTOCOL.md §Server 8); the
/// first admin takes it over at setup. Since then every scope is a user's id.
pub const SHARED_SCOPE: &str = "shared";
