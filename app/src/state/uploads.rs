//! The files added to notes on this page and how their uploads stand, for the progress
//! shown under each editor. What is kept lives in the browser's file store
//! (`browser/file_store.rs`); this is only what the page shows of it.

use leptos::prelude::*;

use crate::api::referred_files;

/// How one file's upload stands.
#[derive(Clone, Debug, PartialEq)]
pub enum UploadState {
    /// Kept in this browser, not sent yet (offline, or waiting for the next burst).
    Kept { why: Option<String> },
    /// On its way: `loaded` of `total` bytes sent.
    Sending { loaded: f64, total: f64 },
    /// The server holds it.
    Uploaded,
    /// Refused for good; the sentence says why.
    Refused(String),
}

/// A file added on this page (or kept from before a reload).
#[derive(Clone, Debug, PartialEq)]
pub struct Upload {
    pub sha256: String,
    pub name: String,
    pub state: UploadState,
}

impl Upload {
    /// What the person reads next to the file.
    pub fn label(&self) -> String {
        let name = &self.name;
        match &self.state {
            UploadState::Kept { why: None } => format!("{name} — kept here, waiting to upload"),
            UploadState::Kept { why: Some(why) } => {
                format!("{name} — kept here, waiting to upload ({why})")
            }
            UploadState::Sending { loaded, total } => {
                format!("Uploading {name} — {} %", percent(*loaded, *total))
            }
            UploadState::Uploaded => format!("{name} — uploaded"),
            UploadState::Refused(why) => format!("{name} — {why}"),
        }
    }

    /// The progress bar's value out of 100, while there is one to show.
    pub fn progress(&self) -> Option<u32> {
        match &self.state {
            UploadState::Sending { loaded, total } => Some(percent(*loaded, *total)),
            _ => None,
        }
    }
}

/// Whole percent of `loaded` out of `total`, 0 while the total is unknown.
pub fn percent(loaded: f64, total: f64) -> u32 {
    if total <= 0.0 || !loaded.is_finite() {
        return 0;
    }
    ((loaded / total) * 100.0).floor().clamp(0.0, 100.0) as u32
}

/// The page's uploads, in the order they were added.
#[derive(Clone, Copy)]
pub struct Uploads {
    pub entries: RwSignal<Vec<Upload>>,
}

impl Default for Uploads {
    fn default() -> Self {
        Self {
            entries: RwSignal::new(Vec::new()),
        }
    }
}

impl Uploads {
    /// Adds a file (once: the same bytes added twice are one file), with its state.
    pub fn add(&self, sha256: &str, name: &str, state: UploadState) {
        self.entries.update(|all| {
            if !all.iter().any(|u| u.sha256 == sha256) {
                all.push(Upload {
                    sha256: sha256.to_owned(),
                    name: name.to_owned(),
                    state,
                });
            }
        });
    }

    /// Sets how the upload of `sha256` stands (nothing when the page does not show it).
    pub fn set(&self, sha256: &str, state: UploadState) {
        self.entries.update(|all| {
            if let Some(upload) = all.iter_mut().find(|u| u.sha256 == sha256) {
                upload.state = state;
            }
        });
    }

    /// The uploads of the files `text` refers to, in the order they appear in it.
    pub fn referred_by(&self, text: &str) -> Vec<Upload> {
        let shas = referred_files(text);
        self.entries.with(|all| {
            shas.iter()
                .filter_map(|sha| all.iter().find(|u| &u.sha256 == sha).cloned())
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::file_href;

    #[test]
    fn the_label_says_how_far_an_upload_is_in_whole_percent() {
        let upload = |state| Upload {
            sha256: "a".repeat(64),
            name: "cat.png".into(),
            state,
        };
        let sending = upload(UploadState::Sending {
            loaded: 409.0,
            total: 1_000.0,
        });
        assert_eq!(sending.label(), "Uploading cat.png — 40 %");
        assert_eq!(sending.progress(), Some(40));
        assert_eq!(upload(UploadState::Uploaded).label(), "cat.png — uploaded");
        assert_eq!(upload(UploadState::Uploaded).progress(), None);
        assert_eq!(
            upload(UploadState::Kept {
                why: Some("offline".into())
            })
            .label(),
            "cat.png — kept here, waiting to upload (offline)"
        );
        assert_eq!(percent(5.0, 0.0), 0);
        assert_eq!(percent(2_000.0, 1_000.0), 100);
    }

    #[test]
    fn the_same_file_added_twice_is_one_entry_shown_where_the_text_refers_to_it() {
        let owner = Owner::new();
        owner.with(|| {
            let uploads = Uploads::default();
            let (a, b) = ("a".repeat(64), "b".repeat(64));
            uploads.add(&a, "one.png", UploadState::Kept { why: None });
            uploads.add(&a, "again.png", UploadState::Uploaded);
            uploads.add(&b, "two.pdf", UploadState::Kept { why: None });
            assert_eq!(uploads.entries.with_untracked(Vec::len), 2);
            uploads.set(&a, UploadState::Uploaded);
            let shown =
                uploads.referred_by(&format!("[x]({}) ![y]({})", file_href(&b), file_href(&a)));
            let names: Vec<_> = shown.iter().map(|u| u.name.as_str()).collect();
            assert_eq!(names, ["two.pdf", "one.png"]);
            assert_eq!(shown[1].state, UploadState::Uploaded);
            assert!(uploads.referred_by("nothing").is_empty());
        });
    }
}
