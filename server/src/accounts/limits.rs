//! Limits on guessing: sign-ins (per account and per client address), current-password
//! checks (per person) and invitation links (per address), counted in the database so the
//! limits hold across server processes.
//!
//! An attempt is **counted before the password is checked**, in one statement per bucket
//! ([`begin`]): of 60 guesses sent at once only the first `max` are checked, the rest are
//! refused (429 `too-many-attempts` with `Retry-After`) without hashing anything, and the
//! bucket is locked for the lockout. A failure keeps its count ([`Attempt::failed`]; the
//! one that reaches the limit locks the bucket and is told so at once); a success starts
//! the count over ([`Attempt::succeeded`]) unless the bucket is locked — a success never
//! lifts a lock that a burst of guesses set while it was being checked. Buckets are named by a hash of what they count (a username
//! of any length is 64 hex digits here), and the sweeper deletes the ones whose window and
//! lock have passed.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::error::ApiError;
use crate::storage::Store;
use crate::timestamp;

/// One address may fail this many times the account limit (a household behind one router
/// signs in to several accounts).
const ADDRESS_FACTOR: i64 = 5;

/// A counter of attempts and how many it allows within the window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub name: String,
    /// Multiplies `ONCENOTE_SIGN_IN_MAX_FAILURES`.
    pub factor: i64,
}

fn hashed(kind: &str, what: &str) -> String {
    format!("{kind}:{}", hex::encode(Sha256::digest(what.as_bytes())))
}

/// A client address as the limits count it: an IPv4 address, or an IPv6 address's /64
/// (one household or server gets a whole /64; counting single IPv6 addresses would give
/// one attacker 2^64 buckets).
fn address_of(client: IpAddr) -> String {
    match client {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// The buckets a sign-in counts in: its client address first — an address past its limit
/// is refused before the account's count is touched, so a locked address cannot go on
/// locking other people's accounts or add rows — then its account (any case).
pub fn sign_in_buckets(username: &str, client: IpAddr) -> Vec<Bucket> {
    vec![
        Bucket {
            name: format!("address:{}", address_of(client)),
            factor: ADDRESS_FACTOR,
        },
        Bucket {
            name: hashed("account", &username.trim().to_lowercase()),
            factor: 1,
        },
    ]
}

/// The bucket of a signed-in person's current-password checks (changing the password).
pub fn password_check_buckets(user_id: &str) -> Vec<Bucket> {
    vec![Bucket {
        name: hashed("password", user_id),
        factor: 1,
    }]
}

/// The bucket of invitation links tried, and accounts made by signing up, from one
/// address.
pub fn new_account_buckets(client: IpAddr) -> Vec<Bucket> {
    vec![Bucket {
        name: format!("new-account:{}", address_of(client)),
        factor: ADDRESS_FACTOR,
    }]
}

/// An attempt counted in its buckets, waiting to learn whether it failed.
#[must_use = "an attempt is either failed or succeeded"]
pub struct Attempt<'a> {
    store: &'a Store,
    config: &'a Config,
    /// Each bucket with the attempts counted in its window, this one included.
    counted: Vec<(Bucket, i64)>,
}

/// Counts an attempt in every bucket before any work is done; refuses it (429) when a
/// bucket is locked or this attempt would pass its limit — then nothing else runs.
pub async fn begin<'a>(
    store: &'a Store,
    config: &'a Config,
    buckets: Vec<Bucket>,
) -> Result<Attempt<'a>, ApiError> {
    let now = timestamp::now();
    let now_text = timestamp::format(now);
    let cutoff = timestamp::format(timestamp::before(now, config.sign_in_window));
    let lock_until = timestamp::format(timestamp::after(now, config.sign_in_lockout));
    let mut attempt = Attempt {
        store,
        config,
        counted: Vec::with_capacity(buckets.len()),
    };
    for bucket in buckets {
        let max = config.sign_in_max_failures * bucket.factor;
        let (count, locked_until) = store
            .limits()
            .take_attempt(&bucket.name, &now_text, &cutoff, max, &lock_until)
            .await?;
        if let Some(left) = locked_until.and_then(|until| seconds_until(&until, now)) {
            // Give back what this attempt took in the buckets before: it never ran.
            for (taken, _) in &attempt.counted {
                store.limits().refund_attempt(&taken.name).await?;
            }
            tracing::warn!(bucket = %bucket.name, "attempt refused: too many failures");
            return Err(ApiError::TooManyAttempts {
                retry_after_secs: left,
            });
        }
        attempt.counted.push((bucket, count));
    }
    Ok(attempt)
}

