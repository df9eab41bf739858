//! Notes: the validated request, the SQL that stores and reads notes, and the routes.

pub mod new_note;
#[cfg(feature = "bench-plain-insert")]
pub mod plain_insert;
pub mod routes;
pub mod store;
