//! Tar archives (Joplin's `.jex`) read without trusting them, with the same bounds as a
//! zip: the members are listed once (at most [`Limits::entries`]), then each is read in
//! place by seeking to its bytes, so a member can be read after the ones that follow it
//! without unpacking anything to disk or memory.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::rc::Rc;

use tar::EntryType;

use crate::budgeted::Budgeted;
use crate::{Limits, ReadError};

/// The most bytes the listing reads for one member: its header, and a long name, a long
/// link name and extended headers of a few KiB each before it.
const MEMBER_HEADERS: u64 = 16 * 1024;
/// The most bytes of member names kept, for each member an import may list: what a zip's
/// listing may read for each of its entries (`archive::DIRECTORY_BYTES_PER_ENTRY`). A
/// name is kept once, shared by the list and the table of places.
const NAME_BYTES_PER_MEMBER: u64 = 400;

/// Where one member's bytes are in the tar.
#[derive(Clone, Copy)]
struct Member {
    offset: u64,
    size: u64,
    modified: Option<chrono::NaiveDateTime>,
}

/// An open tar and the place of each of its members.
pub(crate) struct Tarball {
    file: File,
    names: Vec<Rc<str>>,
    members: HashMap<Rc<str>, Member>,
}

impl Tarball {
    /// Lists the tar at `path`, refusing one that holds more members than `limits` allow.
    /// Only plain files are listed (links, folders and sparse files are not notes).
    pub fn open(path: &Path, limits: &Limits) -> Result<Self, ReadError> {
        let file = File::open(path)?;
        // The listing reads each member's header, and the long name or extended header
        // before it (which the tar reader holds whole): at most MEMBER_HEADERS bytes a
        // member, so a forged gigabyte name is refused before it is held.
        let (budgeted, budget) = Budgeted::new(BufReader::new(file.try_clone()?), MEMBER_HEADERS);
        let mut archive = tar::Archive::new(budgeted);
        let mut names = Vec::new();
        let mut members = HashMap::new();
        let mut listed = 0usize;
        let mut names_left = NAME_BYTES_PER_MEMBER.saturating_mul(limits.entries as u64);
        let entries = archive
            .entries_with_seek()
            .map_err(|e| ReadError::Malformed(format!("not a tar that can be read: {e}")))?;
        for entry in entries {
            let entry = entry.map_err(|e| {
                if budget.spent() {
                    ReadError::TooLarge(format!(
                        "a tar member's name or extended header is longer than {} bytes",
                        MEMBER_HEADERS
                    ))
                } else {
                    ReadError::Malformed(format!("a broken tar member: {e}"))
                }
            })?;
            budget.renew(MEMBER_HEADERS);
            listed += 1;
            if listed > limits.entries {
                return Err(ReadError::TooLarge(format!(
                    "the archive lists more than {} entries; at most that many are read",
                    limits.entries
                )));
            }
            if !matches!(
                entry.header().entry_type(),
                EntryType::Regular | EntryType::Continuous
            ) {
                continue;
            }
            let name: Rc<str> = entry.path()?.to_string_lossy().into();
            names_left = names_left.checked_sub(name.len() as u64).ok_or_else(|| {
                ReadError::TooLarge(format!(
                    "the tar's member names take more than {} bytes in all",
                    NAME_BYTES_PER_MEMBER.saturating_mul(limits.entries as u64)
                ))
            })?;
            let modified = entry
                .header()
                .mtime()
                .ok()
                .and_then(|t| i64::try_from(t).ok())
                .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
                .map(|t| t.naive_utc());
            let member = Member {
                offset: entry.raw_file_position(),
                size: entry.size(),
                modified,
            };
            if members.insert(Rc::clone(&name), member).is_none() {
                names.push(name);
            }
        }
        Ok(Self {
            file,
            names,
            members,
        })
    }

    /// The names of the members that are files, in the tar's order (shared, not copied).
    pub fn file_names(&self) -> Vec<Rc<str>> {
        self.names.clone()
    }

