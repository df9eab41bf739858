//! A retry that arrives after its key's idempotency row expired: the write it repeats may
//! have been done already, and the note or revision it left still carries the key
//! (PROTOCOL.md §Server 6). Every write asks here first.

use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey};
use crate::storage::{NoteWrites, PastWrite};

/// What an earlier use of `key` wrote, if any. A key used for another request is refused
/// (422 `idempotency-key-reused`): it is not this write's to use.
pub async fn earlier_write<T: NoteWrites + Send>(
    tx: &mut T,
    scope: &str,
    key: &IdempotencyKey,
    fingerprint: &Fingerprint,
) -> Result<Option<PastWrite>, ApiError> {
    match tx.past_write(scope, key).await? {
        None => Ok(None),
        Some((past, by)) if by == *fingerprint => Ok(Some(past)),
        Some(_) => Err(ApiError::IdempotencyKeyReused),
    }
}
