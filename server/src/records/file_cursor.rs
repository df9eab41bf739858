//! Where a page of a person's files starts: after the file stored at this time with this
//! name. The list runs newest first, then by name from the last; the name is in the cursor
//! because times tie — an import stamps all its files with one time — and a cursor of the
//! time alone would skip or repeat the files that share it. Opaque to clients; a forged
//! one is refused, never passed to SQL as text.

use app::api::is_file_name;

use super::cursor::{InvalidCursor, time_and_key};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCursor {
    /// The file's `created_at`.
    pub at: String,
    /// The file's name, its SHA-256.
    pub sha256: String,
}

impl FileCursor {
    /// The cursor's text form: `{created_at}_{sha256}` (neither part contains `_`).
    pub fn encode(&self) -> String {
        format!("{}_{}", self.at, self.sha256)
    }

    /// Reads a cursor this server gave out; anything else is refused (400
    /// `invalid-query`).
    pub fn decode(text: &str) -> Result<Self, InvalidCursor> {
        let (at, sha256) = time_and_key(text, is_file_name)?;
        Ok(Self {
            at: at.to_owned(),
            sha256: sha256.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn a_file_cursor_reads_back_what_it_wrote() {
        let cursor = FileCursor {
            at: "2026-12-01T05:00:00.123456Z".into(),
            sha256: NAME.into(),
        };
        assert_eq!(FileCursor::decode(&cursor.encode()).unwrap(), cursor);
    }

    #[test]
    fn a_forged_file_cursor_is_refused() {
        for text in [
            "nonsense",
            "2026-12-01T05:00:00Z",
            "2026-12-01T05:00:00Z_abc",
            &format!("yesterday_{NAME}"),
            &format!("2026-12-01T05:00:00Z_{}", NAME.to_uppercase()),
            "2026-12-01T05:00:00Z_'; DROP TABLE files;--",
        ] {
            assert!(FileCursor::decode(text).is_err(), "{text:?}");
        }
    }
}
