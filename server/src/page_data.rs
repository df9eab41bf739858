//! What the server-rendered pages read: the readers of `app::ssr_context::PageData`,
//! answered from the store for one scope.

use std::sync::Arc;

use app::api::{
    AccountUser, Note, NotesPage, Revision, RevisionsPage, SEARCH_PAGE_RESULTS, SearchPage,
    TagCount, tag_name,
};
use app::ssr_context::{Data, Loading, PageData};

use crate::error::ApiError;
use crate::notes::history::parse_version;
use crate::notes::rendered::with_html_off_the_runtime;
use crate::records::cursor::Cursor;
use crate::search;
use crate::storage::Store;
use crate::storage::history::Versions;

/// Notes per page of the list and the trash.
const PAGE_NOTES: u32 = 50;
/// Versions per page of a note's history.
const PAGE_VERSIONS: u32 = 50;

struct StoreData {
    store: Store,
    scope: String,
    admin: bool,
}

/// The readers for pages rendered for the person `scope` (an admin also reads accounts).
pub fn for_scope(store: Store, scope: &str, admin: bool) -> Data {
    Data(Arc::new(StoreData {
        store,
        scope: scope.to_owned(),
        admin,
    }))
}

/// A failure in words a page can show; the cause goes to the log.
fn shown(error: impl Into<ApiError>) -> String {
    match error.into() {
        ApiError::InvalidQuery(_) => {
            "That page link is out of date; start from the first page.".to_owned()
        }
        ApiError::ValidationFailed(reason) => reason,
        other => {
            tracing::error!(error = %other, "a page could not read its data");
            "The notes could not be read just now; try again in a moment.".to_owned()
        }
    }
}

fn cursor(text: Option<String>) -> Result<Option<Cursor>, String> {
    text.as_deref()
        .map(Cursor::decode)
        .transpose()
        .map_err(shown)
}

impl PageData for StoreData {
    fn notes(&self, after: Option<String>) -> Loading<NotesPage> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move {
            let after = cursor(after)?;
            store
                .notes()
                .list_notes(&scope, PAGE_NOTES, after.as_ref(), None)
                .await
                .map_err(shown)
        })
    }

    fn trash(&self, after: Option<String>) -> Loading<NotesPage> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move {
            let after = cursor(after)?;
            store
                .notes()
                .list_trash(&scope, PAGE_NOTES, after.as_ref())
                .await
                .map_err(shown)
        })
    }

    /// The note with its body rendered: the note page shows `html`.
    fn note(&self, id: String) -> Loading<Option<Note>> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move {
            let note = store.notes().get_note(&scope, &id).await.map_err(shown)?;
            Ok(match note {
                Some(note) => Some(with_html_off_the_runtime(note).await),
                None => None,
            })
        })
    }

    fn history(&self, id: String, before: Option<String>) -> Loading<Option<RevisionsPage>> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move {
            let before = match before.as_deref() {
                None => i64::MAX,
                Some(text) => parse_version(text)
                    .ok_or_else(|| shown(ApiError::InvalidQuery(format!("before={text:?}"))))?,
            };
            store
                .notes()
                .history(&scope, &id, Versions::Before(before), PAGE_VERSIONS)
                .await
                .map_err(shown)
        })
    }

    fn revision(&self, id: String, version: String) -> Loading<Option<Revision>> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move {
            let Some(version) = parse_version(&version) else {
                return Ok(None);
            };
            store
                .notes()
                .revision(&scope, &id, version)
                .await
                .map_err(shown)
        })
    }

    fn tags(&self) -> Loading<Vec<TagCount>> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move { store.tags().tag_counts(&scope).await.map_err(shown) })
    }

    fn tagged(&self, tag: String, after: Option<String>) -> Loading<NotesPage> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move {
            let tag = tag_name(&tag).map_err(|e| format!("“{tag}” is not a tag: {e}."))?;
            let after = cursor(after)?;
            store
                .notes()
                .list_notes(&scope, PAGE_NOTES, after.as_ref(), Some(&tag))
                .await
                .map_err(shown)
        })
    }

    fn users(&self) -> Loading<Vec<AccountUser>> {
        let (store, admin) = (self.store.clone(), self.admin);
        Box::pin(async move {
            if !admin {
                return Err(ApiError::AdminOnly.to_string());
            }
            store.accounts().list_users().await.map_err(shown)
        })
    }

    fn search(&self, q: String, after: Option<String>) -> Loading<SearchPage> {
        let (store, scope) = (self.store.clone(), self.scope.clone());
        Box::pin(async move {
            search::find(&store, &scope, &q, SEARCH_PAGE_RESULTS, after.as_deref())
                .await
                .map_err(shown)
        })
    }
}
