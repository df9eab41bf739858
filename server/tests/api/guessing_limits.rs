//! Guessing is limited where it is cheap to try: sign-in, the current password, invitation
//! links — counted before the password is checked, so parallel guesses do not walk
//! through, and a success never lifts a lock (issue 15, items 3, 4, 5, 12). Guesses from
//! one address lock the person out there only, and right passwords sent at once lock
//! nothing (issue 60, items 9 and 10).

use std::net::IpAddr;
use std::time::Duration;

use serde_json::json;
use server::accounts::limits;
use server::config::Config;
use server::error::ApiError;
use server::storage::Store;

use crate::helpers::{ADMIN, ADMIN_PASSWORD, TestApp, anonymous, problem_of, spawn_app_with};

/// The highest attempt count among the buckets of an account (from one address, or from
/// anywhere).
async fn most_counted_for_an_account(pool: &sqlx::AnyPool) -> i64 {
    sqlx::query_scalar::<_, i64>(
        "SELECT COALESCE(MAX(failures), 0) FROM sign_in_limits \
         WHERE bucket LIKE 'account:%' OR bucket LIKE 'pair:%'",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_wrong_passwords_at_once_check_no_more_than_the_limit() {
    let app = spawn_app_with(|c| {
        c.sign_in_max_failures = 5;
        c.sign_in_lockout = Duration::from_secs(600);
    })
    .await;
    let guesses = (0..60).map(|n| {
        anonymous()
            .post(app.url("/api/session"))
            .json(&json!({ "username": ADMIN, "password": format!("guess {n}") }))
            .send()
    });
    let answers = futures::future::join_all(guesses).await;
    let statuses: Vec<u16> = answers
        .iter()
        .map(|a| a.as_ref().unwrap().status().as_u16())
        .collect();
    assert!(
        statuses.iter().all(|s| *s == 401 || *s == 429),
        "{statuses:?}"
    );
    // Each guess is counted before its password is checked: the five allowed ones; the
    // others found every place taken, gave theirs back and waited, until the fifth failure
    // locked the account at this address. None after it counts, or is checked.
    let counted = most_counted_for_an_account(&app.pool).await;
    assert!(
        counted <= 5,
        "{counted} guesses were let through to be checked"
    );
    let right = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 429, "the burst locked the account");
}

/// An app whose sign-ins lock after 3 failures (for 10 minutes), and the test's own store
/// and configuration on its database, to take attempts directly.
async fn locking_at_three() -> (TestApp, Config, Store) {
    let configure = |c: &mut Config| {
        c.sign_in_max_failures = 3;
        c.sign_in_lockout = Duration::from_secs(600);
    };
    let app = spawn_app_with(configure).await;
    let mut config = Config::for_tests(app.database_url.clone());
    configure(&mut config);
    let store = Store::open(&config).await.unwrap();
    (app, config, store)
}

#[tokio::test]
async fn a_success_checked_while_a_burst_locks_the_account_leaves_the_lock() {
    let (app, config, store) = locking_at_three().await;
    // The address the app sees the test's requests come from.
    let client: IpAddr = "127.0.0.1".parse().unwrap();
    let buckets = || limits::sign_in_buckets(ADMIN, client);
    // The right password is being checked...
    let person = limits::begin(&store, &config, buckets()).await.unwrap();
    // ...when a burst of guesses arrives: two more are let through, the next finds every
    // place taken (and is told to retry in a second)...
    let guesses = [
        limits::begin(&store, &config, buckets()).await.unwrap(),
        limits::begin(&store, &config, buckets()).await.unwrap(),
    ];
    assert!(matches!(
        limits::begin(&store, &config, buckets()).await,
        Err(ApiError::AttemptsCrowded)
    ));
    // ...and the two fail: the second reaches the limit and locks the account here.
    for guess in guesses {
        guess.failed(ApiError::InvalidCredentials).await;
    }
    person.succeeded().await.unwrap();
    assert!(matches!(
        limits::begin(&store, &config, buckets()).await,
        Err(ApiError::TooManyAttempts { .. })
    ));
    let right = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 429, "the success did not lift the lock");
    store.close().await;
}

