//! Where a page of a list starts: after the note with this time (its creation time in the
//! list of notes, the moment it went to the trash in the trash) and this id. The cursor
//! is opaque to clients; a forged one is refused, never passed to SQL as text.

use app::api::{Note, NotesPage};

/// A cursor this server did not give out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidCursor(pub String);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// In the pinned part of the list of notes (never in the trash).
    pub pinned: bool,
    pub at: String,
    pub id: String,
}

/// Which time orders a list.
#[derive(Clone, Copy, Debug)]
pub enum Order {
    /// Notes, newest first.
    Created,
    /// The trash, latest moved first.
    Trashed,
}

impl Order {
    fn time_of(self, note: &Note) -> &str {
        match self {
            Order::Created => &note.created_at,
            Order::Trashed => note.trashed_at.as_deref().unwrap_or(&note.created_at),
        }
    }
}

impl Cursor {
    fn after(note: &Note, order: Order) -> Self {
        Self {
            pinned: matches!(order, Order::Created) && note.pinned,
            at: order.time_of(note).to_owned(),
            id: note.id.clone(),
        }
    }

    /// The cursor's text form: `{created_at}_{id}` (neither part contains `_`), after a
    /// `p` in the pinned part of the list. A cursor from before pins reads as one in the
    /// unpinned part, where every note then was.
    pub fn encode(&self) -> String {
        let part = if self.pinned { "p" } else { "" };
        format!("{part}{}_{}", self.at, self.id)
    }

    /// Reads a cursor this server gave out; anything else is refused (400
    /// `invalid-query`).
    pub fn decode(text: &str) -> Result<Self, InvalidCursor> {
        let bad = || InvalidCursor(format!("cursor {text:?} is not one this server gave out"));
        let (pinned, rest) = match text.strip_prefix('p') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (at, id) = rest.split_once('_').ok_or_else(bad)?;
        let well_formed =
            chrono::DateTime::parse_from_rfc3339(at).is_ok() && uuid::Uuid::parse_str(id).is_ok();
        if !well_formed {
            return Err(bad());
        }
        Ok(Self {
            pinned,
            at: at.to_owned(),
            id: id.to_owned(),
        })
    }

    /// A page from `limit + 1` notes read newest first: the extra one, if there, says
    /// that another page follows.
    pub fn page(mut notes: Vec<Note>, limit: u32, order: Order) -> NotesPage {
        let next = if notes.len() > limit as usize {
            notes.truncate(limit as usize);
            notes.last().map(|n| Cursor::after(n, order).encode())
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
            pinned: false,
            at: "2026-11-30T05:00:00.123456Z".into(),
            id: "0b7a3c52-6f0e-4c51-9a0e-4a0c8f7e2d11".into(),
        };
        assert_eq!(Cursor::decode(&c.encode()).unwrap(), c);
        let pinned = Cursor { pinned: true, ..c };
        assert!(pinned.encode().starts_with("p2026-"));
        assert_eq!(Cursor::decode(&pinned.encode()).unwrap(), pinned);
    }

    #[test]
    fn a_cursor_given_out_before_pins_reads_as_one_among_the_unpinned() {
        let old = "2026-11-30T05:00:00.123456Z_0b7a3c52-6f0e-4c51-9a0e-4a0c8f7e2d11";
        assert!(!Cursor::decode(old).unwrap().pinned);
        assert!(Cursor::decode("p").is_err());
        assert!(
            Cursor::decode("pp2026-11-30T05:00:00Z_0b7a3c52-6f0e-4c51-9a0e-4a0c8f7e2d11").is_err()
        );
    }

    #[test]
    fn a_forged_cursor_is_refused() {
        assert!(Cursor::decode("nonsense").is_err());
        assert!(Cursor::decode("2026-11-30T05:00:00Z_'; DROP TABLE notes;--").is_err());
    }
}
