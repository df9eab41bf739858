//! The spool: where an upload's bytes wait, on local disk, between arriving and being
//! stored in the database (`storage::files` says why they are not kept in memory).
//!
//! Each upload writes a file of its own, `upload-<uuid>`, removed when its [`SpoolFile`]
//! is dropped — on every path: stored, refused, timed out, or the client gone (the
//! request's future dropped). A process killed mid-upload cannot remove its file, so at
//! start every `upload-*` file older than [`STALE_AFTER`] is removed: a live upload's file
//! is written to while bytes arrive, and an idle one times out long before (the body's
//! idle timeout), so only the files of dead processes are that old — also when replicas on
//! one machine share the folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tokio::io::AsyncWriteExt;

/// The names of spool files start with this.
const PREFIX: &str = "upload-";
/// A spool file not written to for this long belongs to a process that is gone: twice
/// the longest an upload may take (`upload::UPLOAD_TOTAL_TIME`, an hour), so that no live
/// upload's file — nor a finished one waiting for its insert, nor an export's being sent
/// to a slow client — is near the cutoff, whatever the clocks of replicas sharing the
/// folder say. (Equal to the upload's limit, a slow upload's file could go just as its
/// last bytes arrived.)
pub const STALE_AFTER: Duration = Duration::from_secs(2 * 3600);

/// The folder uploads are spooled in.
#[derive(Clone, Debug)]
pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    /// The spool in `dir` (created if missing, readable by this user only), with the
    /// leftovers of killed processes removed.
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        make_dir(dir)?;
        check_private(dir)?;
        let spool = Self {
            dir: dir.to_owned(),
        };
        let removed = spool.remove_stale(SystemTime::now());
        if removed > 0 {
            tracing::info!(
                removed,
                dir = %dir.display(),
                "removed the spool files of uploads a stopped process left"
            );
        }
        Ok(spool)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Removes the `upload-*` files last written before `now - STALE_AFTER`; returns how
    /// many went.
    pub fn remove_stale(&self, now: SystemTime) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let cutoff = now
            .checked_sub(STALE_AFTER)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        entries
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(PREFIX))
            .filter(|entry| {
                entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|modified| modified < cutoff)
            })
            .filter(|entry| std::fs::remove_file(entry.path()).is_ok())
            .count()
    }

    /// A new, empty spool file for one upload. A folder removed since the start (a tmp
    /// cleaner sweeping `/tmp`) is made again, rather than failing every upload, import
    /// and export until a restart.
    pub async fn create(&self) -> std::io::Result<SpoolFile> {
        let path = self
            .dir
            .join(format!("{PREFIX}{}", uuid::Uuid::new_v4().simple()));
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create_new(true);
        let file = match options.open(&path).await {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                tracing::warn!(dir = %self.dir.display(), "the spool folder was gone; made it again");
                let dir = self.dir.clone();
                tokio::task::spawn_blocking(move || make_dir(&dir))
                    .await
                    .map_err(std::io::Error::other)??;
                options.open(&path).await?
            }
            other => other?,
        };
        Ok(SpoolFile {
            path,
            file: Some(file),
        })
    }
}

/// Makes the spool folder (and its parents) if missing, readable by this user only.
fn make_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Refuses a spool folder someone else could write in: one not owned by this process's
/// user, or writable by its group or others. The upload hashes the bytes as they arrive
/// and the insert hashes them again as it reads them back (`storage::files::SpoolChunks`),
/// but a folder others can write is a folder whose files they can swap or fill; a server
/// refusing to start says so plainly, where a spool shared by accident would only fail
/// later and oddly.
fn check_private(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let folder = std::fs::metadata(dir)?;
        // Our own user is the owner of a file we make: a probe, gone at once.
        let probe = dir.join(format!("owner-probe-{}", uuid::Uuid::new_v4().simple()));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)?;
        let ours = std::fs::metadata(&probe).map(|m| m.uid());
        let _ = std::fs::remove_file(&probe);
        let ours = ours?;
        let unsafe_because = if folder.uid() != ours {
            Some(format!(
                "it is owned by uid {}, not by this server's uid {ours}",
                folder.uid()
            ))
        } else if folder.mode() & 0o022 != 0 {
            Some(format!(
                "its group or others may write in it (mode {:o})",
                folder.mode() & 0o777
            ))
        } else {
            None
        };
        if let Some(reason) = unsafe_because {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "the upload folder {} is not private: {reason}; give the server a folder of \
                     its own (mode 700) with ONCENOTE_SPOOL_DIR",
                    dir.display()
                ),
            ));
        }
    }
    Ok(())
}

/// One upload's spool file: written while the body arrives, read back by the insert,
/// removed when dropped.
#[derive(Debug)]
pub struct SpoolFile {
    path: PathBuf,
    file: Option<tokio::fs::File>,
}

impl SpoolFile {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `bytes`.
    pub async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match &mut self.file {
            Some(file) => file.write_all(bytes).await,
            None => Err(std::io::Error::other("the spool file was finished")),
        }
    }

    /// Flushes and closes the file for writing, so it can be read back whole.
    pub async fn finish(&mut self) -> std::io::Result<()> {
        if let Some(mut file) = self.file.take() {
            file.flush().await?;
        }
        Ok(())
    }
}

impl Drop for SpoolFile {
    fn drop(&mut self) {
        // Closed first; then gone, whatever happened to the upload.
        self.file.take();
        if let Err(error) = std::fs::remove_file(&self.path)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(%error, path = %self.path.display(), "could not remove a spool file");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_spool_file_is_gone_once_dropped_whatever_happened() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::open(dir.path()).unwrap();
        let mut file = spool.create().await.unwrap();
        file.write(b"half an upload").await.unwrap();
        let path = file.path().to_owned();
        assert!(path.exists());
        drop(file);
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_spool_folder_others_may_write_in_is_refused_naming_the_setting() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let refused = Spool::open(dir.path()).unwrap_err();
        assert!(
            refused.to_string().contains("ONCENOTE_SPOOL_DIR"),
            "{refused}"
        );
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o770)).unwrap();
        assert!(
            Spool::open(dir.path()).is_err(),
            "group-writable is refused too"
        );
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        Spool::open(dir.path()).unwrap();
        // A folder made by the spool is private.
        let made = dir.path().join("made");
        Spool::open(&made).unwrap();
        assert_eq!(
            std::fs::metadata(&made).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }

    #[tokio::test]
    async fn a_spool_folder_removed_since_the_start_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("spool");
        let spool = Spool::open(&folder).unwrap();
        std::fs::remove_dir(&folder).unwrap();
        let mut file = spool.create().await.unwrap();
        file.write(b"an upload").await.unwrap();
        assert!(file.path().starts_with(&folder) && file.path().exists());
    }

    #[tokio::test]
    async fn only_upload_files_older_than_two_hours_are_removed_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::open(dir.path()).unwrap();
        let live = spool.create().await.unwrap();
        std::fs::write(dir.path().join("upload-dead"), b"left by a killed process").unwrap();
        std::fs::write(dir.path().join("not-an-upload"), b"someone else's").unwrap();
        let later = SystemTime::now() + STALE_AFTER + Duration::from_secs(60);
        // As two hours later: everything named upload-* is stale, the rest is not ours.
        assert_eq!(spool.remove_stale(later), 2);
        assert!(dir.path().join("not-an-upload").exists());
        drop(live);
        // Now: nothing is old enough.
        std::fs::write(dir.path().join("upload-fresh"), b"a live upload").unwrap();
        assert_eq!(spool.remove_stale(SystemTime::now()), 0);
    }
}
