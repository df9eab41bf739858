//! Sign-in limits: failed attempts are counted per account and per client address, in the
//! database (so the limits hold across server processes). Past the limit within the window
//! the bucket is locked for a while: 429 `too-many-attempts` with `Retry-After`, whatever
//! the password. A successful sign-in clears the account's count.

use std::net::IpAddr;

use chrono::{DateTime, Utc};

use crate::config::Config;
use crate::error::ApiError;
use crate::storage::Store;
use crate::timestamp;

/// One address may fail this many times the account limit (a household behind one router
/// signs in to several accounts).
const ADDRESS_FACTOR: i64 = 5;

/// The buckets a sign-in counts in: its account (any case) and its client address.
pub fn buckets(username: &str, client: IpAddr) -> [(String, i64); 2] {
    [
        (format!("account:{}", username.trim().to_lowercase()), 1),
        (format!("address:{client}"), ADDRESS_FACTOR),
    ]
}

/// Refuses the sign-in while any of its buckets is locked.
pub async fn check(
    store: &Store,
    buckets: &[(String, i64)],
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    for (bucket, _) in buckets {
        if let Some(until) = store.locked_until(bucket).await?
            && let Some(left) = seconds_until(&until, now)
        {
            return Err(ApiError::TooManyAttempts {
                retry_after_secs: left,
            });
        }
    }
    Ok(())
}

/// Counts a failure in every bucket; locks the ones past their limit.
pub async fn fail(
    store: &Store,
    config: &Config,
    buckets: &[(String, i64)],
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let now_text = timestamp::format(now);
    let cutoff = timestamp::format(timestamp::before(now, config.sign_in_window));
    for (bucket, factor) in buckets {
        let failures = store.count_failure(bucket, &now_text, &cutoff).await?;
        if failures >= config.sign_in_max_failures * factor {
            let until = timestamp::after(now, config.sign_in_lockout);
            store.lock_bucket(bucket, &timestamp::format(until)).await?;
            tracing::warn!(%bucket, failures, "sign-in locked after too many failures");
        }
    }
    Ok(())
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
    fn the_account_bucket_ignores_case_and_the_address_allows_more() {
        let [(account, 1), (address, factor)] = buckets(" Ada ", "10.0.0.7".parse().unwrap())
        else {
            panic!("two buckets")
        };
        assert_eq!(account, "account:ada");
        assert_eq!(address, "address:10.0.0.7");
        assert!(factor > 1);
    }
}
