//! Temporary files for what a reader must unpack before it can hand it over (an ENEX
//! resource whose name comes after its bytes, a Standard Notes zip's JSON read twice).
//! They go beside the export, which the server has already spooled to a folder of its
//! own choosing, rather than into the system's temporary folder: the same disk, the same
//! room. Each is deleted as soon as it is dropped (or the process ends).

use std::fs::File;
use std::io;
use std::path::Path;

/// A new temporary file in the folder of the export at `export`.
pub(crate) fn beside(export: &Path) -> io::Result<File> {
    let dir = export
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    tempfile::tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_named_without_a_folder_spools_in_the_current_one() {
        assert!(beside(Path::new("export.enex")).is_ok());
        let dir = tempfile::tempdir().unwrap();
        assert!(beside(&dir.path().join("export.enex")).is_ok());
    }
}
