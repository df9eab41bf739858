//! Tokens for sessions, invitations, setup links and personal access tokens (`onp_…`):
//! 256 random bits from the operating system's generator, as hex. The database keeps only a token's SHA-256, so a copy of the
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

/// What every personal access token starts with. A prefix makes a token recognisable where
/// it should not be (a secret scanner finds one pasted in a repository, a person sees what
/// it is in a script), and lets the server refuse any other bearer without a query.
pub const API_TOKEN_PREFIX: &str = "onp_";

/// A new personal access token: [`API_TOKEN_PREFIX`] and 256 random bits as hex.
pub fn new_api_token() -> String {
    format!("{API_TOKEN_PREFIX}{}", new_token())
}

/// Whether `token` has the shape of a personal access token (it may still be no one's).
pub fn is_api_token_shaped(token: &str) -> bool {
    token.strip_prefix(API_TOKEN_PREFIX).is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
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

    #[test]
    fn personal_access_tokens_are_prefixed_and_recognised_by_shape() {
        let token = new_api_token();
        assert!(token.starts_with("onp_") && token.len() == 68, "{token}");
        assert!(is_api_token_shaped(&token));
        assert!(!is_api_token_shaped(&new_token()));
        assert!(!is_api_token_shaped(&token.to_uppercase()));
        assert!(!is_api_token_shaped(&token[..67]));
        assert!(!is_api_token_shaped(&format!("{token}0")));
    }
}
