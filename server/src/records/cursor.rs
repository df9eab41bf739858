//! Where a page of a list starts: after the note with this time (its creation time in the
//! list of notes, the moment it went to the trash in the trash) and this id. The cursor
//! is opaque to clients; a forged one is refused, never passed to SQL as text.

use app::api::{Note, NotesPage};

/// A cursor this server did not give out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidCursor(pub String);

/// Cuts `items`, read `limit + 1` at a time, to a page of `limit`: the extra one, if
/// there, says another page follows, and `next_after` makes where it starts from the last
/// item kept. Every paged list reads so (notes, the trash, history, files).
pub fn cut_to_page<T, C>(
    items: &mut Vec<T>,
    limit: u32,
    next_after: impl FnOnce(&T) -> C,
) -> Option<C> {
    if items.len() <= limit as usize {
        return None;
    }
    items.truncate(limit as usize);
    items.last().map(next_after)
}

/// The parts of a cursor `{time}_{key}` this server gave out: an RFC 3339 time (no `_` in
/// it) and a key `key_ok` takes; anything else is refused.
pub fn time_and_key(
    text: &str,
    key_ok: impl FnOnce(&str) -> bool,
) -> Result<(&str, &str), InvalidCursor> {
    let bad = || InvalidCursor(format!("cursor {text:?} is not one this server gave out"));
    let (at, key) = text.split_once('_').ok_or_else(bad)?;
    if chrono::DateTime::parse_from_rfc3339(at).is_err() || !key_ok(key) {
        return Err(bad());
    }
    Ok((at, key))
}

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
        let (pinned, rest) = match text.strip_prefix('p') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (at, id) =
            time_and_key(rest, |id| uuid::Uuid::parse_str(id).is_ok()).map_err(|_| {
                InvalidCursor(format!("cursor {text:?} is not one this server gave out"))
            })?;
        Ok(Self {
            pinned,
            at: at.to_owned(),
            id: id.to_owned(),
        })
    }

    /// A page from `limit + 1` notes read newest first: the extra one, if there, says
    /// that another page follows.
    pub fn page(mut notes: Vec<Note>, limit: u32, order: Order) -> NotesPage {
        let next = cut_to_page(&mut notes, limit, |n| Cursor::after(n, order).encode());
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
