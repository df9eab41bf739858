//! The offline copy: every note of the signed-in person, kept in this browser's IndexedDB
//! and kept current from the change feed (PROTOCOL.md "Changes and live updates"), so
//! that offline every note opens, the lists and tags work and the search finds what it
//! finds online (`offline_pages` answers the pages from it).
//!
//! - One database per person, `oncenote-copy-<user id>`: another person signing in on
//!   this browser opens their own and never reads this one; sign-out deletes it
//!   (`sign_out.rs`) unless writes are unsaved.
//! - Store `notes`: each note as the feed gave it (its `html` included), as JSON, keyed
//!   by id. Store `meta`: the feed cursor (`cursor`, the `next` of the last page applied)
//!   and the person's name for the masthead (`username`), and each note purged while
//!   the copy was kept (`purged:<id>`, the purge's seq): a page of the feed read before
//!   the live page applied a purge is kept after it, and must not bring the note back.
//!   They stay as long as the copy (a few dozen bytes a purge): the live page of a tab
//!   that slept can bring a change older than any cursor.
//! - A sync pages `GET /api/changes?since=<cursor>` until `more` is false, each page in
//!   one transaction with the cursor, so a sync cut off halfway resumes where it stopped.
//!   Pages are small and each waits for the browser to be idle and for the answer to
//!   any search the person is waiting for in this tab (`idle`), so a first copy of many
//!   notes runs in the background a slice at a time, never as a long task, and no page
//!   is read or kept while a search waits (one already sent goes on).
//!   A 410 `changes-expired` drops the copy and reads it again from `since=0`. One tab
//!   syncs at a time (a Web Lock); the others skip.
//! - It syncs at page load, every minute while online, and when the network comes back;
//!   and every page of changes the live page reads (`live::on_applied`) is kept at once
//!   (the cursor moves at the next sync).
//! - Every read names the page's person (`X-Oncenote-User`): when the browser's cookie has
//!   become someone else's, the server refuses, and their notes never enter this copy.
//! - When the browser will not keep it (no IndexedDB in a private window, storage full)
//!   the page says so and works as before: the copy is only a copy, and the unsaved
//!   writes are in localStorage, never here.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbObjectStore, IdbRequest, IdbTransaction, IdbTransactionMode};

use super::idb::{self, IdbError};
use super::{idle, live, namespace, tab_lock};
use crate::api::{CHANGES_PATH, Change, ChangeKind, Note, OWNER_HEADER};
use crate::offline::feed::{self, Held, Step};
use crate::state::PageState;
use crate::state::feed_cursor::FeedAnswer;

/// The schema's version: a new store or index means a new version.
const VERSION: u32 = 1;
const NOTES: &str = "notes";
const META: &str = "meta";
const CURSOR: &str = "cursor";
const USERNAME: &str = "username";
/// The prefix of a purge's key in `meta` (`purged:<note id>`, its value the purge's seq):
/// kept beside the cursor rather than in a store of its own, so that copies made before
/// purges were remembered need no new schema version (which would close every open tab's
/// connection to it).
const PURGED: &str = "purged:";
/// How often the copy follows the feed while the page is open and online.
const EVERY: Duration = Duration::from_secs(60);
/// Changes read from the feed at a time: a page is parsed and kept between the person's
/// own doings, never as one long task. On a CPU slowed ×4 for real, the page had 3 tasks
/// of 50 ms or more (whatever code ran in them) in the first 30 s of the fill after
/// hydration (`end2end/bench/fill.mjs`); Lighthouse's simulated mobile run still counts its
/// many tasks of 12.5 ms or more at full speed as long (README, "The fill on a CPU slowed
/// for real").
const SYNC_PAGE: u32 = 50;
/// Notes of a page read from the copy, or kept in it, in one task: a page is kept in
/// slices of this many inside its one transaction, the browser's other work (a key
/// pressed, a frame painted) running between them. Against the whole page in one task
/// (2026-12-07, Lighthouse's simulated mobile run of the home page over 100,000 notes,
/// three runs each): tasks long once multiplied ×4 after the load 5 / 2 / 1 → 0 / 0 / 0,
/// for 3–6 % fewer notes copied a second (README, "A page of the feed kept ten notes a
/// task").
const PER_TASK: usize = 10;

