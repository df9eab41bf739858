//! Tokens for sessions, invitations and setup links: 256 random bits from the operating
//! system's generator, as hex. The database keeps only a token's SHA-256, so a copy of the
//! database (a backup) holds no usable token. Nothing is signed, so there is no key to
//! configure: every server process reads the same sessions from the same database.

use rand::TryRngCore;
use rand::rngs::OsRng;
use sha2::{Digest, Sha256};

/// A new random token.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut bytes)
        .expect("the operating system's random generator answers");
    hex::encode(bytes)
}

/// What the database keeps of a token.
pub fn digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_stored_only_as_their_digest() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert_ne!(digest(&a), a);
        assert_eq!(digest(&a), digest(&a));
    }
}
