//! How a note tells of a file it shows: the sink's answer made into Markdown, or words
//! where the file could not be had (so nothing a note showed vanishes without a trace).

use crate::{FileStored, file_markdown};

/// The Markdown for a file the sink answered for: a link to it when it was kept, else its
/// name. Never why it was not kept: the reason (a quota, say) changes between imports,
/// and a note's body must not (it goes to the report instead).
pub(crate) fn shown(name: &str, stored: &FileStored, content_type: Option<&str>) -> String {
    match stored {
        FileStored::Stored { sha256 } => file_markdown(name, sha256, content_type),
        FileStored::Refused { .. } => not_kept(name),
    }
}

/// What a note says where it showed a file the sink did not keep.
pub(crate) fn not_kept(name: &str) -> String {
    format!("(attachment {name} was not kept)")
}

/// What a note says where it showed a file the export does not hold.
pub(crate) fn not_in_export(name: &str) -> String {
    format!("(attachment {name} was not in the export)")
}

/// A file's type guessed from its name, for exports that do not declare one (a Markdown
/// folder): the usual image types (which a note shows inline), PDF, SVG and plain text.
pub(crate) fn content_type_from_name(name: &str) -> Option<&'static str> {
    let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_image_shows_inline_and_a_refused_file_only_that_it_was_not_kept() {
        let kept = FileStored::Stored {
            sha256: "ab".repeat(32),
        };
        assert_eq!(
            shown("a.png", &kept, content_type_from_name("a.png")),
            format!("![a.png](/files/{})", "ab".repeat(32))
        );
        let refused = |reason: &str| FileStored::Refused {
            reason: reason.into(),
        };
        assert_eq!(
            shown("a.png", &refused("quota: 3 of 5 MB used"), None),
            "(attachment a.png was not kept)"
        );
        assert_eq!(
            shown("a.png", &refused("quota: 4 of 5 MB used"), None),
            shown("a.png", &refused("too large"), None),
        );
        assert_eq!(
            shown("a `b` [c]\\.pdf", &kept, None),
            format!("[a  b   c  .pdf](/files/{})", "ab".repeat(32)),
            "no code span, bracket or escape of the name's own"
        );
        assert_eq!(content_type_from_name("X.JPEG"), Some("image/jpeg"));
        assert_eq!(content_type_from_name("noextension"), None);
    }
}
