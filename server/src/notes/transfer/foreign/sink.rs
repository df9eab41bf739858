//! Where another app's export goes, note by note: the [`imports::Sink`] that stores its
//! files as uploads are stored and makes its notes through the ordinary idempotent create.
//!
//! It runs on a blocking thread (the readers are synchronous) and waits for the database
//! on the runtime's handle. Each note's key derives from the note's place in its export
//! (`prepared`), so an export read again — after a closed tab, a killed server, or just
//! twice — makes each note once: what was made is a replay, what was not is made now.

use std::io::{self, Read, Write};

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use tokio::runtime::Handle;
use tokio::sync::watch;

use app::api::{ImportProblem, ImportProgress, ImportReport, TagMapping};
use imports::{FileIn, FileStored, ForeignNote, Kind, SkipReason, Stop};

use super::prepared::{PreparedNote, prepare};
use crate::error::ApiError;
use crate::files::sniff::{SNIFF_BYTES, declared_type, image_type};
use crate::files::upload::spool_failure;
use crate::idempotency;
use crate::notes::answers;
use crate::notes::changes::IfMatch;
use crate::notes::create::CreateNote;
use crate::notes::pin::{PinNote, ValidPin};
use crate::notes::transfer::export_reader::cut;
use crate::state::AppState;
use crate::storage::files::FileInsert;
use crate::timestamp;

/// How many bytes of files an import may unpack for each byte uploaded (besides the
/// person's quota): ordinary files hardly compress; a zip bomb named many times does.
const UNPACKED_PER_UPLOADED_BYTE: u64 = 4;
/// How many skipped notes the report names (it counts them all).
const SKIPPED_NAMED: usize = 100;
/// How many renamed tags the report names: each note of an export may bring names of its
/// own, and the report is one answer.
const RENAMED_NAMED: usize = 100;
/// How much of a name the report quotes.
const NAME_QUOTED_CHARS: usize = 80;

/// An import of another app's export under way.
pub struct NoteSink {
    state: AppState,
    scope: String,
    kind: Kind,
    runtime: Handle,
    progress: watch::Sender<ImportProgress>,
    now: DateTime<Utc>,
    report: ImportReport,
    /// Why the import stopped before the export's end, if it did.
    stopped: Option<ApiError>,
    /// Bytes of files this import may still unpack and hash: an export can name one
    /// small, highly compressed file under many names, and each is unpacked before it is
    /// known to be a file the person has.
    unpack_budget: u64,
    /// Set once a file did not fit in the quota: later files are refused unread.
    quota_full: Option<String>,
}

impl NoteSink {
    /// An import into `scope` of an export of `kind` whose upload was `upload_bytes`.
    pub fn new(
        state: AppState,
        scope: String,
        kind: Kind,
        runtime: Handle,
        progress: watch::Sender<ImportProgress>,
        upload_bytes: u64,
    ) -> Self {
        let unpack_budget = upload_bytes
            .saturating_mul(UNPACKED_PER_UPLOADED_BYTE)
            .saturating_add(state.config.file_quota_bytes);
        let report = ImportReport {
            kind: kind.as_str().to_owned(),
            ..ImportReport::default()
        };
        Self {
            state,
            scope,
            kind,
            runtime,
            progress,
            now: timestamp::now(),
            report,
            stopped: None,
            unpack_budget,
            quota_full: None,
        }
    }

    /// The report, or why the import stopped.
    pub fn finish(self) -> Result<ImportReport, ApiError> {
        match self.stopped {
            Some(error) => Err(error),
            None => Ok(self.report),
        }
    }

    /// What has been done so far (for the log of a stopped import).
    pub fn report(&self) -> &ImportReport {
        &self.report
    }

    /// Stops unless whoever asked for the import is still waiting for it.
    fn still_wanted(&mut self) -> Result<(), Stop> {
        if self.progress.is_closed() {
            return Err(self.stop(ApiError::Internal(anyhow::anyhow!(
                "the import's request went away before its end"
            ))));
        }
        Ok(())
    }

    fn stop(&mut self, error: ApiError) -> Stop {
        self.stopped = Some(error);
        Stop
    }

    fn failed(&mut self, name: &str, reason: String) {
        self.report.failed.push(ImportProblem {
            name: cut(name, NAME_QUOTED_CHARS),
            reason,
        });
    }

    fn counted(&mut self, add: impl FnOnce(&mut ImportProgress)) {
        self.progress.send_modify(add);
    }

