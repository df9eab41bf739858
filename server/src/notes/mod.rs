//! Notes: the validated requests, the write operations, the list cursor, and the routes
//! (the JSON API, and the page's form without JavaScript).
//!
//! A write, in the order it runs: `routes` (or `form`) parses and checks the request into
//! `new_note` / `changes`; `idempotency::execute` runs the operation once per key —
//! `create`, `edit` (deciding through `edit_plan` and `merge`) or `lifecycle` (trash,
//! restore, delete for good), each asking storage first what an earlier use of the key
//! wrote (`NoteWrites::earlier_write`: a late retry) — through the storage traits;
//! `answers` tells what it did over HTTP, the answer kept with the key — about one note,
//! with its body rendered (`rendered`).
//!
//! `transfer` takes a person's notes away and brings them back (export and import).

pub mod answers;
pub mod changes;
pub mod create;
pub mod edit;
pub mod edit_plan;
pub mod form;
pub mod history;
pub mod lifecycle;
pub mod merge;
pub mod new_note;
pub mod patch;
pub mod pin;
#[cfg(feature = "bench-plain-insert")]
pub mod plain_insert;
pub mod rendered;
pub mod routes;
pub mod transfer;
