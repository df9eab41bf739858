//! Files in notes, as storage keeps them (PROTOCOL.md, "Files").
//!
//! Where the bytes live, and why: in the database, in chunks of [`FILE_CHUNK_BYTES`]
//! (`file_chunks`), written in the same transaction as the file's row and the person's
//! usage. An upload is first streamed to a spool file on local disk while it is hashed and
//! counted (`crate::files::upload`); only when the whole body is in and hashes to its name
//! does [`insert_file`](crate::storage::store::files::Files::insert_file) run, in one
//! transaction: the quota checked and counted, the row and its chunks (read back from the
//! spool file, a chunk at a time) inserted, committed. So:
//!
//! - the whole file is never in memory (a chunk at a time, in and out);
//! - a crash leaves no half file and no orphan: the transaction happened or it did not,
//!   and a killed process's spool file is swept at the next start;
//! - every replica serves every file (they share the database), and `server backup` /
//!   restore carries the files with the notes that show them, in one consistent copy;
//! - a range request reads only the chunks it needs.
//!
//! The cost is a database that grows with the files (a quota per person bounds it) and a
//! write lock held while a file's chunks go in (≈100 rows for 25 MiB). Object storage would
//! split one backup into two that can disagree and need its own orphan sweep; that is what
//! the anchors' trackers show going wrong, so we do not.

use crate::records::cursor::cut_to_page;
use crate::records::file_cursor::FileCursor;

/// The bytes of one `file_chunks` row (the last chunk of a file may be shorter).
pub const FILE_CHUNK_BYTES: usize = 256 * 1024;

/// A stored file, as storage describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFile {
    /// The SHA-256 of the bytes, 64 lower-case hex digits: the file's name.
    pub sha256: String,
    pub size: u64,
    pub content_type: String,
    pub created_at: String,
}

impl From<StoredFile> for app::api::FileInfo {
    fn from(file: StoredFile) -> Self {
        Self {
            sha256: file.sha256,
            size: file.size,
            content_type: file.content_type,
            created_at: file.created_at,
        }
    }
}

/// A page of a person's files, newest first, with what all of them take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePage {
    pub files: Vec<StoredFile>,
    /// Where the next page starts, if another follows.
    pub next: Option<FileCursor>,
    /// What all the person's files cost of their quota.
    pub used_bytes: u64,
    /// How many files the person has in all.
    pub file_count: u64,
}

impl FilePage {
    /// A page from `limit + 1` files read newest first: the extra one, if there, says that
    /// another page follows, which starts after the last one kept.
    pub fn of(mut files: Vec<StoredFile>, limit: u32, used_bytes: u64, file_count: u64) -> Self {
        let next = cut_to_page(&mut files, limit, |f| FileCursor {
            at: f.created_at.clone(),
            sha256: f.sha256.clone(),
        });
        Self {
            files,
            next,
            used_bytes,
            file_count,
        }
    }
}

/// What an insert did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileInsert {
    /// The file is new: stored now, and counted in the person's usage.
    Stored(StoredFile),
    /// The person had the file already (an earlier upload, or one that finished first):
    /// nothing was written but its `last_seen_at`; usage is unchanged.
    AlreadyThere(StoredFile),
    /// The file would take the person past their quota: nothing was written.
    OverQuota { used: u64, quota: u64 },
}

/// The chunks a byte range `first..=last` of a file lies in, as `(first chunk, last chunk)`.
pub fn chunks_of_range(first: u64, last: u64) -> (u32, u32) {
    let chunk = FILE_CHUNK_BYTES as u64;
    ((first / chunk) as u32, (last / chunk) as u32)
}

/// How many chunks a file of `size` bytes has (an empty file has none).
pub fn chunk_count(size: u64) -> u32 {
    size.div_ceil(FILE_CHUNK_BYTES as u64) as u32
}

/// Reads a spool file a chunk at a time, for an insert: the next chunk, or `None` at its
/// end. A spool file shorter or longer than the size the upload counted is an error (the
/// file was changed under the server), and so is one whose bytes, hashed again as they are
/// read back, are not the SHA-256 the upload counted: the upload hashed the bytes as they
/// arrived, but the insert reads the file again by its path, and whatever can write the
/// spool folder could change them in between. The insert runs `next` until `None`, so the
/// last check comes before its commit: a wrong file is never stored under a name.
pub(crate) struct SpoolChunks {
    file: tokio::fs::File,
    left: u64,
    sha256: String,
    hasher: sha2::Sha256,
}

