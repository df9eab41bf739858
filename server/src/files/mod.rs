//! Files in notes (PROTOCOL.md, "Files"; docs/PROTOCOL.md, "Files" says what we chose):
//! the HTTP side of uploading, serving and listing them. Where the bytes live, and why,
//! is `storage::files`.
//!
//! - `PUT /api/files/{sha256}` (`upload`): the bytes, stored once.
//! - `GET /files/{sha256}` (`serve`): the bytes, to their owner, safely.
//! - `GET /api/files` (`list`): the person's files and their room.
//!
//! One concern per file: `routes` (the router), `uploads` (what uploads share in a
//! process), `spool` (where an upload waits, removed on every path), `limits`
//! (uploads at once), `sniff` (what a file is, by its bytes), `range` (`Range` requests).

pub mod limits;
pub mod list;
pub mod range;
pub mod routes;
pub mod serve;
pub mod sniff;
pub mod spool;
pub mod upload;
pub mod uploads;

pub use routes::router;
pub use uploads::Uploads;
