//! The bytes of an .enex note's files: a `<resource>`'s base64 `<data>`, streamed into a
//! temporary file while its MD5 is computed, since the resource's name and type come
//! after its data.

use std::fs::File;
use std::io::{self, BufRead, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use md5::{Digest, Md5};

use super::tracked::Tracked;
use crate::ReadError;
use crate::data_url::BASE64;

/// A resource's bytes, decoded into a temporary file (gone when dropped).
pub(super) struct Spooled {
    pub file: File,
    /// The MD5 of the bytes, in hex: what `<en-media hash>` names.
    pub md5: String,
}

impl Spooled {
    /// The bytes from their start.
    pub fn rewind(&mut self) -> io::Result<&mut File> {
        self.file.seek(SeekFrom::Start(0))?;
        Ok(&mut self.file)
    }
}

/// Decodes the base64 text at `src`'s position (up to the `<` of `</data>`) into a
/// temporary file beside the export at `export`. The temporary file is never larger than the export, which
/// holds the same bytes in base64; the memory used is a buffer's.
pub(super) fn spool_base64<R: BufRead>(
    src: &mut Tracked<R>,
    export: &Path,
) -> Result<Spooled, ReadError> {
    let line = src.line();
    let file = crate::spool::beside(export)?;
    let mut out = Hashing {
        file: BufWriter::new(file),
        md5: Md5::new(),
    };
    let text = Base64Text { src, ended: false };
    let mut decoder = base64::read::DecoderReader::new(text, &BASE64);
    match io::copy(&mut decoder, &mut out) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            return Err(ReadError::Malformed(format!(
                "an attachment's data (from line {line}) is not valid base64: {e}"
            )));
        }
        Err(e) => return Err(e.into()),
    }
    let md5 = hex::encode(out.md5.finalize());
    let file = out.file.into_inner().map_err(|e| e.into_error())?;
    Ok(Spooled { file, md5 })
}

/// Reads past the text at `src`'s position (up to the next `<`) without keeping it: the
/// data of a resource that is not imported, however large.
pub(super) fn skip_text<R: BufRead>(src: &mut Tracked<R>) -> io::Result<()> {
    loop {
        src.start_event();
        let available = src.fill_buf()?;
        if available.is_empty() {
            return Ok(());
        }
        match available.iter().position(|&b| b == b'<') {
            Some(at) => {
                src.consume(at);
                return Ok(());
            }
            None => {
                let n = available.len();
                src.consume(n);
            }
        }
    }
}

/// The base64 letters of a text up to the next `<`, without the whitespace that wraps it.
struct Base64Text<'a, R> {
    src: &'a mut Tracked<R>,
    ended: bool,
}

impl<R: BufRead> Read for Base64Text<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while !self.ended && !out.is_empty() {
            // The data is bounded by the export's size, not by one event's limit.
            self.src.start_event();
            let available = self.src.fill_buf()?;
            if available.is_empty() {
                self.ended = true;
                break;
            }
            let mut used = 0;
            let mut written = 0;
            for &byte in available {
                if byte == b'<' {
                    self.ended = true;
                    break;
                }
                if byte.is_ascii_whitespace() {
                    used += 1;
                    continue;
                }
                if !(byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("the character {:?} is not base64", byte as char),
                    ));
                }
                if written == out.len() {
                    break;
                }
                out[written] = byte;
                written += 1;
                used += 1;
            }
            self.src.consume(used);
            if written > 0 {
                return Ok(written);
            }
        }
        Ok(0)
    }
}

/// Writes the bytes to the temporary file and into the MD5 as they pass.
struct Hashing {
    file: BufWriter<File>,
    md5: Md5,
}

impl Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.file.write(bytes)?;
        self.md5.update(&bytes[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_base64_is_decoded_into_the_spool_and_stops_at_the_closing_tag() {
        let xml = b"  aGVs\n  bG8g\r\n d29y bGQ=\n</data>rest".to_vec();
        let mut src = Tracked::new(io::Cursor::new(xml), 4);
        let mut spooled =
            spool_base64(&mut src, &std::env::temp_dir().join("export.enex")).unwrap();
        let mut bytes = String::new();
        spooled
            .rewind()
            .unwrap()
            .read_to_string(&mut bytes)
            .unwrap();
        assert_eq!(bytes, "hello world");
        assert_eq!(spooled.md5, hex::encode(Md5::digest(b"hello world")));
        let mut rest = [0u8; 7];
        src.start_event();
        src.read_exact(&mut rest).unwrap();
        assert_eq!(&rest, b"</data>");
    }

    #[test]
    fn skipped_text_is_read_past_whatever_its_size() {
        let mut xml = vec![b'A'; 100_000];
        xml.extend_from_slice(b"</data>");
        let mut src = Tracked::new(io::Cursor::new(xml), 16);
        skip_text(&mut src).unwrap();
        assert_eq!(src.offset(), 100_000);
    }

    #[test]
    fn data_that_is_not_base64_is_malformed() {
        let mut src = Tracked::new(io::Cursor::new(b"aGVs&bG8=</data>".to_vec()), 1 << 20);
        let result = spool_base64(&mut src, &std::env::temp_dir().join("export.enex"));
        assert!(matches!(result, Err(ReadError::Malformed(m)) if m.contains("base64")));
    }
}
