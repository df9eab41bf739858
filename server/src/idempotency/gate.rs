//! Requests with the same key that arrive together: the first (the leader) does the
//! work; the others wait for it here instead of queueing one by one on the database
//! write lock, then all read its stored answer at once. Correctness never depends on
//! this — the database transaction alone gives exactly-once — it only keeps a burst of
//! retries with one key as fast as a single request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::{OwnedRwLockWriteGuard, RwLock};

use super::answered::AnsweredKeys;
use crate::error::ApiError;

/// Where this request stands among those with its key.
pub enum Pass {
    /// No other request with this key is running: go ahead (held until dropped).
    Leader(OwnedRwLockWriteGuard<()>),
    /// Another request with this key was running and has now finished.
    Follower,
}

/// One gate per key in flight in this process, and the keys it answered lately.
#[derive(Default)]
pub struct KeyGates {
    gates: Mutex<HashMap<String, Weak<RwLock<()>>>>,
    /// Keys known to hold an answer: their requests read it before anything else.
    pub answered: AnsweredKeys,
}

/// Gates of finished keys are dropped once the map grows past this.
const PRUNE_ABOVE: usize = 1024;

impl KeyGates {
    /// Waits for an earlier request with `key` to finish, if there is one — for at most
    /// `wait` (the same bound as the database's write-lock wait); past it the key is
    /// still in use: 409 `idempotency-key-in-use`.
    pub async fn pass(&self, key: &str, wait: Duration) -> Result<Pass, ApiError> {
        let running = {
            let mut gates = self
                .gates
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(gate) = gates.get(key).and_then(Weak::upgrade) {
                Some(gate)
            } else {
                let gate = Arc::new(RwLock::new(()));
                let held = gate.clone().try_write_owned().expect("a new gate is free");
                if gates.len() >= PRUNE_ABOVE {
                    gates.retain(|_, gate| gate.strong_count() > 0);
                }
                gates.insert(key.to_owned(), Arc::downgrade(&gate));
                return Ok(Pass::Leader(held));
            }
        };
        if let Some(gate) = running {
            match tokio::time::timeout(wait, gate.read()).await {
                Ok(done) => drop(done),
                Err(_) => return Err(ApiError::IdempotencyKeyInUse),
            }
        }
        Ok(Pass::Follower)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: Duration = Duration::from_secs(10);

    #[tokio::test]
    async fn a_second_request_with_the_key_waits_until_the_first_is_done() {
        let gates = Arc::new(KeyGates::default());
        let Ok(Pass::Leader(held)) = gates.pass("k", LONG).await else {
            panic!("the first leads")
        };
        let follower = tokio::spawn({
            let gates = gates.clone();
            async move { matches!(gates.pass("k", LONG).await, Ok(Pass::Follower)) }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !follower.is_finished(),
            "the follower waits while the leader works"
        );
        drop(held);
        assert!(follower.await.unwrap());
    }

    #[tokio::test]
    async fn other_keys_and_later_requests_lead_on_their_own() {
        let gates = KeyGates::default();
        let first = gates.pass("a", LONG).await;
        assert!(matches!(gates.pass("b", LONG).await, Ok(Pass::Leader(_))));
        drop(first);
        assert!(
            matches!(gates.pass("a", LONG).await, Ok(Pass::Leader(_))),
            "a finished key's gate is gone"
        );
    }

    #[tokio::test]
    async fn a_follower_waits_no_longer_than_the_bound_then_hears_the_key_is_in_use() {
        let gates = KeyGates::default();
        let _leader = gates.pass("k", LONG).await;
        let started = std::time::Instant::now();
        let follower = gates.pass("k", Duration::from_millis(100)).await;
        assert!(matches!(follower, Err(ApiError::IdempotencyKeyInUse)));
        assert!(started.elapsed() < LONG);
    }
}
