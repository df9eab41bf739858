//! (to be written)

use std::path::Path;

use crate::{Limits, ReadError, Sink};

/// Reads the export at `path` into `sink`.
pub fn read(_path: &Path, _sink: &mut dyn Sink, _limits: &Limits) -> Result<(), ReadError> {
    Err(ReadError::Malformed("not read yet".into()))
}
