//! The accounts routes as the document describes them (`accounts::routes` serves them).
//! Their bodies are read into the handlers' own private types; the schemas here state
//! the same fields (the truthfulness test and the fuzzer hold the two together).

use app::api::{AccountUser, Me, Problem};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A sign-in, a sign-up or an accepted invitation.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Credentials {
    /// 1–64 letters, digits, `.`, `_` or `-` (any script's letters; ASCII stated here).
    #[schema(pattern = "^[A-Za-z0-9._-]{1,64}$")]
    pub username: String,
    #[schema(min_length = 8, max_length = 1024)]
    pub password: String,
}

/// `PUT /api/me/password`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct PasswordChange {
    pub current_password: String,
    #[schema(min_length = 8, max_length = 1024)]
    pub new_password: String,
}

/// `POST /api/setup`: the first admin, with the token of the setup link.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SetupRequest {
    pub token: String,
    #[schema(pattern = "^[A-Za-z0-9._-]{1,64}$")]
    pub username: String,
    #[schema(min_length = 8, max_length = 1024)]
    pub password: String,
}

/// The answer to `POST /api/invitations`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Invitation {
    pub token: String,
    /// The link to send to the person invited.
    pub url: String,
    pub expires_at: String,
}

/// `GET /api/users`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct UserList {
    pub users: Vec<AccountUser>,
}

/// `POST /api/session`.
#[utoipa::path(
    post, path = "/api/session", tag = "accounts",
    summary = "Sign in: the answer sets the session cookie",
    request_body(content = Credentials, content_type = "application/json"),
    responses(
        (status = 204, description = "Signed in.", headers(("Set-Cookie" = String, description = "The session cookie."))),
        (status = 400, description = "`invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`invalid-credentials`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too-many-attempts`: too many failed sign-ins to this account from this address (or from anywhere, or from this address to any account) — `Retry-After` is the lockout left; or, with `Retry-After: 1` and nothing locked, as many sign-ins as the limit allows are being checked at once.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub fn sign_in() {}

/// `DELETE /api/session`.
#[utoipa::path(
    delete, path = "/api/session", tag = "accounts",
    summary = "Sign out (signed in or not): the answer clears the cookie",
    responses(
        (status = 204, description = "Signed out.", headers(("Set-Cookie" = String, description = "The cookie, cleared."))),
    )
)]
pub fn sign_out() {}

/// `GET /api/me`.
#[utoipa::path(
    get, path = "/api/me", tag = "accounts",
    summary = "Who is signed in",
    responses((status = 200, description = "The person signed in.", body = Me)),
    security(("session" = []))
)]
pub fn me() {}

/// `PUT /api/me/password`.
#[utoipa::path(
    put, path = "/api/me/password", tag = "accounts",
    summary = "Change the password: every session ends (this request gets a new one), and so does every API token another session made",
    request_body(content = PasswordChange, content_type = "application/json"),
    responses(
        (status = 204, description = "Changed.", headers(("Set-Cookie" = String, description = "The new session cookie."))),
        (status = 400, description = "`invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`wrong-password`: the current password is wrong.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`: a new password outside the bounds.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too-many-attempts`: too many wrong current passwords (`Retry-After` is the lockout left), or as many checks as the limit allows are running at once (`Retry-After: 1`, nothing locked).", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []))
)]
pub fn change_password() {}

/// `POST /api/setup`.
#[utoipa::path(
    post, path = "/api/setup", tag = "accounts",
    summary = "Make the first account, an admin, with the setup link's token",
    request_body(content = SetupRequest, content_type = "application/json"),
    responses(
        (status = 201, description = "Made and signed in.", headers(("Set-Cookie" = String, description = "The session cookie."))),
        (status = 400, description = "`invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`setup-link-invalid`.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`setup-done`: the first account exists already.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub fn complete_setup() {}

/// `POST /api/invitations`.
#[utoipa::path(
    post, path = "/api/invitations", tag = "accounts",
    summary = "Invite a person (admins only)",
    responses(
        (status = 201, description = "The invitation.", body = Invitation),
        (status = 403, description = "`admin-only`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []))
)]
pub fn invite() {}

/// `POST /api/invitations/{token}/accept`.
#[utoipa::path(
    post, path = "/api/invitations/{token}/accept", tag = "accounts",
    summary = "Make an account with an invitation",
    params(("token" = String, Path, description = "The invitation's token.")),
    request_body(content = Credentials, content_type = "application/json"),
    responses(
        (status = 201, description = "Made and signed in.", headers(("Set-Cookie" = String, description = "The session cookie."))),
        (status = 400, description = "`invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`username-taken`.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`invitation-gone`: used already or expired.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too-many-attempts`.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub fn accept_invitation() {}

/// `POST /api/users`.
#[utoipa::path(
    post, path = "/api/users", tag = "accounts",
    summary = "Sign up, where the server allows it",
    request_body(content = Credentials, content_type = "application/json"),
    responses(
        (status = 201, description = "Made and signed in.", headers(("Set-Cookie" = String, description = "The session cookie."))),
        (status = 400, description = "`invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`signup-closed`: accounts come by invitation.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`username-taken`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too-many-attempts`.", body = Problem, content_type = "application/problem+json"),
    )
)]
pub fn sign_up() {}

/// `GET /api/users`.
#[utoipa::path(
    get, path = "/api/users", tag = "accounts",
    summary = "Every account (admins only)",
    responses(
        (status = 200, description = "The accounts.", body = UserList),
        (status = 403, description = "`admin-only`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []))
)]
pub fn list_users() {}

/// `POST /api/users/{id}/disable`.
#[utoipa::path(
    post, path = "/api/users/{id}/disable", tag = "accounts",
    summary = "Disable an account and end its sessions (admins only)",
    params(("id" = String, Path, description = "The account's id.")),
    responses(
        (status = 204, description = "Disabled."),
        (status = 403, description = "`admin-only`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not-found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`: an admin cannot disable their own account.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []))
)]
pub fn disable_user() {}

/// `POST /api/users/{id}/enable`.
#[utoipa::path(
    post, path = "/api/users/{id}/enable", tag = "accounts",
    summary = "Enable an account again (admins only)",
    params(("id" = String, Path, description = "The account's id.")),
    responses(
        (status = 204, description = "Enabled."),
        (status = 403, description = "`admin-only`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not-found`.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []))
)]
pub fn enable_user() {}
