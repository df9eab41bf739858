//! Idempotency: the key a request carries, the fingerprint of what it asks for, the
//! answer stored for the key, and the one entry point every write goes through
//! ([`execute`]: replay a committed answer, or run the write and store its answer in the
//! same transaction).

mod answered;
mod gate;
mod pipeline;
mod request;

pub use crate::records::{
    Answer, Applied, ClaimTicket, Fingerprint, IdempotencyKey, NextAction, SHARED_SCOPE,
    SavedAnswer, StoredAnswer,
};
pub use gate::{KeyGates, Pass};
pub use pipeline::{Operation, Outcome, Pipeline, Rules, execute};
pub use request::{Payload, prepared_write_request, write_request};
