//! The sign-in limits: attempts counted in buckets, each bucket locked past its limit.

use super::Store;
use crate::storage::StorageError;

/// The sign-in limits of a [`Store`].
pub struct Limits<'a>(&'a Store);

impl Store {
    /// The sign-in limits' buckets.
    pub fn limits(&self) -> Limits<'_> {
        Limits(self)
    }
}

delegate! {
    Limits {
        /// Counts an attempt in a limit's bucket, in one statement: unless the bucket is
        /// locked at `now`, its count goes up by one (a window begun before `cutoff`, or a
        /// lock that has passed, starts over at one). Returns the count and the lock, if
        /// any. Counting never locks: only a failure does (`lock_bucket`), so attempts
        /// being checked at once cannot lock out the person making them.
        fn take_attempt(&self, bucket: &str, now: &str, cutoff: &str) -> Result<(i64, Option<String>), StorageError>;
        /// Locks a limit's bucket until `until`.
        fn lock_bucket(&self, bucket: &str, until: &str) -> Result<(), StorageError>;
        /// Gives back one attempt counted in a bucket (its lock, if any, stays).
        fn refund_attempt(&self, bucket: &str) -> Result<(), StorageError>;
        /// Starts a bucket's count over after a success — unless it is locked at `now`: a
        /// success never lifts a lock.
        fn reset_attempts(&self, bucket: &str, now: &str) -> Result<(), StorageError>;
    }
}
