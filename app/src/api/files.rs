//! Files in notes (PROTOCOL.md, "Files"): a file is named by the SHA-256 of its bytes, so
//! an upload is its own idempotency key — `PUT /api/files/{sha256}` twice stores one file.
//! Notes refer to a file as `/files/{sha256}` (`![name](/files/…)` for an image).

use serde::{Deserialize, Serialize};

/// `PUT /api/files/{sha256}` (the raw bytes) and `GET /api/files` (the person's files).
pub const FILES_API_PATH: &str = "/api/files";
/// `GET /files/{sha256}`: the bytes, to their owner only.
pub const FILES_PATH: &str = "/files";
/// The largest file by default (`ONCENOTE_FILE_MAX_BYTES`): 25 MiB.
pub const FILE_MAX_BYTES_DEFAULT: u64 = 25 * 1024 * 1024;

/// A stored file, as every answer about one describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FileInfo {
    /// The SHA-256 of the bytes, 64 lower-case hex digits: the file's name.
    pub sha256: String,
    pub size: u64,
    /// The type the upload declared (`application/octet-stream` when it declared none).
    pub content_type: String,
    pub created_at: String,
}

/// The answer to `PUT /api/files/{sha256}`: 201 the first time, 200 (replayed) after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FileAnswer {
    pub file: FileInfo,
}

/// The answer to `GET /api/files`: the person's files, newest first, and their room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FileList {
    pub files: Vec<FileInfo>,
    pub used_bytes: u64,
    pub quota_bytes: u64,
}

/// Whether `name` is a file's name: 64 lower-case hex digits.
pub fn is_file_name(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Where a file is served: `/files/{sha256}`.
pub fn file_href(sha256: &str) -> String {
    format!("{FILES_PATH}/{sha256}")
}

/// The names of the files a note's text refers to (`/files/{sha256}` anywhere in it),
/// each once, in the order they first appear.
pub fn referred_files(text: &str) -> Vec<String> {
    let prefix = "/files/";
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        if let Some(name) = after.get(..64)
            && is_file_name(name)
            && !after[64..].starts_with(|c: char| c.is_ascii_alphanumeric())
            && !found.iter().any(|f| f == name)
        {
            found.push(name.to_owned());
        }
        rest = after;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const B: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    #[test]
    fn a_file_name_is_64_lower_case_hex_digits() {
        assert!(is_file_name(A));
        assert!(!is_file_name(&A.to_uppercase()));
        assert!(!is_file_name(&A[..63]));
        assert!(!is_file_name(&format!("{A}0")));
        assert!(!is_file_name("../etc/passwd"));
    }

    #[test]
    fn a_note_refers_to_each_file_once_in_the_order_it_first_appears() {
        let text = format!(
            "![cat](/files/{B}) see [pdf](/files/{A}) and again ![](/files/{B})\n/files/{A}x /files/short"
        );
        assert_eq!(referred_files(&text), vec![B.to_owned(), A.to_owned()]);
        assert!(referred_files(&format!("/files/{A}0")).is_empty());
        assert!(referred_files("no files here, not even /files/").is_empty());
    }
}
