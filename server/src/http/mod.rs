//! HTTP concerns shared by every route: reading a request body within its limits, the
//! `Host` check, and the security headers.

pub mod body;
pub mod client;
pub mod csrf;
pub mod host;
pub mod security_headers;
