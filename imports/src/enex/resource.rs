//! The bytes of an .enex note's files: a `<resource>`'s base64 `<data>` (streamed into a
//! temporary file while its MD5 is computed, since the resource's name and type come
//! after its data) and the `data:` URLs of images written into the content itself.

use std::fs::File;
use std::io::{self, BufRead, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose};
use md5::{Digest, Md5};

use super::tracked::Tracked;
use crate::ReadError;

/// Base64 as Evernote writes it, and as data: URLs may (padding present or not).
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

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
/// temporary file in `dir`. The temporary file is never larger than the export, which
/// holds the same bytes in base64; the memory used is a buffer's.
pub(super) fn spool_base64<R: BufRead>(
    src: &mut Tracked<R>,
    dir: &Path,
) -> Result<Spooled, ReadError> {
    let line = src.line();
    let file = tempfile::tempfile_in(dir)?;
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

/// An image written into the content as a `data:` URL.
pub(super) struct DataUrl {
    pub mime: String,
    pub bytes: Vec<u8>,
}

impl DataUrl {
    /// A name for the file, from its type (`image.png`), since a data: URL has none.
    pub fn file_name(&self) -> String {
        let extension = match self.mime.as_str() {
            "image/png" => "png",
            "image/jpeg" => "jpg",
            "image/gif" => "gif",
            "image/webp" => "webp",
            "image/svg+xml" => "svg",
            _ => return "attachment".into(),
        };
        format!("image.{extension}")
    }
}

/// Decodes `data:[type][;base64],data` (RFC 2397); `None` if `url` is not one or its
/// data does not decode. The URL is part of a note's content, so it is bounded by it.
pub(super) fn decode_data_url(url: &str) -> Option<DataUrl> {
    let rest = url.trim().strip_prefix("data:")?;
    let (header, data) = rest.split_once(',')?;
    let mut parts = header.split(';');
    let mime = parts
        .next()
        .filter(|m| !m.is_empty())
        .unwrap_or("text/plain")
        .to_ascii_lowercase();
    let is_base64 = parts.any(|p| p.eq_ignore_ascii_case("base64"));
    let bytes = if is_base64 {
        let letters: Vec<u8> = data.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        general_purpose::STANDARD
            .decode(&letters)
            .or_else(|_| BASE64.decode(&letters))
            .ok()?
    } else {
        percent_encoding::percent_decode_str(data).collect()
    };
    Some(DataUrl { mime, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_base64_is_decoded_into_the_spool_and_stops_at_the_closing_tag() {
        let xml = b"  aGVs\n  bG8g\r\n d29y bGQ=\n</data>rest".to_vec();
        let mut src = Tracked::new(io::Cursor::new(xml), 4);
        let mut spooled = spool_base64(&mut src, &std::env::temp_dir()).unwrap();
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
    fn data_that_is_not_base64_is_malformed() {
        let mut src = Tracked::new(io::Cursor::new(b"aGVs&bG8=</data>".to_vec()), 1 << 20);
        let result = spool_base64(&mut src, &std::env::temp_dir());
        assert!(matches!(result, Err(ReadError::Malformed(m)) if m.contains("base64")));
    }

    #[test]
    fn data_urls_decode_from_base64_and_from_percent_encoding() {
        let png = decode_data_url("data:image/png;base64,aGVs\nbG8=").unwrap();
        assert_eq!(
            (png.mime.as_str(), png.bytes.as_slice()),
            ("image/png", &b"hello"[..])
        );
        assert_eq!(png.file_name(), "image.png");
        let svg = decode_data_url("data:image/svg+xml,%3csvg%3e%3c/svg%3e").unwrap();
        assert_eq!(svg.bytes, b"<svg></svg>");
        assert_eq!(svg.file_name(), "image.svg");
        assert!(decode_data_url("https://example.com/a.png").is_none());
        assert!(decode_data_url("data:image/png;base64,!!!").is_none());
    }
}