    /// The member `name` as text, at most `max` bytes of it (more is
    /// [`ReadError::TooLarge`]); bytes that are not UTF-8 are replaced.
    pub fn read_text(&mut self, name: &str, max: u64) -> Result<String, ReadError> {
        let (mut bytes_in, _) = self.open_entry(name)?;
        let mut bytes = Vec::new();
        (&mut bytes_in)
            .take(max.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            return Err(ReadError::TooLarge(format!(
                "{name} unpacks to more than {max} bytes"
            )));
        }
        Ok(match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// The member `name` as a stream of its bytes, and when it was last changed.
    pub fn open_entry(
        &mut self,
        name: &str,
    ) -> Result<(impl Read + '_, Option<chrono::NaiveDateTime>), ReadError> {
        let member = *self
            .members
            .get(name)
            .ok_or_else(|| ReadError::Malformed(format!("the archive has no member {name}")))?;
        self.file.seek(SeekFrom::Start(member.offset))?;
        Ok((
            BufReader::new(&mut self.file).take(member.size),
            member.modified,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tar whose first member is a GNU long name of `name_bytes` bytes, naming the one
    /// file that follows.
    fn tar_with_long_name(name_bytes: usize) -> tempfile::NamedTempFile {
        let mut tar = Vec::new();
        let mut long = tar::Header::new_gnu();
        long.set_path("././@LongLink").unwrap();
        long.set_entry_type(EntryType::GNULongName);
        long.set_size(name_bytes as u64);
        long.set_cksum();
        tar.extend_from_slice(long.as_bytes());
        tar.extend(std::iter::repeat_n(b'a', name_bytes));
        tar.resize(tar.len().div_ceil(512) * 512, 0);
        let mut file = tar::Header::new_gnu();
        file.set_path("short").unwrap();
        file.set_entry_type(EntryType::Regular);
        file.set_size(3);
        file.set_cksum();
        tar.extend_from_slice(file.as_bytes());
        tar.extend_from_slice(b"abc");
        tar.resize(tar.len().div_ceil(512) * 512 + 1024, 0);
        let out = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(out.path(), tar).unwrap();
        out
    }

    #[test]
    fn a_sixteen_mebibyte_long_name_is_refused_while_listing() {
        let tar = tar_with_long_name(16 * 1024 * 1024);
        let opened = Tarball::open(tar.path(), &Limits::default());
        assert!(matches!(opened, Err(ReadError::TooLarge(_))));
    }

    #[test]
    fn a_long_name_of_a_few_hundred_bytes_is_read() {
        let tar = tar_with_long_name(300);
        let opened = Tarball::open(tar.path(), &Limits::default()).unwrap();
        assert_eq!(opened.file_names(), [Rc::from("a".repeat(300))]);
    }

    #[test]
    fn a_member_s_name_is_kept_once_for_the_list_and_the_table_of_places() {
        let tar = tar_with_long_name(300);
        let opened = Tarball::open(tar.path(), &Limits::default()).unwrap();
        let listed = opened.file_names();
        let (in_table, _) = opened.members.get_key_value(&*listed[0]).unwrap();
        // One allocation shared, not a copy each (a tar of 40,000 long names was held
        // twice, and a third time by the Joplin reader's listing).
        assert!(Rc::ptr_eq(&listed[0], in_table));
        assert_eq!(
            Rc::strong_count(in_table),
            3,
            "the list, the table, and this listing"
        );
    }

    #[test]
    fn member_names_past_their_budget_are_refused_while_listing() {
        // Ten members named in 1,000 bytes each: 10,000 bytes of names.
        let mut tar = tar::Builder::new(Vec::new());
        for n in 0..10 {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(EntryType::Regular);
            header.set_size(1);
            header.set_cksum();
            tar.append_data(&mut header, format!("{n}{}", "a".repeat(999)), &b"x"[..])
                .unwrap();
        }
        let out = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(out.path(), tar.into_inner().unwrap()).unwrap();
        // 30 entries allowed: 12,000 bytes of names; 20: 8,000, too few for these.
        let roomy = Limits {
            entries: 30,
            ..Limits::default()
        };
        let tight = Limits {
            entries: 20,
            ..Limits::default()
        };
        assert_eq!(
            Tarball::open(out.path(), &roomy)
                .unwrap()
                .file_names()
                .len(),
            10
        );
        assert!(matches!(
            Tarball::open(out.path(), &tight),
            Err(ReadError::TooLarge(message)) if message.contains("member names")
        ));
    }
}
