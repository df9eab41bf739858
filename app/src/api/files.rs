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
/// The least a file costs of its person's quota, whatever its size: a file takes a row, a
/// chunk and a line in every list however few its bytes, and counting only the bytes let
/// thousands of tiny files cost next to nothing (issue #60). The migration
/// `20261231000002_files_cost_at_least_4_kib` counted the stored files again with this
/// value, and every sweep gives back what the insert charged: change it only with a
/// migration that counts them again.
pub const FILE_MIN_CHARGE_BYTES: u64 = 4096;

/// What a file of `size` bytes costs of its person's quota.
pub fn quota_charge(size: u64) -> u64 {
    size.max(FILE_MIN_CHARGE_BYTES)
}

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

/// The answer to `GET /api/files?limit=&cursor=`: a page of the person's files, newest
/// first, and their room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FileList {
    pub files: Vec<FileInfo>,
    /// Cursor for the next (older) page, or `None` at the end.
    pub next: Option<String>,
    /// What the person's files cost of the quota (each at least
    /// [`FILE_MIN_CHARGE_BYTES`]).
    pub used_bytes: u64,
    pub quota_bytes: u64,
    /// How many files the person has, on every page.
    pub file_count: u64,
}

impl FileList {
    /// Adds `page`, read after `cursor`, to the list — if the list still ends there: a
    /// page that arrives twice (More pressed again while it loaded) is added once.
    pub fn add_page(&mut self, cursor: &str, page: FileList) {
        if self.next.as_deref() != Some(cursor) {
            return;
        }
        self.files.extend(page.files);
        self.next = page.next;
        self.used_bytes = page.used_bytes;
        self.quota_bytes = page.quota_bytes;
        self.file_count = page.file_count;
    }
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
    fn a_file_costs_its_bytes_of_the_quota_and_never_less_than_4_kib() {
        assert_eq!(quota_charge(0), 4096);
        assert_eq!(quota_charge(3), 4096);
        assert_eq!(quota_charge(4096), 4096);
        assert_eq!(quota_charge(4097), 4097);
        assert_eq!(quota_charge(25 * 1024 * 1024), 25 * 1024 * 1024);
    }

    fn listed(names: &[&str], next: Option<&str>, count: u64) -> FileList {
        FileList {
            files: names
                .iter()
                .map(|name| FileInfo {
                    sha256: (*name).to_owned(),
                    size: 1,
                    content_type: "text/plain".into(),
                    created_at: "2026-12-01T00:00:00.000000Z".into(),
                })
                .collect(),
            next: next.map(str::to_owned),
            used_bytes: count * 4096,
            quota_bytes: 1 << 30,
            file_count: count,
        }
    }

    #[test]
    fn the_next_page_of_files_is_added_once_where_the_list_ends() {
        let mut list = listed(&["c", "b"], Some("after-b"), 3);
        list.add_page("after-b", listed(&["a"], None, 4));
        let names: Vec<&str> = list.files.iter().map(|f| f.sha256.as_str()).collect();
        assert_eq!(names, ["c", "b", "a"]);
        assert_eq!((list.next.as_deref(), list.file_count), (None, 4));
        // The same page again (a second press while the first loaded): nothing twice.
        list.add_page("after-b", listed(&["a"], None, 4));
        assert_eq!(list.files.len(), 3);
    }

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
