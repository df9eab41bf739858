//! Search: `GET /api/search` (`routes`) and a page of results for the user's text
//! (`find`). The query grammar, the fold, the tokens, the CJK bigrams and the escaped
//! snippets with highlights are in `text` (most of it `app::text`, which the browser's
//! offline search uses too), shared with the storage, which runs the
//! query (FTS5 on SQLite, a `tsvector` on PostgreSQL); everything here is the same for
//! every database.

pub mod routes;

use app::api::{SearchHit, SearchPage};

use crate::error::ApiError;
use crate::storage::Store;
use crate::text::query;
use app::text::snippet::{self, SNIPPET_CHARS};

/// The deepest a cursor may page: past this, a better query beats paging.
const MAX_OFFSET: u32 = 10_000;

/// Runs a search for the user's text `q`: a page of `limit` results after `cursor`.
pub async fn find(
    store: &Store,
    scope: &str,
    q: &str,
    limit: u32,
    cursor: Option<&str>,
) -> Result<SearchPage, ApiError> {
    let (tags, words) = query::take_tags(q);
    // `#tag` alone lists the notes carrying it, newest first; with words, it narrows them.
    let query = match query::parse(&words) {
        Ok(query) => Some(query),
        Err(_) if !tags.is_empty() => None,
        Err(error) => return Err(ApiError::ValidationFailed(error.to_string())),
    };
    let offset = match cursor {
        None => 0,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|offset| *offset <= MAX_OFFSET)
            .ok_or_else(|| {
                ApiError::InvalidQuery(format!("cursor {text:?} is not one this server gave out"))
            })?,
    };
    // One more than asked tells whether another page exists.
    let mut notes = store
        .search()
        .search(scope, query.as_ref(), &tags, limit + 1, offset)
        .await?;
    let next = (notes.len() > limit as usize).then(|| (offset + limit).to_string());
    notes.truncate(limit as usize);
    let terms = query.map(|q| q.highlight_terms()).unwrap_or_default();
    let results = notes
        .into_iter()
        .map(|note| SearchHit {
            snippet: snippet::snippet(&note.title, &note.body, &terms, SNIPPET_CHARS),
            note,
        })
        .collect();
    Ok(SearchPage { results, next })
}
