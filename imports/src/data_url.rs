//! Images written into a note's HTML as `data:` URLs (web clips, pasted pictures): their
//! bytes become files of their own, handed to the sink like any attachment.

use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose};

use crate::html_markdown::Placeholders;
use crate::{FileIn, FileStored, ReadError, Sink, file_markdown};

/// Base64 as the exports write it (padding present or not).
pub(crate) const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A `data:` URL's content.
pub(crate) struct DataUrl {
    pub mime: String,
    pub bytes: Vec<u8>,
}

impl DataUrl {
    /// Decodes `data:[type][;base64],data` (RFC 2397); `None` if `url` is not one or its
    /// data does not decode. The URL is part of a note's text, so it is bounded by it.
    pub fn decode(url: &str) -> Option<Self> {
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
        Some(Self { mime, bytes })
    }

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

    /// Hands the bytes to `sink`; the Markdown that shows the stored file (its name
    /// alone if the sink refused it).
    pub fn store(&self, sink: &mut dyn Sink) -> Result<String, ReadError> {
        let name = self.file_name();
        let stored = sink.file(FileIn {
            name: &name,
            content_type: Some(&self.mime),
            bytes: &mut self.bytes.as_slice(),
        })?;
        Ok(match stored {
            FileStored::Stored { sha256 } => file_markdown(&name, &sha256, Some(&self.mime)),
            FileStored::Refused { .. } => name,
        })
    }
}

/// `html` with each `<img src="data:…">` handed to `sink` and replaced by a placeholder
/// for its Markdown (HTML that is not XML, such as Standard Notes' rich text, is
/// scanned as text: an image tag is `<img` up to the next `>`).
pub(crate) fn store_inline_images(
    html: &str,
    placeholders: &mut Placeholders,
    sink: &mut dyn Sink,
) -> Result<String, ReadError> {
    // ASCII lowercasing keeps every byte where it was, so offsets hold in both.
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut from = 0;
    while let Some(found) = lower[from..].find("<img") {
        let start = from + found;
        let Some(length) = lower[start..].find('>') else {
            break;
        };
        let end = start + length + 1;
        out.push_str(&html[from..start]);
        let tag = &html[start..end];
        match src_of(tag).and_then(DataUrl::decode) {
            Some(image) => {
                let markdown = image.store(sink)?;
                out.push_str(&placeholders.markdown(markdown));
            }
            None => out.push_str(tag),
        }
        from = end;
    }
    out.push_str(&html[from..]);
    Ok(out)
}

/// The `src` attribute's value of an `<img …>` tag, if it is quoted.
fn src_of(tag: &str) -> Option<&str> {
    let lower = tag.to_ascii_lowercase();
    let at = lower.find(" src=").or_else(|| lower.find("\nsrc="))? + 5;
    let quote = tag[at..]
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\''))?;
    let value = &tag[at + 1..];
    value.find(quote).map(|end| &value[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html_markdown::to_markdown;
    use crate::test_sink::RecordingSink;

    #[test]
    fn data_urls_decode_from_base64_and_from_percent_encoding() {
        let png = DataUrl::decode("data:image/png;base64,aGVs\nbG8=").unwrap();
        assert_eq!(
            (png.mime.as_str(), png.bytes.as_slice()),
            ("image/png", &b"hello"[..])
        );
        assert_eq!(png.file_name(), "image.png");
        let svg = DataUrl::decode("data:image/svg+xml,%3csvg%3e%3c/svg%3e").unwrap();
        assert_eq!(svg.bytes, b"<svg></svg>");
        assert_eq!(svg.file_name(), "image.svg");
        assert!(DataUrl::decode("https://example.com/a.png").is_none());
        assert!(DataUrl::decode("data:image/png;base64,!!!").is_none());
    }

    #[test]
    fn inline_images_in_html_become_stored_files() {
        let mut sink = RecordingSink::default();
        let mut placeholders = Placeholders::default();
        let html = "<p>Look <IMG alt=\"x\" SRC=\"data:image/png;base64,aGVsbG8=\"> and \
                    <img src='https://example.com/a.png'></p>";
        let rewritten = store_inline_images(html, &mut placeholders, &mut sink).unwrap();
        let markdown = to_markdown(&rewritten, &placeholders);
        let sha = &sink.files[0].sha256;
        assert_eq!(sink.files[0].bytes, b"hello");
        assert_eq!(
            markdown,
            format!("Look ![image.png](/files/{sha}) and ![](https://example.com/a.png)")
        );
    }
}
