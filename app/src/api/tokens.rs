//! Wire shapes of personal access tokens (`/api/tokens`): made with a name, shown once,
//! listed without their secret, revoked.

use serde::{Deserialize, Serialize};

/// The API path of tokens.
pub const TOKENS_PATH: &str = "/api/tokens";
/// Longest token name, in characters.
pub const TOKEN_NAME_MAX_CHARS: usize = 100;

/// `POST /api/tokens`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewToken {
    pub name: String,
}

/// The answer to `POST /api/tokens` (201): the only time the token itself is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TokenMade {
    pub id: String,
    pub name: String,
    /// Sent as `Authorization: Bearer <token>`.
    pub token: String,
    pub created_at: String,
}

/// A token as listed: never its secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TokenInfo {
    pub id: String,
    pub name: String,
    pub created_at: String,
    /// When a request last used it (to within a minute), or `None` if none has.
    pub last_used_at: Option<String>,
}

/// `GET /api/tokens`: the person's tokens, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TokenList {
    pub tokens: Vec<TokenInfo>,
}
