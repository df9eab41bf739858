//! Which keys this process answered lately: a retry's key is read first (a plain read,
//! off the write path, replays it), a new key goes straight to the write, which claims it
//! and finds any answer another request stored (the pipeline then reads and replays it).
//! The table only saves a read: forgetting a key (its slot taken by another) or a key
//! answered by another process costs the write's try, never a second write.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

/// Slots in the table (8 bytes each: 1 MiB). A key stays known until a later key lands
/// in its slot: after 131,072 more keys, about one in three (1/e) is still known.
const SLOTS: usize = 1 << 17;

/// A fixed table of key hashes, one per slot, written and read without a lock.
pub struct AnsweredKeys {
    slots: Box<[AtomicU64]>,
    /// Seeded per process: no client can choose keys that fill one slot.
    hasher: RandomState,
}

impl Default for AnsweredKeys {
    fn default() -> Self {
        Self {
            slots: (0..SLOTS).map(|_| AtomicU64::new(0)).collect(),
            hasher: RandomState::new(),
        }
    }
}

impl AnsweredKeys {
    /// The key's hash (never 0, the empty slot's mark) and its slot.
    fn place(&self, gate: &str) -> (u64, &AtomicU64) {
        let hash = self.hasher.hash_one(gate) | 1;
        (hash, &self.slots[(hash >> 1) as usize % SLOTS])
    }

    /// Notes that `gate` (scope and key) holds an answer.
    pub fn remember(&self, gate: &str) {
        let (hash, slot) = self.place(gate);
        slot.store(hash, Ordering::Relaxed);
    }

    /// Whether `gate` was answered in this process lately (a hash collision may say yes
    /// for a new key: one read too many).
    pub fn lately(&self, gate: &str) -> bool {
        let (hash, slot) = self.place(gate);
        slot.load(Ordering::Relaxed) == hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_key_is_known_and_another_is_not() {
        let answered = AnsweredKeys::default();
        answered.remember("alice\nk1");
        assert!(answered.lately("alice\nk1"));
        assert!(!answered.lately("alice\nk2"));
        assert!(!answered.lately("bob\nk1"), "the scope is part of the key");
    }

    #[test]
    fn most_of_the_keys_answered_lately_are_still_known_after_many_more() {
        let answered = AnsweredKeys::default();
        let keys: Vec<String> = (0..10_000).map(|n| format!("s\n{n}")).collect();
        for key in &keys {
            answered.remember(key);
        }
        let known = keys.iter().filter(|key| answered.lately(key)).count();
        // 10,000 keys in 131,072 slots: a few overwrite each other, nearly all remain.
        assert!(known > 9_500, "{known}");
        let strangers = (0..10_000)
            .filter(|n| answered.lately(&format!("t\n{n}")))
            .count();
        assert!(strangers < 5, "{strangers}");
    }
}
