//! Where a page of the note list starts: after the note with this creation time and id.
//! The cursor is opaque to clients; a forged one is refused, never passed to SQL as text.

use app::api::{Note, NotesPage};

use crate::error::ApiError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub created_at: String,
    pub id: String,
}

impl Cursor {
    fn after(note: &Note) -> Self {
        Self {
            created_at: note.created_at.clone(),
            id: note.id.clone(),
        }
    }

    /// The cursor's text form: `{created_at}_{id}` (neither part contains `_`).
    pub fn encode(&self) -> String {
        format!("{}_{}", self.created_at, self.id)
    }

    pub fn decode(text: &str) -> Result<Self, ApiError> {
        let bad =
            || ApiError::InvalidQuery(format!("cursor {text:?} is not one this server gave out"));
        let (created_at, id) = text.split_once('_').ok_or_else(bad)?;
        let well_formed = chrono::DateTime::parse_from_rfc3339(created_at).is_ok()
            && uuid::Uuid::parse_str(id).is_ok();
        if !well_formed {
            return Err(bad());
        }
        Ok(Self {
            created_at: created_at.to_owned(),
            id: id.to_owned(),
        })
    }

    /// A page from `limit + 1` notes read newest first: the extra one, if there, says
    /// that another page follows.
    pub fn page(mut notes: Vec<Note>, limit: u32) -> NotesPage {
        let next = if notes.len() > limit as usize {
            notes.truncate(limit as usize);
            notes.last().map(|n| Cursor::after(n).encode())
        } else {
            None
        };
        NotesPage { notes, next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_what_it_wrote() {
        let c = Cursor {
            created_at: "2026-11-30T05:00:00.123456Z".into(),
            id: "0b7a3c52-6f0e-4c51-9a0e-4a0c8f7e2d11".into(),
        };
        assert_eq!(Cursor::decode(&c.encode()).unwrap(), c);
    }

    #[test]
    fn a_forged_cursor_is_refused() {
        assert!(Cursor::decode("nonsense").is_err());
        assert!(Cursor::decode("2026-11-30T05:00:00Z_'; DROP TABLE notes;--").is_err());
    }
}