impl Attempt<'_> {
    /// The attempt failed: its count stays. A bucket it brought to the limit is locked,
    /// and the answer says so at once (429) rather than `failure`.
    pub async fn failed(self, failure: ApiError) -> ApiError {
        let now = timestamp::now();
        let until = timestamp::after(now, self.config.sign_in_lockout);
        let mut locked = false;
        for (bucket, count) in &self.counted {
            if *count >= self.config.sign_in_max_failures * bucket.factor {
                if let Err(error) = self
                    .store
                    .limits()
                    .lock_bucket(&bucket.name, &timestamp::format(until))
                    .await
                {
                    return error.into();
                }
                tracing::warn!(bucket = %bucket.name, failures = count, "locked after too many failures");
                locked = true;
            }
        }
        if locked {
            ApiError::TooManyAttempts {
                retry_after_secs: self.config.sign_in_lockout.as_secs().max(1),
            }
        } else {
            failure
        }
    }

    /// The attempt did what it asked and still counts (an account made by signing up:
    /// one address may make only so many).
    pub fn kept(self) {}

    /// The attempt succeeded: the count starts over, and any lock stays in place.
    pub async fn succeeded(self) -> Result<(), ApiError> {
        let now = timestamp::format(timestamp::now());
        for (bucket, _) in &self.counted {
            self.store
                .limits()
                .reset_attempts(&bucket.name, &now)
                .await?;
        }
        Ok(())
    }

    /// The check did not run (the hashing queue was full, the database failed): the
    /// attempt gives back its count.
    pub async fn not_checked(self) -> Result<(), ApiError> {
        for (bucket, _) in &self.counted {
            self.store.limits().refund_attempt(&bucket.name).await?;
        }
        Ok(())
    }
}

/// Seconds from `now` until `until` (rounded up), if it is still ahead.
fn seconds_until(until: &str, now: DateTime<Utc>) -> Option<u64> {
    let until = DateTime::parse_from_rfc3339(until)
        .ok()?
        .with_timezone(&Utc);
    let left = (until - now).num_milliseconds();
    (left > 0).then(|| (left as u64).div_ceil(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_in_the_future_leaves_its_seconds_rounded_up() {
        let now = DateTime::parse_from_rfc3339("2026-11-30T05:00:00Z")
            .unwrap()
            .to_utc();
        assert_eq!(seconds_until("2026-11-30T05:00:01.200Z", now), Some(2));
        assert_eq!(seconds_until("2026-11-30T04:59:59Z", now), None);
        assert_eq!(seconds_until("garbage", now), None);
    }

    #[test]
    fn the_address_is_counted_first_and_the_account_ignores_case() {
        let buckets = sign_in_buckets(" Ada ", "10.0.0.7".parse().unwrap());
        assert_eq!(
            buckets[1],
            sign_in_buckets("ada", "10.0.0.8".parse().unwrap())[1]
        );
        assert_eq!(buckets[1].factor, 1);
        assert_eq!(buckets[0].name, "address:10.0.0.7");
        assert!(buckets[0].factor > 1);
    }

    #[test]
    fn an_ipv6_address_counts_by_its_64_bit_prefix() {
        let one = sign_in_buckets("a", "2001:db8:1:2:aaaa::1".parse().unwrap());
        let other = sign_in_buckets("a", "2001:db8:1:2:bbbb::9".parse().unwrap());
        assert_eq!(one[0], other[0]);
        assert_eq!(one[0].name, "address:2001:db8:1:2::/64");
        let mapped = sign_in_buckets("a", "::ffff:10.0.0.7".parse().unwrap());
        assert_eq!(mapped[0].name, "address:10.0.0.7");
    }

    #[test]
    fn a_bucket_name_is_short_however_long_the_username() {
        let buckets = sign_in_buckets(&"x".repeat(1 << 20), "::1".parse().unwrap());
        assert_eq!(buckets[1].name.len(), "account:".len() + 64);
        assert!(!buckets[1].name.contains('x'));
    }
}
