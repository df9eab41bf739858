//! People as the database keeps them: an account, a new one about to be written, and the
//! person a session or a personal access token belongs to.

/// A person with an account (the wire type the admin's list shows).
pub use app::api::AccountUser as User;

/// A new account about to be written.
#[derive(Clone, Debug)]
pub struct NewUser {
    pub id: String,
    pub username: String,
    pub password_hash: String,
    pub admin: bool,
    pub created_at: String,
}

/// The signed-in person of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Viewer {
    pub user_id: String,
    pub username: String,
    pub admin: bool,
    /// What signed the request in: a session cookie or a personal access token.
    pub via: Credential,
}

impl Viewer {
    /// The SHA-256 of the request's session token, when a session cookie signed it in.
    pub fn session(&self) -> Option<&str> {
        match &self.via {
            Credential::Session(digest) => Some(digest),
            Credential::Token { .. } => None,
        }
    }
}

/// What signed a request in. A token is for scripts: it reaches the notes and their
/// files, never account management (sessions, passwords, tokens, invitations, users).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// A session cookie, by the SHA-256 of its token.
    Session(String),
    /// A personal access token: its row's id and the SHA-256 of the token.
    Token { id: String, digest: String },
}
