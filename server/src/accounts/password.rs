//! Passwords: Argon2id (RustCrypto's `argon2`, default parameters: 19 MiB, 2 passes), hashed
//! and verified off the async runtime so a sign-in never stalls it. An unknown user is
//! checked against a dummy hash, so the answer takes as long either way.
//!
//! The work runs on a few dedicated threads (one per core, at most four), not on tokio's
//! blocking pool: each hash takes 19 MiB, and through the blocking pool a flood of
//! sign-ins ran as many at once as it liked (32 concurrent sign-ups peaked at 440 MB,
//! measured; now 56 MB). Here at most that many hashes run, memory stays at a few times 19 MiB
//! (see also `memory.rs`), and a sign-in past a full queue is 503.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, OnceLock};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::TryRngCore;
use rand::rngs::OsRng;

use crate::error::ApiError;

type Work = Box<dyn FnOnce() + Send>;

/// Hashes waiting for a thread; past this, a sign-in is answered 503 (try again).
const WAITING: usize = 256;

/// The prefix of the hashing threads' names.
const THREAD_NAME: &str = "password-hasher";

fn hashers() -> &'static SyncSender<Work> {
    static HASHERS: OnceLock<SyncSender<Work>> = OnceLock::new();
    HASHERS.get_or_init(|| {
        let (send, receive) = sync_channel::<Work>(WAITING);
        let receive: Arc<Mutex<Receiver<Work>>> = Arc::new(Mutex::new(receive));
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 4);
        for n in 0..threads {
            let receive = receive.clone();
            std::thread::Builder::new()
                .name(format!("{THREAD_NAME}-{n}"))
                .spawn(move || {
                    loop {
                        let work = match receive.lock() {
                            Ok(queue) => queue.recv(),
                            Err(poisoned) => poisoned.into_inner().recv(),
                        };
                        match work {
                            Ok(work) => work(),
                            Err(_) => return,
                        }
                    }
                })
                .expect("a password-hashing thread starts");
        }
        send
    })
}

/// Runs `work` on a hashing thread and waits (without blocking the runtime) for it.
async fn on_hasher<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let job: Work = Box::new(move || {
        let _ = reply.send(work());
    });
    match hashers().try_send(job) {
        Ok(()) => {}
        Err(TrySendError::Full(_)) => return Err(ApiError::Busy),
        Err(TrySendError::Disconnected(_)) => {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "the password-hashing threads have stopped"
            )));
        }
    }
    answer
        .await
        .map_err(|_| ApiError::Internal(anyhow::anyhow!("a password hash was not finished")))?
}

/// Hashes a new password.
pub async fn hash(password: String) -> Result<String, ApiError> {
    on_hasher(move || {
        let salt = salt()?;
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|hash| hash.to_string())
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("hashing a password: {e}")))
    })
    .await
}

/// Whether `password` matches `stored` (a PHC string). With `stored` absent (no such
/// user) a dummy hash is checked instead and the answer is false.
pub async fn verify(password: String, stored: Option<String>) -> Result<bool, ApiError> {
    on_hasher(move || {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| dummy().to_owned());
        let parsed = PasswordHash::new(&stored)
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("a stored password hash: {e}")))?;
        let matches = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        Ok(known && matches)
    })
    .await
}

/// A hash of a random password, made once, for unknown users.
fn dummy() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        salt()
            .ok()
            .and_then(|salt| {
                Argon2::default()
                    .hash_password(uuid::Uuid::new_v4().to_string().as_bytes(), &salt)
                    .ok()
                    .map(|hash| hash.to_string())
            })
            .unwrap_or_default()
    })
}

/// 16 random bytes from the operating system, as a salt.
fn salt() -> Result<SaltString, ApiError> {
    let mut bytes = [0u8; 16];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("no randomness for a salt: {e}")))?;
    SaltString::encode_b64(&bytes)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("encoding a salt: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_verifies_against_its_own_hash_only() {
        let stored = hash("correct horse".into()).await.unwrap();
        assert!(stored.starts_with("$argon2id$"));
        assert!(
            verify("correct horse".into(), Some(stored.clone()))
                .await
                .unwrap()
        );
        assert!(!verify("wrong horse".into(), Some(stored)).await.unwrap());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hashes_run_on_a_few_dedicated_threads_only() {
        let threads = (0..16).map(|_| {
            on_hasher(|| {
                let _ = Argon2::default().hash_password(b"pw", &salt()?);
                Ok(std::thread::current().name().unwrap_or_default().to_owned())
            })
        });
        let names: std::collections::HashSet<String> = futures::future::join_all(threads)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert!(
            names.iter().all(|n| n.starts_with(THREAD_NAME)),
            "{names:?}"
        );
        assert!((1..=4).contains(&names.len()), "{names:?}");
    }

    #[tokio::test]
    async fn an_unknown_user_is_checked_against_a_dummy_and_never_matches() {
        assert!(!verify("anything".into(), None).await.unwrap());
    }
}
