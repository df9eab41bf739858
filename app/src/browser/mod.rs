//! Browser-only glue: storage (intents in localStorage, the draft in sessionStorage, the
//! bounded notes cache, the record of intents finished), fetch as the save transport,
//! the tab lock, the service worker, the send loop (`drain`), the commands the page's
//! door calls, and the page's events.

pub mod commands;
pub mod drafts;
pub mod drain;
pub mod fetch_transport;
pub mod finished;
pub mod intent_store;
pub mod namespace;
pub mod notes_cache;
pub mod page_events;
pub mod service_worker;
pub mod tab_lock;
