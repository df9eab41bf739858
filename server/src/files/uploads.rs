//! What the uploads of one process share: their places (`limits`) and their spool.

use std::sync::Arc;

use anyhow::Context;

use super::limits::UploadLimits;
use super::spool::Spool;
use crate::config::Config;

/// What uploads share in a process: their places, and their spool.
#[derive(Debug)]
pub struct Uploads {
    pub limits: Arc<UploadLimits>,
    pub spool: Spool,
}

impl Uploads {
    /// The limits and the spool the configuration names (the spool's folder made, and
    /// emptied of what killed processes left).
    pub fn open(config: &Config) -> anyhow::Result<Self> {
        let spool = Spool::open(&config.spool_dir).with_context(|| {
            format!(
                "could not make the upload folder {} (ONCENOTE_SPOOL_DIR)",
                config.spool_dir.display()
            )
        })?;
        Ok(Self {
            limits: UploadLimits::new(config.uploads_per_person, config.uploads_max),
            spool,
        })
    }
}
