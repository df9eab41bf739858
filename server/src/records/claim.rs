//! A write's claim on its idempotency key, and what the write left to answer with.

use super::{Answer, Fingerprint, IdempotencyKey, SavedAnswer, StoredAnswer};

/// The claim a write makes on its key.
#[derive(Clone, Debug)]
pub struct ClaimTicket {
    pub scope: String,
    pub key: IdempotencyKey,
    pub fingerprint: Fingerprint,
    pub created_at: String,
    pub expires_at: String,
}

/// What the backend found when it claimed the key inside its write transaction.
pub enum NextAction<Tx> {
    /// The key is new: run the write in this transaction.
    Start(Tx),
    /// The key already holds a committed answer (another request finished first).
    ReturnSaved(SavedAnswer),
}

/// The answer a write left, ready to be stored with the key.
pub struct Applied {
    pub answer: StoredAnswer,
    /// The write had already been done under this key (its idempotency row had expired,
    /// the note or revision still carries the key): the answer describes that result and
    /// goes out as a replay.
    pub late: bool,
}

impl Applied {
    /// The answer that goes out for a write that just committed.
    pub fn into_answer(self) -> Answer {
        Answer {
            stored: self.answer,
            replayed: self.late,
        }
    }
}