#[tokio::test]
async fn a_username_longer_than_any_account_is_refused_before_anything_is_stored() {
    let app = spawn_app_with(|_| {}).await;
    let giant = "u".repeat(1 << 20);
    for _ in 0..3 {
        let answer = anonymous()
            .post(app.url("/api/session"))
            .json(&json!({ "username": giant, "password": "whatever" }))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 422);
        assert_eq!(problem_of(answer).await.slug(), "validation-failed");
    }
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sign_in_limits WHERE failures > 0")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, 0);
    // A name of an allowed length is counted under a bucket of fixed size.
    let answer = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": "z".repeat(64), "password": "whatever" }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);
    let longest: i64 = sqlx::query_scalar("SELECT MAX(LENGTH(bucket)) FROM sign_in_limits")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(longest <= 80, "{longest}");
}

#[tokio::test]
async fn the_counts_of_old_attempts_are_swept() {
    let app = spawn_app_with(|c| {
        c.sign_in_window = Duration::from_secs(1);
        c.sweep_interval = Duration::from_millis(200);
    })
    .await;
    let answer = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": ADMIN, "password": "wrong" }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);
    let rows = || async {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM sign_in_limits")
            .fetch_one(&app.pool)
            .await
            .unwrap()
    };
    assert!(rows().await > 0);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while rows().await > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "old counts were not swept"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn guessing_the_current_password_is_limited_like_sign_in() {
    let app = spawn_app_with(|c| {
        c.sign_in_max_failures = 3;
        c.sign_in_lockout = Duration::from_secs(600);
    })
    .await;
    let change = |current: &'static str| {
        app.client
            .put(app.url("/api/me/password"))
            .json(&json!({ "current_password": current, "new_password": "a new long password" }))
            .send()
    };
    for _ in 0..2 {
        assert_eq!(change("guess").await.unwrap().status(), 403);
    }
    let limit = change("guess").await.unwrap();
    assert_eq!(limit.status(), 429);
    assert!(limit.headers().contains_key("retry-after"));
    let right = change(ADMIN_PASSWORD).await.unwrap();
    assert_eq!(right.status(), 429, "locked even with the right password");
    assert_eq!(problem_of(right).await.slug(), "too-many-attempts");
}

#[tokio::test]
async fn a_bogus_invitation_link_is_refused_before_any_password_work_and_limited_by_address() {
    let app = spawn_app_with(|c| {
        c.sign_in_max_failures = 1;
        c.sign_in_lockout = Duration::from_secs(600);
    })
    .await;
    let accept = |token: String, password: &'static str| {
        anonymous()
            .post(app.url(&format!("/api/invitations/{token}/accept")))
            .json(&json!({ "username": "mallory", "password": password }))
            .send()
    };
    // The link is looked up first: a bogus one is gone, whatever else the request holds
    // (a password too short to hash would otherwise be the answer).
    let first = accept("bogus-0".into(), "short").await.unwrap();
    assert_eq!(first.status(), 410);
    // One address may try five times the sign-in limit, then waits.
    let mut statuses = Vec::new();
    for n in 1..8 {
        statuses.push(
            accept(format!("bogus-{n}"), "a long password")
                .await
                .unwrap()
                .status()
                .as_u16(),
        );
    }
    assert_eq!(
        statuses,
        [410, 410, 410, 429, 429, 429, 429],
        "{statuses:?}"
    );
}

#[tokio::test]
async fn a_locked_address_cannot_go_on_to_lock_other_peoples_accounts() {
    let app = spawn_app_with(|c| {
        c.sign_in_max_failures = 1;
        c.sign_in_lockout = Duration::from_secs(600);
    })
    .await;
    let sign_in = |username: String| {
        anonymous()
            .post(app.url("/api/session"))
            .json(&json!({ "username": username, "password": "a guess" }))
            .send()
    };
    // Five guesses at five names lock this address (five times the account limit).
    for n in 0..5 {
        sign_in(format!("nobody{n}")).await.unwrap();
    }
    for _ in 0..6 {
        assert_eq!(sign_in(ADMIN.into()).await.unwrap().status(), 429);
    }
    let admin_bucket = format!(
        "account:{}",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(ADMIN.as_bytes()))
    );
    let counted: i64 = sqlx::query_scalar(
        "SELECT COALESCE(MAX(failures), 0) FROM sign_in_limits WHERE bucket = $1",
    )
    .bind(&admin_bucket)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(counted, 0, "the admin's account was not counted against");
    let locked: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM sign_in_limits WHERE bucket = $1 AND locked_until IS NOT NULL",
    )
    .bind(&admin_bucket)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(locked, 0);
}

