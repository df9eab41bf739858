//! Notes: the validated requests, the write operations, the list cursor, the routes
//! (the JSON API, and the page's form without JavaScript), and a person's notes taken
//! away and brought back (`transfer`: export and import).

pub mod changes;
pub mod cursor;
pub mod form;
pub mod merge;
pub mod new_note;
#[cfg(feature = "bench-plain-insert")]
pub mod plain_insert;
pub mod routes;
pub mod transfer;
pub mod writes;
