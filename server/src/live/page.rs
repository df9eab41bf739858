//! A page of a person's change feed as the API answers it, checked against what the
//! feed still covers: shared by `GET /api/changes` and the live streams.

use app::api::{ChangeEvent, ChangesPage, Note};

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
    covers(since, feed.latest, feed.compacted_through)?;
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

/// What a live stream sends next: up to `limit` of `scope`'s changes after `since` as
/// events (no notes), the seq to read after next, and whether more follow.
pub async fn read_events(
    store: &Store,
    scope: &str,
    since: i64,
    limit: u32,
) -> Result<(Vec<ChangeEvent>, i64, bool), ApiError> {
    let page = store.changes().events_since(scope, since, limit).await?;
    covers(since, page.latest, page.compacted_through)?;
    let mut events = page.events;
    let more = events.len() > limit as usize;
    events.truncate(limit as usize);
    let next = events.last().map_or(since, |e| e.seq);
    Ok((events, next, more))
}

/// Whether a feed whose latest seq is `latest`, holding the deletes after
/// `compacted_through`, can be read after `since`; 410 `changes-expired` if not.
fn covers(since: i64, latest: i64, compacted_through: i64) -> Result<(), ApiError> {
    // `since=0` is a full copy: every note as it stands, whatever was compacted.
    if since > 0 && since < compacted_through {
        return Err(ApiError::ChangesExpired(format!(
            "the change feed keeps deletes from seq {compacted_through} on; start over from since=0"
        )));
    }
    if since > latest {
        return Err(ApiError::ChangesExpired(format!(
            "the change feed ends at seq {latest}, before {since}: this database is not the one \
             the copy came from; start over from since=0"
        )));
    }
    Ok(())
}
