//! What the uploads of one process share: their places (`limits`) and their spool — and
//! the places of exports, which spool too (`notes::transfer::export`).

use std::sync::Arc;

use anyhow::Context;

use super::limits::UploadLimits;
use super::spool::Spool;
use crate::config::Config;

/// Exports written or sent at once by one process: each spools the person's whole file
/// set (up to their quota, a gigabyte) before it answers, so without a cap 60 parallel
/// exports would need 60 quotas of spool. Like imports (`IMPORTS_AT_ONCE`), two.
pub const EXPORTS_AT_ONCE: usize = 2;
/// Exports of one person at once: a second is the same bytes again.
pub const EXPORTS_PER_PERSON: usize = 1;
/// Imports run at once by one process: each holds its upload on disk (up to 64 MiB and
/// a quota) and a blocking thread that reads it.
pub const IMPORTS_AT_ONCE: usize = 2;
/// Imports of one person at once: one person's script cannot hold every place.
pub const IMPORTS_PER_PERSON: usize = 1;
/// Imports whose uploads are arriving at once in one process (one of each person's): a
/// slow or stalled upload holds one of these, not one of the [`IMPORTS_AT_ONCE`] that
/// run, and the spool holds at most this many imports on their way besides those.
pub const IMPORTS_ARRIVING_AT_ONCE: usize = 4;

/// What uploads share in a process: their places, and their spool.
#[derive(Debug)]
pub struct Uploads {
    pub limits: Arc<UploadLimits>,
    pub spool: Spool,
    /// The places of imports on their way in: one of each person's, a few of everyone's,
    /// held while the upload is spooled.
    pub imports_arriving: Arc<UploadLimits>,
    /// The places of imports that run, held from when the upload is spooled until the
    /// import has stopped reading it (not only until its request ends).
    pub imports: Arc<UploadLimits>,
    /// The places of exports, held from before the spool is written until the answer's
    /// body is sent (or dropped).
    pub exports: Arc<UploadLimits>,
}

impl Uploads {
    /// The limits and the spool the configuration names (the spool's folder made, and
    /// emptied of what killed processes left).
    pub fn open(config: &Config) -> anyhow::Result<Self> {
        let spool = Spool::open(&config.spool_dir).with_context(|| {
            format!(
                "the upload folder {} (ONCENOTE_SPOOL_DIR) cannot be used",
                config.spool_dir.display()
            )
        })?;
        Ok(Self {
            limits: UploadLimits::new(config.uploads_per_person, config.uploads_max),
            spool,
            exports: UploadLimits::for_exports(EXPORTS_PER_PERSON, EXPORTS_AT_ONCE),
            imports_arriving: UploadLimits::for_imports(
                IMPORTS_PER_PERSON,
                IMPORTS_ARRIVING_AT_ONCE,
            ),
            imports: UploadLimits::for_imports(IMPORTS_PER_PERSON, IMPORTS_AT_ONCE),
        })
    }
}
