//! Limits on guessing: sign-ins (per client address, per person and address, and — looser —
//! per person), current-password checks (per person) and invitation links (per address),
//! counted in the database so the limits hold across server processes.
//!
//! An attempt is **counted before the password is checked**, in one statement per bucket
//! ([`begin`]): of 60 guesses sent at once only the first `max` are checked. The others
//! find every place of a bucket taken: each gives back what it took and waits a moment for
//! a place (the ones being checked either fail, and the failure that reaches the limit
//! locks the bucket, or succeed and free it); one that finds no place in time is told so
//! honestly (429 with `Retry-After: 1`, [`ApiError::AttemptsCrowded`]) and locks nothing —
//! eight right passwords sent at once never lock their person out. Only failures lock: a
//! failure keeps its count ([`Attempt::failed`]; the one that reaches the limit locks the
//! bucket and is told so at once, 429 with the lockout in `Retry-After`); a success starts
//! the count over ([`Attempt::succeeded`]) unless the bucket is locked — a success never
//! lifts a lock that guesses set while it was being checked. Buckets are named by a hash
//! of what they count (a username of any length is 64 hex digits here), and the sweeper
//! deletes the ones whose window and lock have passed.

use std::net::IpAddr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::error::ApiError;
use crate::http::client::counted_address;
use crate::storage::Store;
use crate::timestamp;

/// One address may fail this many times the limit (a household behind one router signs in
/// to several accounts).
const ADDRESS_FACTOR: i64 = 5;

/// One person may fail this many times the limit, counted over every address: guesses
/// from one address lock that person only there (the pair's bucket, at the limit itself),
/// so a stranger's five wrong guesses do not keep the person out from everywhere; a
/// guesser spread over many addresses still meets this looser bound.
pub const PERSON_FACTOR: i64 = 4;

/// How long an attempt that finds every place of a bucket taken (by attempts being
/// checked, not by failures) waits for one, retrying after each of these pauses, before it
/// is told to try again in a second. A handful of tries, so a crowd of waiting attempts
/// costs the database a few statements each, not one every few milliseconds.
const WAITS_FOR_A_PLACE: [Duration; 5] = [
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(400),
    Duration::from_millis(800),
];

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

/// A client address as the limits count it (`http::client::counted_address`: an IPv6
/// address by its /64), written as the bucket's name.
fn address_of(client: IpAddr) -> String {
    match counted_address(client) {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
    }
}