/// Signs in as the admin from `address` (the app believes `X-Forwarded-For` from the test).
async fn sign_in_from(app: &TestApp, address: &str, password: &str) -> reqwest::Response {
    anonymous()
        .post(app.url("/api/session"))
        .header("x-forwarded-for", address)
        .json(&json!({ "username": ADMIN, "password": password }))
        .send()
        .await
        .unwrap()
}

/// An app that counts sign-ins under the address in `X-Forwarded-For`.
async fn behind_a_proxy(max_failures: i64) -> TestApp {
    spawn_app_with(|c| {
        c.sign_in_max_failures = max_failures;
        c.sign_in_lockout = Duration::from_secs(600);
        c.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    })
    .await
}

#[tokio::test]
async fn wrong_passwords_from_one_address_leave_the_person_free_to_sign_in_from_another() {
    let app = behind_a_proxy(5).await;
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(
            sign_in_from(&app, "203.0.113.9", "a guess")
                .await
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses, [401, 401, 401, 401, 429]);
    let there = sign_in_from(&app, "203.0.113.9", ADMIN_PASSWORD).await;
    assert_eq!(there.status(), 429, "the guessing address waits");
    let elsewhere = sign_in_from(&app, "198.51.100.4", ADMIN_PASSWORD).await;
    assert_eq!(
        elsewhere.status(),
        204,
        "the person signs in from another address (Retry-After {:?})",
        elsewhere.headers().get("retry-after")
    );
}

#[tokio::test]
async fn failures_spread_over_many_addresses_lock_the_person_everywhere_at_four_times_the_limit() {
    let app = behind_a_proxy(2).await;
    // One failure from each of eight addresses: no address, and no person-and-address,
    // reaches the limit of 2; the person's bound of 8 is reached by the eighth.
    let mut statuses = Vec::new();
    for n in 1..=8 {
        let address = format!("203.0.113.{n}");
        statuses.push(
            sign_in_from(&app, &address, "a guess")
                .await
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses, [401, 401, 401, 401, 401, 401, 401, 429]);
    let right = sign_in_from(&app, "198.51.100.4", ADMIN_PASSWORD).await;
    assert_eq!(
        right.status(),
        429,
        "locked from an address that never guessed"
    );
    assert_eq!(problem_of(right).await.slug(), "too-many-attempts");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_right_passwords_at_once_are_let_in_or_told_to_retry_in_a_second_and_lock_nothing() {
    let app = spawn_app_with(|c| {
        c.sign_in_max_failures = 3;
        c.sign_in_lockout = Duration::from_secs(600);
    })
    .await;
    let sign_ins = (0..8).map(|_| {
        anonymous()
            .post(app.url("/api/session"))
            .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
            .send()
    });
    for answer in futures::future::join_all(sign_ins).await {
        let answer = answer.unwrap();
        if answer.status() == 204 {
            continue;
        }
        assert_eq!(answer.status(), 429);
        let retry: u64 = answer.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry <= 1, "a right password is told to wait {retry} s");
        let problem = problem_of(answer).await;
        assert_eq!(problem.slug(), "too-many-attempts");
        assert!(!problem.detail.contains("failed"), "{}", problem.detail);
    }
    let ninth = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        ninth.status(),
        204,
        "nothing was locked (Retry-After {:?})",
        ninth.headers().get("retry-after")
    );
}

#[tokio::test]
async fn an_attempt_past_the_ones_being_checked_is_told_to_retry_in_a_second_and_locks_nothing() {
    let (app, config, store) = locking_at_three().await;
    // The address the app sees the test's requests come from.
    let buckets = || limits::sign_in_buckets(ADMIN, "127.0.0.1".parse().unwrap());
    let mut checking = Vec::new();
    for _ in 0..3 {
        checking.push(limits::begin(&store, &config, buckets()).await.unwrap());
    }
    let Err(crowded) = limits::begin(&store, &config, buckets()).await else {
        panic!("a fourth attempt was let through while three are being checked");
    };
    let crowded = axum::response::IntoResponse::into_response(crowded);
    assert_eq!(crowded.status(), 429);
    assert_eq!(
        crowded.headers()["retry-after"],
        "1",
        "told to retry in a second"
    );
    for attempt in checking {
        attempt.succeeded().await.unwrap();
    }
    let after = limits::begin(&store, &config, buckets()).await;
    assert!(after.is_ok(), "nothing was locked");
    after.unwrap().not_checked().await.unwrap();
    let right = anonymous()
        .post(app.url("/api/session"))
        .json(&json!({ "username": ADMIN, "password": ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 204);
    store.close().await;
}
