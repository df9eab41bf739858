//! `PATCH /api/notes/{id}` carries one of two writes: an edit (a title, a body, or both,
//! from a base version) or a pin (`pinned` alone). This tells them apart and runs the one
//! it is as a single operation.

use app::api::NoteEdit;

use super::changes::{IfMatch, ValidNoteEdit};
use super::edit::{EditNote, Edited};
use super::new_note::written_at;
use super::pin::{PinNote, Pinned, ValidPin};
use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey, Operation, Outcome};
use crate::storage::NoteWrites;

/// The write a `PATCH` asks for.
pub enum PatchNote {
    Edit(EditNote),
    Pin(PinNote),
}

/// What it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Patched {
    Edited(Edited),
    Pinned(Pinned),
}

impl PatchNote {
    /// Reads a `PATCH`: `pinned` alone is a pin; anything else is an edit, checked as one.
    pub fn parse(id: &str, request: NoteEdit, if_match: IfMatch) -> Result<Self, ApiError> {
        let Some(pinned) = request.pinned else {
            return Ok(PatchNote::Edit(EditNote(ValidNoteEdit::parse(
                id, request, if_match,
            )?)));
        };
        if request.title.is_some() || request.body.is_some() || request.base_version.is_some() {
            return Err(ApiError::ValidationFailed(
                "pinned is sent alone: pin in one request, edit in another".into(),
            ));
        }
        let written_at = written_at(&request.written_at)?;
        Ok(PatchNote::Pin(PinNote(ValidPin {
            id: id.to_owned(),
            pinned,
            if_match,
            written_at,
        })))
    }
}

impl Operation for PatchNote {
    type Done = Patched;

    fn fingerprint(&self) -> Fingerprint {
        match self {
            PatchNote::Edit(edit) => edit.fingerprint(),
            PatchNote::Pin(pin) => pin.fingerprint(),
        }
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Outcome<Patched>, ApiError> {
        Ok(match self {
            PatchNote::Edit(edit) => edit.apply(tx, scope, key).await?.map(Patched::Edited),
            PatchNote::Pin(pin) => pin.apply(tx, scope, key).await?.map(Patched::Pinned),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(json: &str) -> Result<PatchNote, ApiError> {
        PatchNote::parse("n", serde_json::from_str(json).unwrap(), IfMatch::Absent)
    }

    #[test]
    fn pinned_alone_is_a_pin_and_needs_no_precondition() {
        let parsed = patch(r#"{"pinned": true, "written_at": "2026-12-01T00:00:00Z"}"#);
        assert!(matches!(
            parsed,
            Ok(PatchNote::Pin(PinNote(ValidPin { pinned: true, .. })))
        ));
    }

    #[test]
    fn pinned_with_text_or_a_base_version_is_refused() {
        for json in [
            r#"{"pinned": true, "title": "t", "written_at": "2026-12-01T00:00:00Z"}"#,
            r#"{"pinned": false, "body": "b", "written_at": "2026-12-01T00:00:00Z"}"#,
            r#"{"pinned": true, "base_version": 2, "written_at": "2026-12-01T00:00:00Z"}"#,
        ] {
            assert!(
                matches!(patch(json), Err(ApiError::ValidationFailed(_))),
                "{json}"
            );
        }
        assert!(matches!(
            patch(r#"{"pinned": true, "written_at": "yesterday"}"#),
            Err(ApiError::ValidationFailed(_))
        ));
    }

    #[test]
    fn an_edit_without_pinned_still_needs_its_base_version() {
        assert!(matches!(
            patch(r#"{"title": "t", "written_at": "2026-12-01T00:00:00Z"}"#),
            Err(ApiError::PreconditionRequired)
        ));
    }
}
