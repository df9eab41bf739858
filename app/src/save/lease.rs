//! The fallback for browsers without the Web Locks API: a lease in localStorage that
//! says which tab is sending an intent, until when. Only the decision lives here.

use serde::{Deserialize, Serialize};

/// How long a lease holds without renewal. The holder renews it at every attempt, so
/// only a tab that died leaves one behind, and then only this long.
pub const LEASE_MS: f64 = 30_000.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lease {
    pub owner: String,
    pub expires_ms: f64,
}

/// Whether tab `me` may take (or renew) the lease at `now_ms`.
pub fn may_take(existing: Option<&Lease>, me: &str, now_ms: f64) -> bool {
    match existing {
        None => true,
        Some(lease) => lease.owner == me || lease.expires_ms <= now_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(owner: &str, expires_ms: f64) -> Lease {
        Lease {
            owner: owner.into(),
            expires_ms,
        }
    }

    #[test]
    fn a_free_intent_can_be_leased() {
        assert!(may_take(None, "tab-a", 0.0));
    }

    #[test]
    fn a_live_lease_of_another_tab_blocks_and_its_own_renews() {
        assert!(!may_take(Some(&lease("tab-b", 1_000.0)), "tab-a", 999.0));
        assert!(may_take(Some(&lease("tab-a", 1_000.0)), "tab-a", 999.0));
    }

    #[test]
    fn an_expired_lease_of_a_dead_tab_can_be_taken() {
        assert!(may_take(Some(&lease("tab-b", 1_000.0)), "tab-a", 1_000.0));
    }
}
