//! Adding files to a note: pasted into, dropped on, or picked for an editor's body. Each
//! file is hashed (its name), kept in this browser (`file_store.rs`) before anything is
//! sent, referred to in the text where the cursor was (`save::file_reference`), and its
//! upload started (`file_upload.rs`). The note itself is sent only by a press of Save,
//! and only after its files.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{File, FileList, HtmlTextAreaElement};

use super::{file_hash, file_store, file_upload};
use crate::save::file_reference::{insert_at, markdown_reference};
use crate::state::PageState;
use crate::state::editor::Editor;
use crate::state::uploads::UploadState;

/// A paste into the body: files on the clipboard are attached; text pastes as ever.
pub fn attach_pasted(
    page: PageState,
    editor: Editor,
    textarea: &'static str,
    event: leptos::ev::ClipboardEvent,
) {
    let Some(data) = event.clipboard_data() else {
        return;
    };
    // Text copied from a word processor or a spreadsheet comes with a picture of itself:
    // the text is what was meant, so it pastes as ever.
    if data
        .get_data("text/plain")
        .is_ok_and(|text| !text.trim().is_empty())
    {
        return;
    }
    if let Some(files) = data.files().filter(|f| f.length() > 0) {
        event.prevent_default();
        attach(page, editor, textarea, files);
    }
}

/// A drop on the body: files dropped are attached; dropped text is left to the browser.
pub fn attach_dropped(
    page: PageState,
    editor: Editor,
    textarea: &'static str,
    event: leptos::ev::DragEvent,
) {
    let files = event.data_transfer().and_then(|data| data.files());
    if let Some(files) = files.filter(|f| f.length() > 0) {
        event.prevent_default();
        attach(page, editor, textarea, files);
    }
}

/// Files picked with "Attach file". The picker is emptied after, so picking the same
/// file again is a change too.
pub fn attach_picked(
    page: PageState,
    editor: Editor,
    textarea: &'static str,
    event: leptos::ev::Event,
) {
    let Some(input) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    if let Some(files) = input.files().filter(|f| f.length() > 0) {
        attach(page, editor, textarea, files);
    }
    input.set_value("");
}

fn attach(page: PageState, editor: Editor, textarea: &'static str, files: FileList) {
    let files: Vec<File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    let body = text_area(textarea);
    // Where the references go: the selection as it is now.
    let selection = body.as_ref().map_or((u32::MAX, u32::MAX), |b| {
        (
            b.selection_start().ok().flatten().unwrap_or(u32::MAX),
            b.selection_end().ok().flatten().unwrap_or(u32::MAX),
        )
    });
    leptos::task::spawn_local(async move {
        let mut references = Vec::new();
        let mut added = Vec::new();
        for file in files {
            let name = file.name();
            let content_type = file.type_();
            let sha = match file_hash::sha256(&file).await {
                Ok(sha) => sha,
                Err(why) => {
                    editor
                        .notice
                        .set(Some(format!("“{name}” was not attached: {why}.")));
                    continue;
                }
            };
            let kept = match file_store::keep(&sha, &file, &name, &content_type).await {
                Ok(kept) => kept,
                Err(error) => {
                    editor.notice.set(Some(format!(
                        "“{name}” was not attached: this browser would not keep it until it is \
                         uploaded ({error:?})."
                    )));
                    continue;
                }
            };
            let state = if kept.uploaded {
                UploadState::Uploaded
            } else {
                UploadState::Kept { why: None }
            };
            page.uploads.add(&sha, &kept.name, state);
            references.push(markdown_reference(&name, &content_type, &sha));
            added.push(sha);
        }
        if references.is_empty() {
            return;
        }
        let text = editor.body.get_untracked();
        let (text, cursor) = insert_at(&text, selection.0, selection.1, &references.join("\n"));
        // The text area first, with the cursor after the references; the signal after
        // (writing the same value does not move the cursor).
        if let Some(area) = text_area(textarea) {
            area.set_value(&text);
            let _ = area.set_selection_range(cursor, cursor);
        }
        editor.body.set(text);
        for sha in added {
            file_upload::start(page, sha);
        }
    });
}

fn text_area(id: &str) -> Option<HtmlTextAreaElement> {
    web_sys::window()?
        .document()?
        .get_element_by_id(id)?
        .dyn_into()
        .ok()
}
