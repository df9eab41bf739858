//! oncenote's server: the notes API with idempotent creates (PROTOCOL.md), the
//! server-rendered pages, and the background sweeper.

pub mod config;
pub mod db;
pub mod error;
pub mod health;
pub mod idempotency;
pub mod notes;
pub mod offline;
pub mod shutdown;
pub mod startup;
pub mod state;
pub mod sweeper;
pub mod telemetry;
pub mod timestamp;
