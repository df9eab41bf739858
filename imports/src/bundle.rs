//! An export that is either a zip or a tar (Joplin's exports come as both), read through
//! one set of calls.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::rc::Rc;

use crate::archive::Archive;
use crate::tarball::Tarball;
use crate::{Limits, ReadError};

/// A zip or a tar, told apart by its first bytes.
pub(crate) enum Bundle {
    Zip(Archive),
    Tar(Tarball),
}

impl Bundle {
    /// Opens the archive at `path`: a tar when it says `ustar` where a tar header does,
    /// else a zip.
    pub fn open(path: &Path, limits: &Limits) -> Result<Self, ReadError> {
        let mut head = [0u8; 512];
        let mut file = File::open(path)?;
        let mut got = 0;
        while got < head.len() {
            let n = file.read(&mut head[got..])?;
            if n == 0 {
                break;
            }
            got += n;
        }
        if crate::detect::is_tar_header(&head[..got]) {
            Ok(Bundle::Tar(Tarball::open(path, limits)?))
        } else {
            Ok(Bundle::Zip(Archive::open(path, limits)?))
        }
    }

    /// The names of the members that are files, in the archive's order: a tar's shared
    /// with its table of places, a zip's copied once from its directory.
    pub fn file_names(&self) -> Vec<Rc<str>> {
        match self {
            Bundle::Zip(zip) => zip.file_names().into_iter().map(Rc::from).collect(),
            Bundle::Tar(tar) => tar.file_names(),
        }
    }

    /// The member `name` as text, at most `max` bytes of it once unpacked.
    pub fn read_text(&mut self, name: &str, max: u64) -> Result<String, ReadError> {
        match self {
            Bundle::Zip(zip) => zip.read_text(name, max),
            Bundle::Tar(tar) => tar.read_text(name, max),
        }
    }

    /// Hands the member `name`, as a stream of its bytes, to `use_bytes`.
    pub fn with_entry<T>(
        &mut self,
        name: &str,
        use_bytes: impl FnOnce(&mut dyn Read) -> T,
    ) -> Result<T, ReadError> {
        Ok(match self {
            Bundle::Zip(zip) => use_bytes(&mut zip.open_entry(name)?.0),
            Bundle::Tar(tar) => use_bytes(&mut tar.open_entry(name)?.0),
        })
    }
}
