//! The benchmark (`bench` binary): one module per figure, each measured against a
//! baseline taken in the same run. The binary runs them in order and hands what they
//! measured to [`report`], which prints the targets and writes the JSON.
//!
//! The servers are child processes built with `--features bench-plain-insert`; the notes
//! the search and list figures run over are written through the server's own storage
//! ([`seed`]), so they are indexed exactly as the server indexes a note it creates.

pub mod burst;
pub mod disk;
pub mod files;
pub mod fill;
pub mod home;
pub mod latency;
pub mod lists;
pub mod live;
pub mod lone;
pub mod node;
pub mod page;
pub mod people;
pub mod postgres;
pub mod report;
pub mod search;
pub mod search_ab;
pub mod seed;
pub mod wasm;
pub mod writes;
