//! HTTP concerns shared by every route: reading a request body within its limits, the
//! `Authorization: Bearer` header, the `Host` check, the security headers, the 405 of a
//! method a route does not have, the `limit` of a page of results, the server's time on a
//! request (`Server-Timing`), and what one client address or a stalled reader may hold.

pub mod bearer;
pub mod body;
pub mod client;
pub mod csrf;
pub mod host;
/// The one HTML escaper, shared with the browser's offline search (`app::text::html`).
pub use app::text::html;
pub mod paging;
pub mod per_address;
pub mod routing;
pub mod security_headers;
pub mod server_timing;
pub mod stalled_writes;
