//! Creating a note: the operation the idempotency pipeline runs once per key.

use app::api::{FORM_PATH, IMPORT_PATH, Note, RevisionKind};

use super::new_note::ValidNewNote;
use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey, Operation, Outcome};
use crate::storage::{NoteWrites, PastWrite};

/// Creating a note.
pub struct CreateNote {
    note: ValidNewNote,
    fingerprint: Fingerprint,
    /// When an imported note was made and last changed in the app it came from.
    times: Option<ImportedTimes>,
}

/// An imported note's own times, kept instead of the time of the import: RFC 3339 in UTC,
/// neither ahead of the server's clock nor before 1970, `updated_at` not before
/// `created_at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedTimes {
    pub created_at: String,
    pub updated_at: String,
}

/// What a create did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Created {
    /// The note is new.
    Made(Note),
    /// A late retry: the key had made this note already.
    Existing(Note),
    /// A late retry of a create whose note was deleted for good since.
    DeletedElsewhere(String),
}

impl Created {
    /// The note the key made, unless it was deleted for good.
    pub fn note(&self) -> Option<&Note> {
        match self {
            Created::Made(note) | Created::Existing(note) => Some(note),
            Created::DeletedElsewhere(_) => None,
        }
    }
}

impl CreateNote {
    /// A create sent to the API: the request is its title, body and `written_at`.
    pub fn from_api(note: ValidNewNote) -> Self {
        let fingerprint = note.fingerprint();
        Self {
            note,
            fingerprint,
            times: None,
        }
    }

    /// A note of another app's export, made with its own times. The request is its title
    /// and text: the same note read again is a replay, even when the export gave it no
    /// times (it is then made with the time of the import, which differs every time).
    pub fn from_import(note: ValidNewNote, times: ImportedTimes) -> Self {
        let fingerprint = Fingerprint::of("POST", IMPORT_PATH, &[&note.title, &note.body]);
        Self {
            note,
            fingerprint,
            times: Some(times),
        }
    }

    /// A create sent by the page's form without JavaScript. A form has no `written_at`
    /// of its own (the server stamps it), so a resent form is the same request when its
    /// title and body are.
    pub fn from_form(note: ValidNewNote) -> Self {
        let fingerprint = Fingerprint::of("POST", FORM_PATH, &[&note.title, &note.body]);
        Self {
            note,
            fingerprint,
            times: None,
        }
    }

    /// The note this create makes (a new id each time it is asked).
    fn new_note(&self) -> Note {
        let mut note = self.note.to_note();
        if let Some(times) = &self.times {
            note.created_at.clone_from(&times.created_at);
            note.updated_at.clone_from(&times.updated_at);
        }
        note
    }
}

impl Operation for CreateNote {
    type Done = Created;

    /// A create under a new key makes its note and nothing else.
    fn lone_insert(&self) -> Option<(Note, Created)> {
        let note = self.new_note();
        Some((note.clone(), Created::Made(note)))
    }

    fn fingerprint(&self) -> Fingerprint {
        self.fingerprint.clone()
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Outcome<Created>, ApiError> {
        // A key that an edit, a move or a delete for good recorded is not this create's
        // to use. Its note's first revision carries a create's key too; that case is the
        // insert's conflict below.
        match tx.earlier_write(scope, key, &self.fingerprint).await? {
            None
            | Some(PastWrite::Revision {
                kind: RevisionKind::Create,
                ..
            }) => {}
            // This create was done, and its note deleted for good since: told so, and
            // nothing is made again.
            Some(PastWrite::Deleted {
                note_id,
                kind: RevisionKind::Create,
            }) => {
                tracing::debug!(%note_id, "a retry of a create whose note was deleted for good");
                return Ok(Outcome::late(Created::DeletedElsewhere(note_id)));
            }
            Some(_) => return Err(ApiError::IdempotencyKeyReused),
        }
        let note = self.new_note();
        if tx.insert_note(scope, key, &self.fingerprint, &note).await? {
            tracing::info!(note_id = %note.id, "note saved");
            return Ok(Outcome::now(Created::Made(note)));
        }
        // The key's idempotency row had expired while the note (which carries its key)
        // stayed: a late retry gets the existing note, never a second one.
        let Some((existing, created_by)) = tx.note_created_by(scope, key).await? else {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "the note insert conflicted but no note has the key"
            )));
        };
        if created_by != self.fingerprint {
            return Err(ApiError::IdempotencyKeyReused);
        }
        // (Also a retry whose key still holds its answer and was not read first: the key's
        // insert then rolls this back and the stored answer is replayed.)
        tracing::debug!(note_id = %existing.id, "a retry: answered with the existing note");
        Ok(Outcome::late(Created::Existing(existing)))
    }
}