impl SpoolChunks {
    /// The spool file at `path`, which the upload counted as `size` bytes hashing to
    /// `sha256` (lower-case hex).
    pub(crate) async fn open(
        path: &std::path::Path,
        size: u64,
        sha256: &str,
    ) -> std::io::Result<Self> {
        use sha2::Digest;
        Ok(Self {
            file: tokio::fs::File::open(path).await?,
            left: size,
            sha256: sha256.to_owned(),
            hasher: sha2::Sha256::new(),
        })
    }

    pub(crate) async fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        use sha2::Digest;
        use tokio::io::AsyncReadExt;
        if self.left == 0 {
            let mut probe = [0u8; 1];
            if self.file.read(&mut probe).await? != 0 {
                return Err(changed());
            }
            let read_back = hex::encode(std::mem::take(&mut self.hasher).finalize());
            return if read_back == self.sha256 {
                Ok(None)
            } else {
                Err(std::io::Error::other(format!(
                    "the spool file hashes to {read_back} now, not to the {} the upload counted",
                    self.sha256
                )))
            };
        }
        let want = self.left.min(FILE_CHUNK_BYTES as u64) as usize;
        let mut chunk = vec![0u8; want];
        self.file.read_exact(&mut chunk).await.map_err(|error| {
            if error.kind() == std::io::ErrorKind::UnexpectedEof {
                changed()
            } else {
                error
            }
        })?;
        self.left -= want as u64;
        self.hasher.update(&chunk);
        Ok(Some(chunk))
    }
}

fn changed() -> std::io::Error {
    std::io::Error::other("the spool file is not the size the upload counted")
}

/// A spool file that could not be read back, in storage's terms: a full disk is a full
/// disk (507), anything else a failure.
pub(crate) fn spool_error(error: std::io::Error) -> super::StorageError {
    if error.kind() == std::io::ErrorKind::StorageFull {
        super::StorageError::Full
    } else {
        super::StorageError::Other(
            anyhow::Error::new(error).context("reading an upload's spool file"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_reads_only_the_chunks_it_lies_in() {
        let chunk = FILE_CHUNK_BYTES as u64;
        assert_eq!(chunks_of_range(0, 0), (0, 0));
        assert_eq!(chunks_of_range(0, chunk - 1), (0, 0));
        assert_eq!(chunks_of_range(chunk - 1, chunk), (0, 1));
        assert_eq!(chunks_of_range(3 * chunk + 5, 3 * chunk + 9), (3, 3));
    }

    #[test]
    fn a_file_has_as_many_chunks_as_its_size_needs() {
        let chunk = FILE_CHUNK_BYTES as u64;
        assert_eq!(chunk_count(0), 0);
        assert_eq!(chunk_count(1), 1);
        assert_eq!(chunk_count(chunk), 1);
        assert_eq!(chunk_count(chunk + 1), 2);
        assert_eq!(chunk_count(25 * 1024 * 1024), 100);
    }

    #[tokio::test]
    async fn a_spool_file_is_read_back_a_chunk_at_a_time_and_must_be_the_size_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("upload");
        let bytes: Vec<u8> = (0..FILE_CHUNK_BYTES + 10).map(|i| i as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let name = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes));
        let mut chunks = SpoolChunks::open(&path, bytes.len() as u64, &name)
            .await
            .unwrap();
        let first = chunks.next().await.unwrap().unwrap();
        let second = chunks.next().await.unwrap().unwrap();
        assert_eq!(first.len(), FILE_CHUNK_BYTES);
        assert_eq!([first, second].concat(), bytes);
        assert!(chunks.next().await.unwrap().is_none());

        let mut short = SpoolChunks::open(&path, bytes.len() as u64 + 1, &name)
            .await
            .unwrap();
        short.next().await.unwrap();
        assert!(short.next().await.is_err());
        let mut long = SpoolChunks::open(&path, 10, &name).await.unwrap();
        long.next().await.unwrap();
        assert!(long.next().await.is_err());
    }

    #[tokio::test]
    async fn a_spool_file_whose_bytes_changed_since_they_were_hashed_is_refused_at_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("upload");
        let bytes: Vec<u8> = (0..FILE_CHUNK_BYTES + 10).map(|i| i as u8).collect();
        let name = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes));
        // The same size, one byte swapped after the upload hashed it.
        let mut swapped = bytes.clone();
        swapped[7] ^= 0xff;
        std::fs::write(&path, &swapped).unwrap();
        let mut chunks = SpoolChunks::open(&path, bytes.len() as u64, &name)
            .await
            .unwrap();
        chunks.next().await.unwrap();
        chunks.next().await.unwrap();
        let refused = chunks.next().await.unwrap_err();
        assert!(refused.to_string().contains("hashes to"), "{refused}");
    }
}
