#![recursion_limit = "512"]
//! oncenote's server: the notes API with idempotent writes (PROTOCOL.md), the
//! server-rendered pages, and the background sweeper.

pub mod accounts;
pub mod cli;
pub mod config;
pub mod error;
pub mod files;
pub mod health;
pub mod healthcheck;
pub mod http;
pub mod idempotency;
pub mod live;
pub mod memory;
pub mod notes;
pub mod offline;
pub mod open_files;
pub mod openapi;
pub mod page_data;
pub mod records;
pub mod search;
pub mod serve;
pub mod shutdown;
pub mod startup;
pub mod state;
pub mod storage;
pub mod sweeper;
pub mod tags;
pub mod telemetry;
pub mod text;
pub mod timestamp;
