//! What the server hands the pages while rendering them. The app crate cannot depend on
//! the server crate (it is the other way round), so the server provides the readers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::api::{AccountUser, Note, NotesPage, Revision, RevisionsPage, SearchPage, TagCount};

/// A page's data on its way, or why it could not be read (in words for the page).
pub type Loading<T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send>>;

/// What pages read while they render on the server.
pub trait PageData: Send + Sync {
    /// Notes not in the trash, newest first, after `cursor`.
    fn notes(&self, cursor: Option<String>) -> Loading<NotesPage>;
    /// Notes in the trash, latest moved first, after `cursor`.
    fn trash(&self, cursor: Option<String>) -> Loading<NotesPage>;
    /// One note (in the trash or not); `None` if there is none with this id.
    fn note(&self, id: String) -> Loading<Option<Note>>;
    /// A page of a note's history, newest first, before the version `before` (from the
    /// latest when absent); `None` if there is no such note.
    fn history(&self, id: String, before: Option<String>) -> Loading<Option<RevisionsPage>>;
    /// One version of a note, with its text; `None` if the note has no such version.
    fn revision(&self, id: String, version: String) -> Loading<Option<Revision>>;
    /// A search; an error is the reason the query was refused (an empty query).
    fn search(&self, q: String, cursor: Option<String>) -> Loading<SearchPage>;
    /// Every tag of the notes outside the trash, by name, with how many notes carry it.
    fn tags(&self) -> Loading<Vec<TagCount>>;
    /// Notes not in the trash carrying `tag` or a tag nested under it, pinned first, then
    /// newest first, after `cursor`; an error says why `tag` is not a tag.
    fn tagged(&self, tag: String, cursor: Option<String>) -> Loading<NotesPage>;
    /// Every account (for an admin; an error for anyone else).
    fn users(&self) -> Loading<Vec<AccountUser>>;
}

/// The readers, as a context value.
#[derive(Clone)]
pub struct Data(pub Arc<dyn PageData>);

/// A fresh idempotency key for the page's form, minted by the server for each render, so
/// a save made without JavaScript is stored once however often that form is sent.
#[derive(Clone, Debug)]
pub struct FormKey(pub String);

/// Who the page is rendered for (absent: nobody is signed in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedInAs(pub crate::api::Me);

/// The signed-in person's change-feed seq, read before the page's data: the browser
/// follows the feed from it, so it misses nothing the page did not show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedSeq(pub i64);

/// Whether anyone may make an account here (`ONCENOTE_SIGNUP=open`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignupOpen(pub bool);

/// The address people reach this server at (`ONCENOTE_PUBLIC_URL`, or the scheme and host
/// of this request): links a page shows for sending to others are whole from the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteAddress(pub String);
