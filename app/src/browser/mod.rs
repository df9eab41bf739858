//! Browser-only pieces: fetch as the save transport, localStorage for intents, drafts and
//! the last notes seen, the tab lock, the service worker, and the runner that sends the
//! queue on the page's events.

pub mod drafts;
pub mod fetch_transport;
pub mod intent_store;
pub mod notes_cache;
pub mod runner;
pub mod service_worker;
pub mod tab_lock;