thread_local! {
    static DATABASE: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
    static SYNCING: Cell<bool> = const { Cell::new(false) };
}

/// The database holding `user`'s copy.
pub fn database_name(user: &str) -> String {
    format!("oncenote-copy-{user}")
}

/// Keeps the copy current from now on: a sync at once (none when the copy is already at
/// the seq the page was rendered at), then every minute and when the network comes back,
/// and every page of changes the live page reads. `username` (from the page) is kept for
/// the masthead offline.
pub fn follow(page: PageState, username: Option<String>) {
    leptos::task::spawn_local(async move {
        if let Some(name) = username
            && let Err(error) = keep_username(&name).await
        {
            refused(page, &error);
        }
        start_sync(page, true);
    });
    live::on_applied(move |changes| {
        let changes = changes.to_vec();
        leptos::task::spawn_local(async move {
            if let Err(error) = apply(&changes, None).await {
                refused(page, &error);
            }
        });
    });
    let _ = set_interval_with_handle(
        move || {
            if page.connection.online.get_untracked() {
                sync(page);
            }
        },
        EVERY,
    );
}

/// Brings the copy up to date with the feed, unless a sync is going in this tab or
/// another (then that one does it).
pub fn sync(page: PageState) {
    start_sync(page, false);
}

fn start_sync(page: PageState, at_page_load: bool) {
    if SYNCING.get() || !page.connection.online.get_untracked() {
        return;
    }
    let Some(user) = namespace::user() else {
        return;
    };
    SYNCING.set(true);
    leptos::task::spawn_local(async move {
        let outcome =
            tab_lock::exclusively(&format!("copy-{user}"), pull(&user, at_page_load)).await;
        if let Some(Err(error)) = outcome {
            refused(page, &error);
        }
        SYNCING.set(false);
    });
}

/// Every note the copy holds (none when there is no copy).
pub async fn load_notes() -> Result<Vec<Note>, IdbError> {
    let db = database().await?;
    let transaction = db.transaction_with_str(NOTES).map_err(js_failed)?;
    let store = transaction.object_store(NOTES).map_err(js_failed)?;
    let all = idb::settle(&store.get_all().map_err(js_failed)?).await?;
    let all: js_sys::Array = all.dyn_into().map_err(js_failed)?;
    Ok(all
        .iter()
        .filter_map(|value| value.as_string())
        .filter_map(|json| serde_json::from_str(&json).ok())
        .collect())
}

/// The name of the person whose copy this is, as last seen online.
pub async fn username() -> Option<String> {
    let db = database().await.ok()?;
    let transaction = db.transaction_with_str(META).ok()?;
    let store = transaction.object_store(META).ok()?;
    let request = store.get(&JsValue::from_str(USERNAME)).ok()?;
    idb::settle(&request).await.ok()?.as_string()
}

/// Deletes `user`'s copy (at sign-out).
pub async fn forget(user: &str) -> Result<(), IdbError> {
    if let Some(db) = DATABASE.with(|d| d.borrow_mut().take()) {
        db.close();
    }
    idb::delete(&database_name(user)).await
}

/// The page's notice: this browser keeps no offline copy.
fn refused(page: PageState, error: &IdbError) {
    match error {
        IdbError::Unavailable | IdbError::Full => page.connection.no_offline_copy.set(true),
        IdbError::Failed(name) => leptos::logging::warn!("the offline copy failed: {name}"),
    }
}

