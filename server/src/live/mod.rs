//! Live updates: the change feed over HTTP (`GET /api/changes`) and the streams that push
//! it as it moves (`GET /api/events`, server-sent events).
//!
//! The feed itself is written by the writes (`storage::NoteWrites`, one change per note
//! in the write's transaction). Here: the [`hub::Hub`] counts the open streams (a cap per
//! person and per process) and wakes a person's streams when storage signals that their
//! feed may have moved — after a commit in this process (both databases), a `NOTIFY` from
//! another replica heard on PostgreSQL, or the slow poll that backs them up; each stream then reads the feed again from its own
//! cursor ([`stream`]), so a signal carries nothing that could be lost; the streams of one
//! person at one cursor share that read ([`shared_read`]).

pub mod hub;
mod page;
pub mod routes;
mod shared_read;
mod stream;

pub use hub::Hub;
