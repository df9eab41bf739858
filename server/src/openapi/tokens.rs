//! Personal access tokens as the document describes them (PROTOCOL.md, "API tokens").
//! Managed with a session only: a bearer token cannot make or revoke tokens.

use app::api::{NewToken, Problem, TokenList, TokenMade};

/// `GET /api/tokens`.
#[utoipa::path(
    get, path = "/api/tokens", tag = "tokens",
    summary = "The person's tokens, newest first, never their secrets",
    responses((status = 200, description = "The tokens.", body = TokenList)),
    security(("session" = []))
)]
pub fn list_tokens() {}

/// `POST /api/tokens`.
#[utoipa::path(
    post, path = "/api/tokens", tag = "tokens",
    summary = "Make a token: the answer is the only time it is shown",
    request_body(content = NewToken, content_type = "application/json"),
    responses(
        (status = 201, description = "Made.", body = TokenMade),
        (status = 400, description = "`invalid-json`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too-many-tokens`: the person has as many tokens as one may.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`validation-failed`: a name empty or longer than 100 characters.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []))
)]
pub fn make_token() {}

/// `DELETE /api/tokens/{id}`.
#[utoipa::path(
    delete, path = "/api/tokens/{id}", tag = "tokens",
    summary = "Revoke a token",
    params(("id" = String, Path, description = "The token's id.")),
    responses(
        (status = 204, description = "Revoked."),
        (status = 404, description = "`not-found`: no token of this person has the id.", body = Problem, content_type = "application/problem+json"),
    ),
    security(("session" = []))
)]
pub fn revoke_token() {}
