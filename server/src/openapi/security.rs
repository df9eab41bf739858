//! How a request says who sends it, as the document tells: the session cookie a sign-in
//! sets, or a personal access token (`Authorization: Bearer`).

use utoipa::Modify;
use utoipa::openapi::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};

use crate::accounts::session::COOKIE;

/// Adds the two security schemes, `session` and `bearer`, that operations name.
pub struct Schemes;

impl Modify for Schemes {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                COOKIE,
                "The cookie `POST /api/session` sets (`__Host-oncenote_session` behind HTTPS). \
                 A write with it from another site's page is refused (403 `cross-site-request`).",
            ))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A personal access token (`POST /api/tokens`): for notes, search, tags, \
                         changes, events and files; never for accounts or tokens.",
                    ))
                    .build(),
            ),
        );
    }
}
