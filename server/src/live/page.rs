//! A page of a person's change feed as the API answers it, checked against what the
//! feed still covers: shared by `GET /api/changes` and the live streams.

use app::api::{ChangesPage, Note};

use crate::error::ApiError;
use crate::notes::rendered;
use crate::storage::Store;

/// A page of `scope`'s feed after `since`, each note with its rendered `html` when
/// `with_html` (the stream sends only seqs and versions, and needs none).
pub async fn read_page(
    store: &Store,
    scope: &str,
    since: i64,
    limit: u32,
    with_html: bool,
) -> Result<ChangesPage, ApiError> {
    let feed = store.changes().changes_since(scope, since, limit).await?;
    if since < feed.compacted_through {
        return Err(ApiError::ChangesExpired(format!(
            "the change feed keeps deletes from seq {} on; start over from since=0",
            feed.compacted_through
        )));
    }
    if since > feed.latest {
        return Err(ApiError::ChangesExpired(format!(
            "the change feed ends at seq {}, before {since}: this database is not the one \
             the copy came from; start over from since=0",
            feed.latest
        )));
    }
    let mut changes = feed.changes;
    let more = changes.len() > limit as usize;
    changes.truncate(limit as usize);
    let next = changes.last().map_or(since, |c| c.seq);
    if with_html {
        changes = tokio::task::spawn_blocking(move || {
            for change in &mut changes {
                if let Some(note) = change.note.as_mut() {
                    let rendered: Note = rendered::with_html(note);
                    *note = rendered;
                }
            }
            changes
        })
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    }
    Ok(ChangesPage {
        changes,
        next,
        more,
    })
}