    fn skip(&mut self, name: &str, reason: &str) {
        self.report.skipped += 1;
        if self.report.skipped_notes.len() < SKIPPED_NAMED {
            self.report.skipped_notes.push(ImportProblem {
                name: cut(name, NAME_QUOTED_CHARS),
                reason: reason.to_owned(),
            });
        }
    }

    /// Makes the note (and pins it), answering what became of it.
    fn make(&self, prepared: &PreparedNote) -> Result<Made, ApiError> {
        let create = CreateNote::from_import(prepared.note.clone(), prepared.times.clone());
        let pipeline = self.state.pipeline();
        crate::notes::rendered::warm(&prepared.note.body);
        let answer = self.runtime.block_on(idempotency::execute(
            pipeline,
            &self.scope,
            &prepared.key,
            create,
            answers::created,
        ));
        let answer = match answer {
            Ok(answer) => answer,
            Err(ApiError::IdempotencyKeyReused) => return Ok(Made::ChangedSince),
            Err(error) => return Err(error),
        };
        if answer.stored.status == 410 {
            return Ok(Made::DeletedHere);
        }
        let made: app::api::Note = serde_json::from_slice(&answer.stored.body)
            .map_err(|e| ApiError::Internal(e.into()))?;
        if prepared.pinned {
            let pin = PinNote(ValidPin {
                id: made.id.clone(),
                pinned: true,
                if_match: IfMatch::Absent,
                written_at: made.written_at.clone(),
            });
            self.runtime.block_on(idempotency::execute(
                pipeline,
                &self.scope,
                &prepared.pin_key,
                pin,
                answers::pinned,
            ))?;
        }
        Ok(if answer.replayed || answer.stored.status == 200 {
            Made::There
        } else {
            Made::New
        })
    }

    /// Copies a file's bytes to a spool file of its own, hashing and counting them, at
    /// most the largest file the server takes; then stores it as an upload is stored.
    fn store_file(&mut self, file: FileIn<'_>) -> Result<FileStored, ApiError> {
        if let Some(reason) = &self.quota_full {
            return Ok(FileStored::Refused {
                reason: reason.clone(),
            });
        }
        let max = self.state.config.file_max_bytes.min(self.unpack_budget);
        let spool = self.state.uploads.spool.clone();
        let mut spooled = self
            .runtime
            .block_on(spool.create())
            .map_err(spool_failure)?;
        self.runtime
            .block_on(spooled.finish())
            .map_err(spool_failure)?;
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .open(spooled.path())
            .map_err(spool_failure)?;
        let copied = match copy_hashed(file.bytes, &mut out, max) {
            Ok(Some(copied)) => copied,
            Ok(None) if max < self.state.config.file_max_bytes => {
                return Err(ApiError::UnpacksTooLarge(format!(
                    "this export's files unpack to more than {} bytes: past what an import \
                     of its size may unpack",
                    app::api::grouped(usize::try_from(self.unpack_budget).unwrap_or(usize::MAX))
                )));
            }
            Ok(None) => {
                return Ok(FileStored::Refused {
                    reason: format!(
                        "larger than {} bytes, the largest file this server takes",
                        app::api::grouped(usize::try_from(max).unwrap_or(usize::MAX))
                    ),
                });
            }
            // The export's bytes would not unpack (a damaged entry): that file alone.
            Err(Copy::Read(error)) => {
                tracing::info!(%error, "a file of an import is damaged in its export");
                return Ok(FileStored::Refused {
                    reason: "damaged in the export".into(),
                });
            }
            Err(Copy::Write(e)) if e.kind() == io::ErrorKind::StorageFull => {
                return Err(ApiError::StorageFull);
            }
            Err(Copy::Write(e)) => {
                return Err(ApiError::Internal(
                    anyhow::Error::new(e).context("spooling an imported file"),
                ));
            }
        };
        drop(out);
        self.unpack_budget = self.unpack_budget.saturating_sub(copied.size);
        // Another app's word for a file's type is taken only where it cannot show
        // itself: an image is what its first bytes say.
        let content_type = image_type(&copied.head)
            .map(str::to_owned)
            .unwrap_or_else(|| declared_type(file.content_type));
        let now = timestamp::format(timestamp::now());
        let inserted = self.runtime.block_on(self.state.store.files().insert_file(
            &self.scope,
            &copied.sha256,
            copied.size,
            &content_type,
            spooled.path(),
            self.state.config.file_quota_bytes,
            &now,
        ))?;
        Ok(match inserted {
            FileInsert::Stored(_) => {
                self.report.files += 1;
                FileStored::Stored {
                    sha256: copied.sha256,
                }
            }
            FileInsert::AlreadyThere(_) => FileStored::Stored {
                sha256: copied.sha256,
            },
            FileInsert::OverQuota { used, quota } => {
                let reason = format!(
                    "it would take your files past your quota ({} of {} bytes used)",
                    app::api::grouped(usize::try_from(used).unwrap_or(usize::MAX)),
                    app::api::grouped(usize::try_from(quota).unwrap_or(usize::MAX))
                );
                self.quota_full = Some(reason.clone());
                FileStored::Refused { reason }
            }
        })
    }
}

