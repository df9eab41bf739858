//! Moving a note to the trash, out of it, or deleting it for good: the operation the
//! idempotency pipeline runs once per key, and the decision it makes ([`plan_move`]),
//! which touches no database.

use app::api::{Note, RevisionKind};

use super::changes::{Lifecycle, ValidLifecycle};
use super::edit::not_found;
use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey, Operation, Outcome};
use crate::storage::{NewRevision, NoteWrites, PastWrite};
use crate::timestamp;

/// Moving a note to the trash, out of it, or deleting it for good.
pub struct ChangeLifecycle(pub ValidLifecycle);

/// What a move did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Moved {
    /// The note as it is now (moved, or already where it was asked to go).
    Note(Box<Note>),
    /// Deleted for good (or already gone for good).
    Purged,
    /// A late retry of a move whose note was deleted for good since.
    DeletedElsewhere(String),
}

/// What a move writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MovePlan {
    /// Delete the note for good.
    Purge,
    /// Already where it was asked to go: nothing to write.
    Stay,
    /// Save the note with this `trashed_at`, recorded as a revision of `kind`.
    Save {
        trashed_at: Option<String>,
        kind: RevisionKind,
    },
}

/// Decides what `request` does to `current` at `now`; a note that does not meet the
/// request's `If-Match` is 412 with the note.
pub fn plan_move(
    current: &Note,
    request: &ValidLifecycle,
    now: &str,
) -> Result<MovePlan, ApiError> {
    if !request.if_match.allows(current.version) {
        return Err(ApiError::PreconditionFailed {
            current: Box::new(current.clone()),
        });
    }
    Ok(match request.change {
        Lifecycle::Purge => MovePlan::Purge,
        Lifecycle::Trash if current.trashed_at.is_some() => MovePlan::Stay,
        Lifecycle::Restore if current.trashed_at.is_none() => MovePlan::Stay,
        Lifecycle::Trash => MovePlan::Save {
            trashed_at: Some(now.to_owned()),
            kind: RevisionKind::Trash,
        },
        Lifecycle::Restore => MovePlan::Save {
            trashed_at: None,
            kind: RevisionKind::Restore,
        },
    })
}

impl Operation for ChangeLifecycle {
    type Done = Moved;

    fn fingerprint(&self) -> Fingerprint {
        self.0.fingerprint()
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Outcome<Moved>, ApiError> {
        let fingerprint = self.fingerprint();
        let request = &self.0;
        if let Some(past) = tx.earlier_write(scope, key, &fingerprint).await? {
            let moved = match past {
                PastWrite::Purge { .. } => Moved::Purged,
                PastWrite::TagRename => return Err(ApiError::IdempotencyKeyReused),
                PastWrite::Deleted { note_id, .. } => Moved::DeletedElsewhere(note_id),
                PastWrite::Revision { note_id, .. } => match tx.note(scope, &note_id).await? {
                    Some(note) => Moved::Note(Box::new(note)),
                    None => return Err(not_found(&note_id)),
                },
            };
            return Ok(Outcome::late(moved));
        }
        let Some(current) = tx.note(scope, &request.id).await? else {
            // Deleting for good what is already gone is done.
            if request.change == Lifecycle::Purge && tx.is_purged(scope, &request.id).await? {
                return Ok(Outcome::now(Moved::Purged));
            }
            return Err(not_found(&request.id));
        };
        let now = timestamp::format(timestamp::now());
        let (trashed_at, kind) = match plan_move(&current, request, &now)? {
            MovePlan::Purge => {
                tx.purge(scope, &request.id, key, &fingerprint, &now)
                    .await?;
                tracing::info!(note_id = %request.id, "note deleted for good");
                return Ok(Outcome::now(Moved::Purged));
            }
            MovePlan::Stay => return Ok(Outcome::now(Moved::Note(Box::new(current)))),
            MovePlan::Save { trashed_at, kind } => (trashed_at, kind),
        };
        let note = Note {
            trashed_at,
            version: current.version + 1,
            updated_at: now,
            ..current
        };
        tx.save_note(
            scope,
            &note,
            NewRevision {
                version: note.version,
                kind,
                key,
                fingerprint: &fingerprint,
            },
        )
        .await?;
        tracing::info!(note_id = %note.id, ?kind, "note moved");
        Ok(Outcome::now(Moved::Note(Box::new(note))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notes::changes::IfMatch;

    const NOW: &str = "2026-12-01T10:00:00.000Z";

    fn note(trashed: bool) -> Note {
        Note {
            id: "n".into(),
            title: "T".into(),
            body: "b".into(),
            written_at: NOW.into(),
            created_at: NOW.into(),
            updated_at: NOW.into(),
            version: 2,
            trashed_at: trashed.then(|| NOW.to_owned()),
            conflict_of: None,
            tags: Vec::new(),
            pinned: false,
            html: None,
        }
    }

    fn request(change: Lifecycle, if_match: IfMatch) -> ValidLifecycle {
        ValidLifecycle {
            id: "n".into(),
            change,
            if_match,
        }
    }

    #[test]
    fn trashing_a_note_saves_it_with_the_time_it_went() {
        assert_eq!(
            plan_move(
                &note(false),
                &request(Lifecycle::Trash, IfMatch::Absent),
                NOW
            )
            .unwrap(),
            MovePlan::Save {
                trashed_at: Some(NOW.into()),
                kind: RevisionKind::Trash,
            }
        );
    }

    #[test]
    fn restoring_a_note_in_the_trash_takes_it_out() {
        assert_eq!(
            plan_move(&note(true), &request(Lifecycle::Restore, IfMatch::Any), NOW).unwrap(),
            MovePlan::Save {
                trashed_at: None,
                kind: RevisionKind::Restore,
            }
        );
    }

    #[test]
    fn a_note_already_where_it_was_asked_to_go_is_not_written() {
        let trash = request(Lifecycle::Trash, IfMatch::Absent);
        let restore = request(Lifecycle::Restore, IfMatch::Absent);
        assert_eq!(plan_move(&note(true), &trash, NOW).unwrap(), MovePlan::Stay);
        assert_eq!(
            plan_move(&note(false), &restore, NOW).unwrap(),
            MovePlan::Stay
        );
    }

    #[test]
    fn a_delete_for_good_is_a_purge_from_the_trash_or_not() {
        let purge = request(Lifecycle::Purge, IfMatch::Version(2));
        assert_eq!(
            plan_move(&note(false), &purge, NOW).unwrap(),
            MovePlan::Purge
        );
        assert_eq!(
            plan_move(&note(true), &purge, NOW).unwrap(),
            MovePlan::Purge
        );
    }

    #[test]
    fn a_move_from_another_version_is_412() {
        let stale = request(Lifecycle::Purge, IfMatch::Version(1));
        assert!(matches!(
            plan_move(&note(false), &stale, NOW),
            Err(ApiError::PreconditionFailed { .. })
        ));
    }
}
