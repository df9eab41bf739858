//! Notes: the validated request, the SQL that stores and reads notes, and the routes.

pub mod new_note;
pub mod routes;
pub mod store;
