//! Passwords: Argon2id (RustCrypto's `argon2`, default parameters: 19 MiB, 2 passes), hashed
//! and verified on the blocking thread pool so a sign-in never stalls the async runtime.
//! An unknown user is checked against a dummy hash, so the answer takes as long either way.

use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::TryRngCore;
use rand::rngs::OsRng;

use crate::error::ApiError;

/// Hashes a new password.
pub async fn hash(password: String) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || {
        let salt = salt()?;
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|hash| hash.to_string())
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("hashing a password: {e}")))
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?
}

/// Whether `password` matches `stored` (a PHC string). With `stored` absent (no such
/// user) a dummy hash is checked instead and the answer is false.
pub async fn verify(password: String, stored: Option<String>) -> Result<bool, ApiError> {
    tokio::task::spawn_blocking(move || {
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
    .map_err(|e| ApiError::Internal(e.into()))?
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

    #[tokio::test]
    async fn an_unknown_user_is_checked_against_a_dummy_and_never_matches() {
        assert!(!verify("anything".into(), None).await.unwrap());
    }
}