/// This person's database, opened once per page.
async fn database() -> Result<IdbDatabase, IdbError> {
    if let Some(db) = DATABASE.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    // The offline shell's first readers run before the page's start has set the person.
    let user = namespace::user()
        .or_else(namespace::read_user_from_page)
        .ok_or(IdbError::Unavailable)?;
    let db = idb::open(&database_name(&user), VERSION, &[NOTES, META]).await?;
    DATABASE.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

fn js_failed(error: JsValue) -> IdbError {
    IdbError::Failed(format!("{error:?}"))
}

fn writing(db: &IdbDatabase) -> Result<(IdbTransaction, IdbObjectStore, IdbObjectStore), IdbError> {
    let names = js_sys::Array::of2(&NOTES.into(), &META.into());
    let transaction = db
        .transaction_with_str_sequence_and_mode(&names, IdbTransactionMode::Readwrite)
        .map_err(js_failed)?;
    let notes = transaction.object_store(NOTES).map_err(js_failed)?;
    let meta = transaction.object_store(META).map_err(js_failed)?;
    Ok((transaction, notes, meta))
}

async fn keep_username(name: &str) -> Result<(), IdbError> {
    let db = database().await?;
    let (transaction, _, meta) = writing(&db)?;
    meta.put_with_key(&JsValue::from_str(name), &JsValue::from_str(USERNAME))
        .map_err(js_failed)?;
    idb::committed(&transaction).await
}

async fn cursor() -> Result<i64, IdbError> {
    let db = database().await?;
    let transaction = db.transaction_with_str(META).map_err(js_failed)?;
    let store = transaction.object_store(META).map_err(js_failed)?;
    let request = store.get(&JsValue::from_str(CURSOR)).map_err(js_failed)?;
    Ok(idb::settle(&request)
        .await?
        .as_f64()
        .map_or(0, |seq| seq as i64))
}

/// The feed's seq the page was rendered at (`<body data-seq>`), if it says.
fn page_seq() -> Option<i64> {
    web_sys::window()?
        .document()?
        .body()?
        .get_attribute("data-seq")?
        .parse()
        .ok()
}

/// Pages the feed from the cursor until it has no more, applying each page.
async fn pull(user: &str, at_page_load: bool) -> Result<(), IdbError> {
    let mut since = cursor().await?;
    if at_page_load && since > 0 && page_seq().is_some_and(|seq| since >= seq) {
        return Ok(()); // nothing happened since the copy was last brought up to date
    }
    let mut started_over = false;
    loop {
        // A page at a time, when the browser is idle and no search of the person's is
        // waiting: a first copy of many notes (a new browser) is read in the background,
        // never holding up the page. A page read while a search was sent is kept after
        // its answer.
        idle::until_free().await;
        match read_page(user, since).await {
            FeedAnswer::Page(page) => {
                idle::behind_the_person().await;
                apply(&page.changes, Some(page.next)).await?;
                if !page.more || page.next <= since {
                    return Ok(());
                }
                since = page.next;
            }
            // Once per sync: a feed that keeps answering 410 from 0 is not one to follow.
            FeedAnswer::Expired if !started_over => {
                started_over = true;
                clear().await?;
                since = 0;
            }
            // Signed out, someone else's cookie, a server not answering: the copy stays as
            // it is until a later sync.
            FeedAnswer::Expired
            | FeedAnswer::SignedOut
            | FeedAnswer::SomeoneElseSignedIn
            | FeedAnswer::TryLater => return Ok(()),
        }
    }
}

async fn read_page(user: &str, since: i64) -> FeedAnswer {
    let url = format!("{CHANGES_PATH}?since={since}&limit={SYNC_PAGE}");
    let sent = gloo_net::http::Request::get(&url)
        .header(OWNER_HEADER, user)
        .send()
        .await;
    let Ok(response) = sent else {
        return FeedAnswer::TryLater;
    };
    let status = response.status();
    let body = response.binary().await.unwrap_or_default();
    FeedAnswer::read(status, &body)
}

/// The key in `meta` of the purge of note `id` (its value: the purge's seq).
fn purge_key(id: &str) -> JsValue {
    JsValue::from_str(&format!("{PURGED}{id}"))
}

/// What the copy holds under each of `ids`, read in the caller's transaction: the note's
/// version, else the seq of its purge, else nothing. Two reads a note (the note, its
/// purge), `PER_TASK` notes' reads asked for at once before any is awaited.
async fn held(
    notes: &IdbObjectStore,
    meta: &IdbObjectStore,
    ids: &[&str],
) -> Result<Vec<Option<Held>>, IdbError> {
    let mut held = Vec::with_capacity(ids.len());
    for slice in ids.chunks(PER_TASK) {
        let mut asked = Vec::with_capacity(slice.len());
        for id in slice {
            let note = notes.get(&JsValue::from_str(id)).map_err(js_failed)?;
            let purge = meta.get(&purge_key(id)).map_err(js_failed)?;
            asked.push((note, purge));
        }
        for (note, purge) in asked {
            let note = idb::settle(&note).await?.as_string();
            let purge = idb::settle(&purge).await?.as_f64();
            held.push(
                match note.and_then(|json| serde_json::from_str::<Note>(&json).ok()) {
                    Some(note) => Some(Held::Version(note.version)),
                    None => purge.map(|seq| Held::PurgedAt(seq as i64)),
                },
            );
        }
    }
    Ok(held)
}

/// Asks the copy to take one step of the feed; the last request made, to be awaited.
fn take(
    step: &Step,
    notes: &IdbObjectStore,
    meta: &IdbObjectStore,
) -> Result<IdbRequest, IdbError> {
    match step {
        Step::Keep(note) => {
            let json = serde_json::to_string(note).unwrap_or_default();
            notes
                .put_with_key(&JsValue::from_str(&json), &JsValue::from_str(&note.id))
                .map_err(js_failed)
        }
        Step::Forget { id, seq } => {
            notes.delete(&JsValue::from_str(id)).map_err(js_failed)?;
            meta.put_with_key(&JsValue::from_f64(*seq as f64), &purge_key(id))
                .map_err(js_failed)
        }
    }
}

/// Applies changes of the feed and moves the cursor to `next` (when they are a whole page
/// read from the cursor), in one transaction, `PER_TASK` notes a task.
async fn apply(changes: &[Change], next: Option<i64>) -> Result<(), IdbError> {
    let db = database().await?;
    let (transaction, notes, meta) = writing(&db)?;
    // Watched from now: a write refused halfway (storage full) aborts the transaction
    // while a slice is awaited, and that is the error this answers. A request that throws
    // at once (`?` below) leaves the slices before it to commit without the cursor: they
    // are kept again, unchanged, by the next sync.
    let outcome = idb::outcome(&transaction);
    // What the copy holds of the notes this page brings, read in the same transaction: a
    // newer version another tab kept is never replaced by an older, and a purge the live
    // page applied is never undone by a page read before it.
    let ids: Vec<&str> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Upsert)
        .map(|c| c.note_id.as_str())
        .collect();
    let kept: HashMap<&str, Held> = ids
        .iter()
        .copied()
        .zip(held(&notes, &meta, &ids).await?)
        .filter_map(|(id, held)| Some((id, held?)))
        .collect();
    let steps = feed::steps(changes, |id| kept.get(id).copied());
    let slices = steps.chunks(PER_TASK);
    let last = slices.len().saturating_sub(1);
    for (n, slice) in slices.enumerate() {
        let mut asked = None;
        for step in slice {
            asked = Some(take(step, &notes, &meta)?);
        }
        // The next slice in a task of its own (the requests of a transaction end in the
        // order made: the slice's last one ends it). The last slice is not waited for: the
        // cursor goes with it, and the transaction's end says how all of it went.
        if n < last
            && let Some(asked) = asked
            && let Err(refused) = idb::settle(&asked).await
        {
            // Refused (storage full): the transaction is aborting, and its end says why
            // (or, should it commit what came before, the refusal does: never `Ok`).
            return outcome.wait().await.and(Err(refused));
        }
    }
    if let Some(next) = next {
        meta.put_with_key(&JsValue::from_f64(next as f64), &JsValue::from_str(CURSOR))
            .map_err(js_failed)?;
    }
    outcome.wait().await
}

/// Drops every note, the purges remembered and the cursor (before reading the feed again
/// from 0).
async fn clear() -> Result<(), IdbError> {
    let db = database().await?;
    let (transaction, notes, meta) = writing(&db)?;
    notes.clear().map_err(js_failed)?;
    meta.delete(&JsValue::from_str(CURSOR)).map_err(js_failed)?;
    // Every `purged:…` key (all sort between "purged:" and "purged;", the next character):
    // the feed read again from 0 brings no note purged before. Left open: a page read
    // before the 410 by a tab that slept, applied after this, can bring back a note whose
    // purge the server has forgotten (kept a year, `ONCENOTE_TOMBSTONE_DAYS`) until the
    // copy is dropped again.
    let purges =
        web_sys::IdbKeyRange::bound(&PURGED.into(), &"purged;".into()).map_err(js_failed)?;
    meta.delete(&purges).map_err(js_failed)?;
    idb::committed(&transaction).await
}
