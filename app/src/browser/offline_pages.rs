//! The app opened with no network on a page this browser never kept: the service worker
//! answers with a bare shell (`<body data-offline-shell data-user=…>`, see `sw.js`), the
//! app is rendered here in the browser instead of hydrated, and the page readers of
//! `crate::data` read the offline copy (`offline_copy`) instead of the page's HTML —
//! with the same ordering, tags and search as the server (`crate::offline`).
//!
//! On a page the server rendered (online, or a kept page), the readers are never asked:
//! the data came with the page. Asked anyway, they answer an error, as before — but for
//! the search, which a search box sends without a page load (`search_online`).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use send_wrapper::SendWrapper;

use super::search_online::{self, Searched};
use super::{namespace, offline_copy};
use crate::api::{
    AccountUser, Me, Note, NotesPage, Revision, RevisionsPage, SearchPage, TagCount, tag_name,
};
use crate::offline::{reading, search};

thread_local! {
    static SHELL: Cell<bool> = const { Cell::new(false) };
    static KEPT: RefCell<Option<Rc<Vec<Note>>>> = const { RefCell::new(None) };
}

/// A reader's answer: a future of the browser's (IndexedDB is not `Send`; the browser has
/// one thread, so it never moves).
pub type Reading<T> = SendWrapper<Pin<Box<dyn Future<Output = Result<T, String>>>>>;

/// Whether the service worker sent the offline shell in place of a page.
pub fn shell_requested() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
        .is_some_and(|body| body.has_attribute("data-offline-shell"))
}

/// Readies the shell for rendering the app from the offline copy: its placeholder goes,
/// and the readers read the copy from now on.
pub fn open_shell() {
    SHELL.set(true);
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        body.set_inner_html("");
    }
}

fn reading<T: 'static>(read: impl Future<Output = Result<T, String>> + 'static) -> Reading<T> {
    SendWrapper::new(Box::pin(read))
}

/// Every kept note, read once per page.
async fn kept() -> Result<Rc<Vec<Note>>, String> {
    if let Some(notes) = KEPT.with(|k| k.borrow().clone()) {
        return Ok(notes);
    }
    let notes = offline_copy::load_notes()
        .await
        .map(Rc::new)
        .map_err(|_| "This browser has no offline copy of your notes.".to_owned())?;
    KEPT.with(|k| *k.borrow_mut() = Some(notes.clone()));
    Ok(notes)
}

/// Answers from the copy in the shell, and the old error anywhere else.
fn from_copy<T: 'static>(
    answer: impl FnOnce(&[Note]) -> Result<T, String> + 'static,
) -> Reading<T> {
    reading(async move {
        if !SHELL.get() {
            return Err("this page was rendered without its data".to_owned());
        }
        let notes = kept().await?;
        answer(&notes)
    })
}

/// Who is signed in: in the shell, the person whose copy it is.
pub fn me() -> Reading<Option<Me>> {
    reading(async move {
        if !SHELL.get() {
            return Ok(None);
        }
        let Some(user_id) = namespace::user().or_else(namespace::read_user_from_page) else {
            return Ok(None);
        };
        let username = offline_copy::username().await.unwrap_or_default();
        Ok(Some(Me {
            user_id,
            username,
            admin: false,
        }))
    })
}

pub fn notes(_cursor: Option<String>) -> Reading<NotesPage> {
    from_copy(|all| Ok(reading::notes(all)))
}

pub fn trash(_cursor: Option<String>) -> Reading<NotesPage> {
    from_copy(|all| Ok(reading::trash(all)))
}

pub fn note(id: String) -> Reading<Option<Note>> {
    from_copy(move |all| Ok(reading::note(all, &id)))
}

/// What the history's pages say in the shell: the copy keeps each note as it is now.
const HISTORY_NOT_KEPT: &str =
    "A note's history is not kept offline: it opens once the network is back.";

pub fn history(_id: String, _before: Option<String>) -> Reading<Option<RevisionsPage>> {
    from_copy(|_| Err(HISTORY_NOT_KEPT.to_owned()))
}

pub fn revision(_id: String, _version: String) -> Reading<Option<Revision>> {
    from_copy(|_| Err(HISTORY_NOT_KEPT.to_owned()))
}

/// A search: in the shell, over the copy; on an open page (a search from its search box,
/// shown here by the router), the server's results — or the copy's, with no network.
pub fn search(q: String, cursor: Option<String>) -> Reading<SearchPage> {
    reading(async move {
        if !SHELL.get() {
            match search_online::search(&q, cursor.as_deref()).await {
                Searched::Found(page) => return Ok(page),
                Searched::Refused(why) => return Err(why),
                Searched::Unreachable => {}
            }
        }
        let notes = kept().await?;
        search::search(&notes, &q)
    })
}

pub fn tags() -> Reading<Vec<TagCount>> {
    from_copy(|all| Ok(reading::tags(all)))
}

pub fn tagged(tag: String, _cursor: Option<String>) -> Reading<NotesPage> {
    from_copy(move |all| {
        let tag = tag_name(&tag).map_err(|e| format!("“{tag}” is not a tag: {e}."))?;
        Ok(reading::tagged(all, &tag))
    })
}

pub fn users() -> Reading<Vec<AccountUser>> {
    from_copy(|_| Err("The list of people is not kept offline.".to_owned()))
}
