//! Browser-only glue: storage (intents in localStorage, the draft in sessionStorage, the
//! bounded notes cache, the record of intents finished, the offline copy in IndexedDB and
//! the pages read from it in the offline shell, the files added to notes in IndexedDB
//! until uploaded — `attach`, `file_hash`, `file_store`, `file_upload`), fetch as the save transport,
//! the tab lock, the service worker, the send loop (`drain`), the save commands, import,
//! sign-out, the page's events, and following other devices' writes (`live`).
//!
//! What the page's door (`door.rs`) calls is re-exported here; a build without the
//! browser (server rendering, native tests) gets `stub.rs` in this module's place, with
//! the same entry points doing nothing.

mod attach;
mod commands;
mod drafts;
mod drain;
mod fetch_transport;
mod file_hash;
mod file_list;
mod file_store;
mod file_upload;
mod finished;
mod idb;
mod idle;
mod import;
mod intent_store;
mod live;
mod namespace;
mod notes_cache;
mod offline_copy;
pub mod offline_pages;
mod page_events;
mod search_online;
mod service_worker;
mod sign_out;
mod tab_lock;
mod token_calls;

pub use attach::{attach_dropped, attach_pasted, attach_picked};
pub use commands::{
    change_note, discard, edit, press_save, restore_version, tick_task, undo_trash,
};
pub use drain::drain as retry_now;
pub use file_list::{load_files, load_more_files};
pub use import::import_file;
pub use page_events::{resume_draft, start};
pub use sign_out::confirm_sign_out;
pub use token_calls::{load_tokens, make_token, revoke_token};