/// The buckets a sign-in counts in, each refusing before the next is touched: its client
/// address first (so a locked address cannot go on locking other people's accounts or add
/// rows), then its account (any case) from that address — the limit itself, so guesses
/// lock the guesser's address out of that account and no one else — then its account from
/// anywhere, at [`PERSON_FACTOR`] times the limit.
pub fn sign_in_buckets(username: &str, client: IpAddr) -> Vec<Bucket> {
    let account = username.trim().to_lowercase();
    let address = address_of(client);
    vec![
        Bucket {
            name: format!("address:{address}"),
            factor: ADDRESS_FACTOR,
        },
        Bucket {
            name: hashed("pair", &format!("{account}\n{address}")),
            factor: 1,
        },
        Bucket {
            name: hashed("account", &account),
            factor: PERSON_FACTOR,
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

/// Counts an attempt in every bucket before any work is done. Refuses it (429) when a
/// bucket is locked; waits a moment for a place when a bucket's places are all taken by
/// attempts being checked, and refuses it without locking anything if none comes free —
/// then nothing else runs.
pub async fn begin<'a>(
    store: &'a Store,
    config: &'a Config,
    buckets: Vec<Bucket>,
) -> Result<Attempt<'a>, ApiError> {
    let mut pauses = WAITS_FOR_A_PLACE.iter();
    loop {
        match take_places(store, config, &buckets).await? {
            Taken::All(counted) => {
                return Ok(Attempt {
                    store,
                    config,
                    counted,
                });
            }
            Taken::Locked { bucket, left } => {
                tracing::warn!(%bucket, "attempt refused: too many failures");
                return Err(ApiError::TooManyAttempts {
                    retry_after_secs: left,
                });
            }
            Taken::Crowded => match pauses.next() {
                Some(pause) => tokio::time::sleep(*pause).await,
                None => {
                    tracing::info!("attempt refused: every place is being checked");
                    return Err(ApiError::AttemptsCrowded);
                }
            },
        }
    }
}

/// What one try at counting an attempt in its buckets came to.
enum Taken {
    /// Counted in every bucket: each with its count, this attempt included.
    All(Vec<(Bucket, i64)>),
    /// A bucket is locked for `left` more seconds; nothing is counted.
    Locked { bucket: String, left: u64 },
    /// A bucket's places are all taken by attempts still being checked; nothing is
    /// counted.
    Crowded,
}

/// Counts an attempt in each bucket in turn; a bucket that refuses it gives back what it
/// took there and in the buckets before (the attempt never ran).
async fn take_places(
    store: &Store,
    config: &Config,
    buckets: &[Bucket],
) -> Result<Taken, ApiError> {
    let now = timestamp::now();
    let now_text = timestamp::format(now);
    let cutoff = timestamp::format(timestamp::before(now, config.sign_in_window));
    let mut counted: Vec<(Bucket, i64)> = Vec::with_capacity(buckets.len());
    for bucket in buckets {
        let (count, locked_until) = store
            .limits()
            .take_attempt(&bucket.name, &now_text, &cutoff)
            .await?;
        let refusal = match locked_until.and_then(|until| seconds_until(&until, now)) {
            Some(left) => Some(Taken::Locked {
                bucket: bucket.name.clone(),
                left,
            }),
            // Past the limit and not locked: the failures alone lock (at the limit), so
            // the count is attempts being checked — this one took a place that is not
            // there.
            None if count > config.sign_in_max_failures * bucket.factor => {
                store.limits().refund_attempt(&bucket.name).await?;
                Some(Taken::Crowded)
            }
            None => None,
        };
        if let Some(refusal) = refusal {
            for (taken, _) in &counted {
                store.limits().refund_attempt(&taken.name).await?;
            }
            return Ok(refusal);
        }
        counted.push((bucket.clone(), count));
    }
    Ok(Taken::All(counted))
}

impl Attempt<'_> {
    /// The attempt failed: its count stays. A bucket it brought to the limit is locked,
    /// and the answer says so at once (429) rather than `failure`.
    pub async fn failed(self, failure: ApiError) -> ApiError {
        match self.lock_the_full().await {
            Ok(true) => ApiError::TooManyAttempts {
                retry_after_secs: self.config.sign_in_lockout.as_secs().max(1),
            },
            Ok(false) => failure,
            Err(error) => error,
        }
    }

    /// The attempt did what it asked and still counts (an account made by signing up:
    /// one address may make only so many). The one that reaches the limit locks it, as a
    /// failure would: the next is refused with the lockout, not told to retry in a second.
    /// What it did stands even if the lock cannot be written (it is logged).
    pub async fn kept(self) {
        if let Err(error) = self.lock_the_full().await {
            tracing::warn!(%error, "could not lock a bucket at its limit");
        }
    }

    /// Locks every bucket this attempt's count brought to its limit; whether there was one.
    async fn lock_the_full(&self) -> Result<bool, ApiError> {
        let now = timestamp::now();
        let until = timestamp::format(timestamp::after(now, self.config.sign_in_lockout));
        let mut locked = false;
        for (bucket, count) in &self.counted {
            if *count >= self.config.sign_in_max_failures * bucket.factor {
                self.store
                    .limits()
                    .lock_bucket(&bucket.name, &until)
                    .await?;
                tracing::warn!(bucket = %bucket.name, failures = count, "locked after too many failures");
                locked = true;
            }
        }
        Ok(locked)
    }

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
    fn the_address_is_counted_first_then_the_account_from_it_then_the_account_from_anywhere() {
        let buckets = sign_in_buckets(" Ada ", "10.0.0.7".parse().unwrap());
        let names: Vec<&str> = buckets
            .iter()
            .map(|b| b.name.split(':').next().unwrap())
            .collect();
        assert_eq!(names, ["address", "pair", "account"]);
        assert_eq!(buckets[0].name, "address:10.0.0.7");
        let factors: Vec<i64> = buckets.iter().map(|b| b.factor).collect();
        assert_eq!(factors, [ADDRESS_FACTOR, 1, PERSON_FACTOR]);
    }

    #[test]
    fn the_account_ignores_case_and_the_pair_is_one_account_at_one_address() {
        let ada_here = sign_in_buckets(" Ada ", "10.0.0.7".parse().unwrap());
        let ada_there = sign_in_buckets("ada", "10.0.0.8".parse().unwrap());
        assert_eq!(ada_here[2], ada_there[2], "one person from anywhere");
        assert_ne!(ada_here[1], ada_there[1], "each address has its own pair");
        assert_eq!(
            ada_here[1],
            sign_in_buckets("ADA", "10.0.0.7".parse().unwrap())[1]
        );
        let bob_here = sign_in_buckets("bob", "10.0.0.7".parse().unwrap());
        assert_ne!(ada_here[1], bob_here[1]);
        assert_eq!(ada_here[0], bob_here[0], "one address for every account");
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
        assert_eq!(buckets[1].name.len(), "pair:".len() + 64);
        assert_eq!(buckets[2].name.len(), "account:".len() + 64);
        assert!(buckets.iter().all(|b| !b.name.contains('x')));
    }
}
