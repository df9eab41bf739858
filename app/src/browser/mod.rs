//! Browser-only pieces: fetch as the save transport, localStorage as the intent store,
//! and the runner that sends the queue on the page's events.

pub mod fetch_transport;
pub mod intent_store;
pub mod runner;
