//! What a file is, for serving it safely: an image is decided by its bytes (the name and
//! the declared type are the uploader's word), and a type a browser could run is never
//! served as such.
//!
//! Served uploads that ran script took over admin accounts in the anchors (Memos,
//! CVE-2023-0109 and CVE-2025-56761): an HTML or SVG upload opened from the app's own
//! origin. Here only PNG, JPEG, GIF and WebP — recognised by their magic numbers, never SVG
//! or HTML — are shown inline, under their sniffed type; everything else is an attachment,
//! and an attachment whose declared type a browser could run goes out as
//! `application/octet-stream`. `nosniff` and `Content-Security-Policy: sandbox` (`serve`)
//! stand behind both.

/// The type uploads declare when they declare none (or one that is not a media type).
pub const OCTET_STREAM: &str = "application/octet-stream";

/// How many leading bytes [`image_type`] needs.
pub const SNIFF_BYTES: usize = 12;

/// The image type `head` (a file's first bytes) starts like, if any: PNG, JPEG, GIF or
/// WebP — the formats every browser shows in an `<img>` and that cannot carry script.
pub fn image_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The type an upload declared (`Content-Type`), kept as the file's type: lower case,
/// without parameters, if it is a `type/subtype` of token characters; else
/// [`OCTET_STREAM`].
pub fn declared_type(header: Option<&str>) -> String {
    let Some(value) = header else {
        return OCTET_STREAM.to_owned();
    };
    let essence = value.split(';').next().unwrap_or("").trim();
    match essence.split_once('/') {
        Some((kind, subtype))
            if is_token(kind) && is_token(subtype) && essence.len() <= 127 =>
        {
            essence.to_ascii_lowercase()
        }
        _ => OCTET_STREAM.to_owned(),
    }
}

/// RFC 9110 `token`: one or more of the visible characters that are not separators.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| {
            b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
        })
}

/// The type an attachment is served with: its declared type, unless a browser could run
/// or render it as a document (HTML, XML of any kind — SVG, XHTML, XSLT —, script, CSS,
/// wasm, multipart, Flash), which goes out as [`OCTET_STREAM`].
pub fn attachment_type(declared: &str) -> &str {
    let (kind, subtype) = declared.split_once('/').unwrap_or((declared, ""));
    let runnable = kind == "multipart"
        || subtype.contains("html")
        || subtype.contains("xml")
        || subtype.contains("xsl")
        || subtype.contains("script")
        || matches!(
            declared,
            "text/css"
                | "application/wasm"
                | "application/x-shockwave-flash"
                | "text/cache-manifest"
                | "text/vtt"
        );
    if runnable || kind.is_empty() || subtype.is_empty() {
        OCTET_STREAM
    } else {
        declared
    }
}

/// A file name for a download: the start of the file's name, with the extension of its
/// type when it has a common one.
pub fn download_name(sha256: &str, served_type: &str) -> String {
    let extension = match served_type {
        "application/pdf" => ".pdf",
        "text/plain" => ".txt",
        "text/csv" => ".csv",
        "text/markdown" => ".md",
        "application/zip" => ".zip",
        "application/json" => ".json",
        "audio/mpeg" => ".mp3",
        "video/mp4" => ".mp4",
        _ => "",
    };
    format!("file-{}{extension}", &sha256[..sha256.len().min(12)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_known_by_their_bytes_and_never_by_their_name() {
        assert_eq!(image_type(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Some("image/png"));
        assert_eq!(image_type(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), Some("image/jpeg"));
        assert_eq!(image_type(b"GIF89a\x01\0\x01\0"), Some("image/gif"));
        assert_eq!(image_type(b"RIFF\x24\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_type(b"RIFF\x24\0\0\0WAVEfmt "), None);
        assert_eq!(image_type(b"<svg xmlns=\"http://www.w3.org/2000/svg\">"), None);
        assert_eq!(image_type(b"<!doctype html><script>"), None);
        assert_eq!(image_type(b"\x89PN"), None);
        assert_eq!(image_type(b""), None);
    }

    #[test]
    fn a_declared_type_is_kept_lower_case_without_parameters_or_else_octet_stream() {
        assert_eq!(declared_type(Some("Image/PNG")), "image/png");
        assert_eq!(declared_type(Some("text/plain; charset=utf-8")), "text/plain");
        assert_eq!(declared_type(Some("application/vnd.ms-excel")), "application/vnd.ms-excel");
        for wrong in ["", "png", "text/", "/plain", "text/pl ain", "text/plain/x", "a/b\"c"] {
            assert_eq!(declared_type(Some(wrong)), OCTET_STREAM, "{wrong:?}");
        }
        assert_eq!(declared_type(None), OCTET_STREAM);
    }

    #[test]
    fn a_type_a_browser_could_run_is_never_served_as_itself() {
        for runnable in [
            "text/html",
            "application/xhtml+xml",
            "image/svg+xml",
            "text/xml",
            "application/xml",
            "application/javascript",
            "text/javascript",
            "application/ecmascript",
            "text/css",
            "multipart/x-mixed-replace",
            "text/xsl",
            "application/wasm",
        ] {
            assert_eq!(attachment_type(runnable), OCTET_STREAM, "{runnable}");
        }
        for kept in ["application/pdf", "text/plain", "image/png", "application/zip"] {
            assert_eq!(attachment_type(kept), kept);
        }
    }

    #[test]
    fn a_download_is_named_after_the_file_with_the_extension_of_its_type() {
        let sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(download_name(sha, "application/pdf"), "file-9f86d081884c.pdf");
        assert_eq!(download_name(sha, OCTET_STREAM), "file-9f86d081884c");
    }
}