/// What became of one note.
enum Made {
    New,
    /// An earlier import of this export made it.
    There,
    /// An earlier import made it and it was deleted for good here since.
    DeletedHere,
    /// An earlier import of an older export made it, and the note changed in the other
    /// app since: not made twice.
    ChangedSince,
}

impl imports::Sink for NoteSink {
    fn file(&mut self, file: FileIn<'_>) -> Result<FileStored, Stop> {
        self.still_wanted()?;
        let name = file.name.to_owned();
        let stored = self.store_file(file).map_err(|error| self.stop(error))?;
        if let FileStored::Refused { reason } = &stored {
            self.failed(&name, format!("file not imported: {reason}"));
        }
        self.counted(|p| p.files += 1);
        Ok(stored)
    }

    fn note(&mut self, note: ForeignNote) -> Result<(), Stop> {
        self.still_wanted()?;
        let prepared = match prepare(self.kind, &note, self.now) {
            Ok(prepared) => prepared,
            Err(error) => {
                self.failed(&note.name, cut(&error.to_string(), 200));
                self.counted(|p| p.notes += 1);
                return Ok(());
            }
        };
        for mapping in &prepared.renamed_tags {
            if self.report.tags_renamed.len() == RENAMED_NAMED {
                break;
            }
            let named = TagMapping {
                from: cut(&mapping.from, NAME_QUOTED_CHARS),
                to: mapping.to.clone(),
            };
            if !self.report.tags_renamed.contains(&named) {
                self.report.tags_renamed.push(named);
            }
        }
        match self.make(&prepared) {
            Ok(Made::New) => self.report.imported += 1,
            Ok(Made::There) => self.report.already_there += 1,
            Ok(Made::DeletedHere) => self.skip(&note.name, "deleted here after an earlier import"),
            Ok(Made::ChangedSince) => self.skip(
                &note.name,
                "imported before from an older export; changed since in the other app",
            ),
            // The server could not write (the disk, the database): stop here; the same
            // file imported again goes on where this stopped.
            Err(error) if error.status_and_slug().0.is_server_error() => {
                return Err(self.stop(error));
            }
            Err(error) => self.failed(&note.name, cut(&error.to_string(), 200)),
        }
        self.counted(|p| p.notes += 1);
        Ok(())
    }

    fn skipped(&mut self, name: &str, reason: SkipReason) -> Result<(), Stop> {
        self.skip(name, reason.as_str());
        self.counted(|p| p.notes += 1);
        Ok(())
    }
}

/// A file's bytes as copied: their SHA-256, size and first bytes.
struct Copied {
    sha256: String,
    size: u64,
    head: Vec<u8>,
}

/// What failed in a copy: reading the export (that file is damaged) or writing the spool
/// (the server's disk).
enum Copy {
    Read(io::Error),
    Write(io::Error),
}

/// Copies `from` into `into` while hashing, or `None` once it passes `max` bytes.
fn copy_hashed(
    from: &mut dyn Read,
    into: &mut impl Write,
    max: u64,
) -> Result<Option<Copied>, Copy> {
    let mut bytes = from.take(max.saturating_add(1));
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = bytes.read(&mut buffer).map_err(Copy::Read)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        if size > max {
            return Ok(None);
        }
        if head.len() < SNIFF_BYTES {
            let wanted = (SNIFF_BYTES - head.len()).min(n);
            head.extend_from_slice(&buffer[..wanted]);
        }
        hasher.update(&buffer[..n]);
        into.write_all(&buffer[..n]).map_err(Copy::Write)?;
    }
    Ok(Some(Copied {
        sha256: hex::encode(hasher.finalize()),
        size,
        head,
    }))
}
