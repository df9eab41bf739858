//! Importing an export (oncenote's or another app's): sent straight to the server's import
//! over XMLHttpRequest — not a save intent: nothing is kept to retry, since the same file
//! sent again makes nothing twice. Its upload progress, then the server's lines of
//! progress (`Accept: application/x-ndjson`), then the report drive the account page's
//! import stage.

use std::cell::Cell;
use std::rc::Rc;

use futures::channel::oneshot;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{ProgressEvent, XmlHttpRequest};

use crate::api::{IMPORT_PATH, IMPORT_PROGRESS_TYPE, OWNER_HEADER, Problem};
use crate::state::import::{ImportStage, stage_of_lines};

/// Sends the file the person chose to `/api/import`, telling `stage` how it goes.
pub fn import_file(event: leptos::ev::Event, stage: RwSignal<ImportStage>) {
    let input = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
    let file = input
        .as_ref()
        .and_then(|input| input.files())
        .and_then(|files| files.get(0));
    let Some(file) = file else {
        return;
    };
    let total = file.size();
    stage.set(ImportStage::Sending { loaded: 0.0, total });
    leptos::task::spawn_local(async move {
        let end = match send(&file, stage).await {
            Ok(end) => end,
            Err(_) => ImportStage::Failed(
                "Not imported: the server could not be reached. Choose the file again to retry."
                    .into(),
            ),
        };
        stage.set(end);
        // The same file can be chosen again (to finish an import cut short).
        if let Some(input) = input {
            input.set_value("");
        }
    });
}

/// One import request; the stage it ended in.
async fn send(file: &web_sys::File, stage: RwSignal<ImportStage>) -> Result<ImportStage, ()> {
    let xhr = XmlHttpRequest::new().map_err(|_| ())?;
    xhr.open_with_async("POST", IMPORT_PATH, true)
        .map_err(|_| ())?;
    xhr.set_request_header("Accept", IMPORT_PROGRESS_TYPE)
        .map_err(|_| ())?;
    xhr.set_request_header("Content-Type", "application/octet-stream")
        .map_err(|_| ())?;
    // Into this page's person's account, never whoever else signed in since.
    if let Some(owner) = super::namespace::user() {
        xhr.set_request_header(OWNER_HEADER, &owner)
            .map_err(|_| ())?;
    }
    let (ended, end) = oneshot::channel::<()>();
    let ended = Rc::new(Cell::new(Some(ended)));
    let on_end = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        if let Some(ended) = ended.take() {
            let _ = ended.send(());
        }
    });
    xhr.set_onloadend(Some(on_end.as_ref().unchecked_ref()));
    let on_sent = Closure::<dyn FnMut(ProgressEvent)>::new(move |e: ProgressEvent| {
        stage.set(ImportStage::Sending {
            loaded: e.loaded(),
            total: e.total(),
        });
    });
    let upload = xhr.upload().map_err(|_| ())?;
    upload.set_onprogress(Some(on_sent.as_ref().unchecked_ref()));
    let reading = xhr.clone();
    let on_read = Closure::<dyn FnMut(ProgressEvent)>::new(move |_: ProgressEvent| {
        let text = reading.response_text().ok().flatten().unwrap_or_default();
        if let Some(now) = stage_of_lines(&text) {
            stage.set(now);
        }
    });
    xhr.set_onprogress(Some(on_read.as_ref().unchecked_ref()));
    xhr.send_with_opt_blob(Some(file)).map_err(|_| ())?;
    let _ = end.await;
    xhr.set_onloadend(None);
    xhr.set_onprogress(None);
    upload.set_onprogress(None);
    let status = xhr.status().unwrap_or(0);
    let text = xhr.response_text().ok().flatten().unwrap_or_default();
    if status == 0 {
        return Err(());
    }
    if status != 200 {
        let why = serde_json::from_str::<Problem>(&text)
            .map(|problem| problem.detail)
            .unwrap_or_else(|_| format!("the server answered {status}"));
        return Ok(ImportStage::Failed(format!("Not imported: {why}")));
    }
    Ok(match stage_of_lines(&text) {
        Some(done @ (ImportStage::Done(_) | ImportStage::Failed(_))) => done,
        _ => ImportStage::Failed(
            "The import was cut short. Choose the same file again: it goes on where it stopped."
                .into(),
        ),
    })
}
