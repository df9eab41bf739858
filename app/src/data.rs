//! How pages get their data: on the server, from the readers it provides while rendering
//! (`ssr_context::Data`); in the browser, from the page itself — every page is rendered
//! on the server (each link is a full page load, which the service worker can keep for
//! offline reading), so a resource arrives with the HTML and never fetches on its own.
//! The one exception is the offline shell (a page never kept, opened with no network):
//! there the app is rendered in the browser and reads the offline copy
//! (`browser::offline_pages`).

use std::future::Future;

use crate::api::{AccountUser, Me, Note, NotesPage, Revision, RevisionsPage, SearchPage, TagCount};

/// Who is signed in (`None` on pages for nobody).
pub fn me() -> impl Future<Output = Result<Option<Me>, String>> + Send + 'static {
    #[cfg(feature = "hydrate")]
    {
        crate::browser::offline_pages::me()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        #[cfg(feature = "ssr")]
        let me = leptos::prelude::use_context::<crate::ssr_context::SignedInAs>().map(|s| s.0);
        #[cfg(not(feature = "ssr"))]
        let me = None;
        std::future::ready(Ok(me))
    }
}

/// Whether anyone may make an account on this server.
pub fn signup_open() -> impl Future<Output = Result<bool, String>> + Send + 'static {
    #[cfg(feature = "ssr")]
    let open =
        leptos::prelude::use_context::<crate::ssr_context::SignupOpen>().is_some_and(|s| s.0);
    #[cfg(not(feature = "ssr"))]
    let open = false;
    std::future::ready(Ok(open))
}

/// Runs one reader of the server's `Data`.
#[cfg(feature = "ssr")]
fn read<T: Send + 'static>(
    pick: impl FnOnce(&crate::ssr_context::Data) -> crate::ssr_context::Loading<T>,
) -> impl Future<Output = Result<T, String>> + Send + 'static {
    let loading =
        leptos::prelude::use_context::<crate::ssr_context::Data>().map(|data| pick(&data));
    async move {
        match loading {
            Some(loading) => loading.await,
            None => Err("the notes could not be read".to_owned()),
        }
    }
}

/// Each reader: on the server it asks `Data`; in the browser a page's data comes with the
/// page, so a resource that asks is answered with an error it never shows (it hydrates
/// from what the server sent) — except in the offline shell, where the offline copy
/// answers.
macro_rules! reader {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) -> impl Future<Output = Result<$out, String>> + Send + 'static {
            #[cfg(feature = "ssr")]
            {
                read(move |data| data.0.$name($($arg),*))
            }
            #[cfg(feature = "hydrate")]
            {
                crate::browser::offline_pages::$name($($arg),*)
            }
            #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
            {
                #[allow(clippy::let_unit_value)]
                let _ = ($($arg,)*);
                std::future::ready(Err("this page was rendered without its data".to_owned()))
            }
        }
    };
}

reader!(
    /// Notes not in the trash, newest first.
    notes(cursor: Option<String>) -> NotesPage
);
reader!(
    /// Notes in the trash.
    trash(cursor: Option<String>) -> NotesPage
);
reader!(
    /// One note.
    note(id: String) -> Option<Note>
);
reader!(
    /// A page of a note's history, newest first.
    history(id: String, before: Option<String>) -> Option<RevisionsPage>
);
reader!(
    /// One version of a note, with its text.
    revision(id: String, version: String) -> Option<Revision>
);
reader!(
    /// A search.
    search(q: String, cursor: Option<String>) -> SearchPage
);
reader!(
    /// Every tag of the notes outside the trash, with how many notes carry it.
    tags() -> Vec<TagCount>
);
reader!(
    /// Notes carrying a tag (or one nested under it), pinned first, then newest first.
    tagged(tag: String, cursor: Option<String>) -> NotesPage
);
reader!(
    /// Every account (admin only).
    users() -> Vec<AccountUser>
);
