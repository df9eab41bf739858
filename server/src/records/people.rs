//! People as the database keeps them: an account, a new one about to be written, and the
//! person a session belongs to.

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
    /// The SHA-256 of this request's session token.
    pub session: String,
}
