//! Uploading the kept files (`file_store.rs`): `PUT /api/files/{sha256}` over
//! XMLHttpRequest, whose upload progress drives the bar under the editor. One upload per
//! file at a time in this tab (a second drop of the same bytes, the drain and a resumed
//! upload share it); another tab sending the same file is harmless — the name is the
//! content, so the server stores it once.
//!
//! Started at once when a file is added, again at page load and when the network comes
//! back (a reload mid-upload starts it over), and by the drain before it sends a note
//! that refers to a file not yet uploaded (`upload_files_of`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::{LocalBoxFuture, Shared};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Blob, ProgressEvent, XmlHttpRequest};

use super::fetch_transport::{TimerClock, now};
use super::{file_store, namespace};
use crate::api::{FILES_API_PATH, OWNER_HEADER, Problem, file_href};
use crate::save::file_upload::{
    FileTransport, UploadEnd, files_to_upload_first, held_back_by, read_upload_answer,
    refusal_sentence, upload_burst,
};
use crate::save::outcome::AttemptOutcome;
use crate::save::retry_policy::RetryPolicy;
use crate::save::sender::{BurstEvent, BurstHooks};
use crate::save::waiting::WaitReason;
use crate::state::PageState;
use crate::state::uploads::UploadState;

/// The longest one attempt may take: long enough for the largest file on a slow phone
/// (25 MiB at 50 kB/s is under 9 minutes), short enough that a hung connection does not
/// hold the note back for ever.
const ATTEMPT_TIMEOUT_MS: u32 = 15 * 60 * 1000;

type Going = Shared<LocalBoxFuture<'static, UploadEnd>>;

thread_local! {
    static GOING: RefCell<HashMap<String, Going>> = RefCell::new(HashMap::new());
}

/// Uploads the kept file `sha256` unless it is uploaded already (or not kept here:
/// then there is nothing to upload, and nothing waits for it).
pub async fn ensure_uploaded(page: PageState, sha256: &str) -> UploadEnd {
    let going = GOING.with(|going| going.borrow().get(sha256).cloned());
    let going = going.unwrap_or_else(|| {
        let sha = sha256.to_owned();
        let upload = async move {
            let end = upload(page, &sha).await;
            GOING.with(|going| going.borrow_mut().remove(&sha));
            end
        }
        .boxed_local()
        .shared();
        GOING.with(|going| going.borrow_mut().insert(sha256.to_owned(), upload.clone()));
        upload
    });
    going.await
}

/// Starts uploading `sha256` now, without waiting for it.
pub fn start(page: PageState, sha256: String) {
    leptos::task::spawn_local(async move {
        ensure_uploaded(page, &sha256).await;
    });
}

/// Starts every kept file still to be uploaded, oldest first (at page load and when the
/// network is back), and shows them.
pub fn resume(page: PageState) {
    leptos::task::spawn_local(async move {
        let Ok(waiting) = file_store::waiting().await else {
            return;
        };
        for file in &waiting {
            page.uploads
                .add(&file.sha256, &file.name, UploadState::Kept { why: None });
        }
        for file in waiting {
            if matches!(
                ensure_uploaded(page, &file.sha256).await,
                UploadEnd::Offline
            ) {
                return;
            }
        }
    });
}

/// Uploads the kept files `text` refers to, in order, before the note is sent: the
/// first that is not uploaded by the end of its burst holds the note back (a refused
/// one with a problem naming it, for the note to fail with). A file uploaded before whose
/// bytes are still here (no saved note refers to it yet) is checked first: if the server
/// swept it meanwhile (no note referred to it for the grace period), it is uploaded again.
pub async fn upload_files_of(page: PageState, text: &str) -> UploadEnd {
    let Ok(kept) = file_store::for_a_note().await else {
        // No file store (no IndexedDB here): no file was kept, none holds a note back.
        return UploadEnd::Uploaded;
    };
    let names: HashMap<String, String> = kept
        .iter()
        .map(|f| (f.sha256.clone(), f.name.clone()))
        .collect();
    let uploaded: Vec<String> = kept
        .into_iter()
        .filter(|f| f.uploaded)
        .map(|f| f.sha256)
        .collect();
    for sha in files_to_upload_first(text, |sha| names.contains_key(sha)) {
        if uploaded.contains(&sha)
            && !still_on_the_server(&sha).await
            && let Err(error) = file_store::unsettle(&sha).await
        {
            leptos::logging::warn!("a swept file could not be marked: {error:?}");
        }
        match ensure_uploaded(page, &sha).await {
            UploadEnd::Uploaded => {}
            UploadEnd::Refused { problem } => {
                let name = names.get(&sha).map_or("", String::as_str);
                return UploadEnd::Refused {
                    problem: held_back_by(name, &problem),
                };
            }
            other => return other,
        }
    }
    UploadEnd::Uploaded
}

/// Whether the server still holds `sha256` for this page's person (`HEAD /files/…`): only
/// a 404 says it does not; anything else (an error, no network) is taken as yes, so a
/// check that cannot be made never holds a note back.
async fn still_on_the_server(sha256: &str) -> bool {
    let mut request = gloo_net::http::RequestBuilder::new(&file_href(sha256))
        .method(gloo_net::http::Method::HEAD);
    if let Some(owner) = namespace::user() {
        request = request.header(OWNER_HEADER, &owner);
    }
    match request.send().await {
        Ok(response) => response.status() != 404,
        Err(_) => true,
    }
}

/// A note referring to these files was saved: the server keeps them while the note
/// exists, so the bytes kept here can go.
pub fn release_files_of(text: &str) {
    let names = crate::api::referred_files(text);
    if names.is_empty() {
        return;
    }
    leptos::task::spawn_local(async move {
        if let Err(error) = file_store::release(&names).await {
            leptos::logging::warn!("the saved note's files could not be released: {error:?}");
        }
    });
}

/// One burst for one kept file; its outcome is written to the store, then shown.
async fn upload(page: PageState, sha256: &str) -> UploadEnd {
    let file = match file_store::get(sha256).await {
        Ok(Some(file)) => file,
        _ => return UploadEnd::Uploaded,
    };
    if let Some(refused) = &file.refused {
        let problem = serde_json::from_str::<Problem>(refused).unwrap_or_else(|_| Problem {
            kind: "about:blank".into(),
            title: "Refused".into(),
            status: 0,
            detail: refused.clone(),
        });
        return UploadEnd::Refused { problem };
    }
    let Some(blob) = file.blob.clone().filter(|_| !file.uploaded) else {
        return UploadEnd::Uploaded;
    };
    page.uploads
        .add(sha256, &file.name, UploadState::Kept { why: None });
    let uploads = page.uploads;
    let sha = sha256.to_owned();
    let transport = XhrPut {
        url: format!("{FILES_API_PATH}/{sha256}"),
        blob,
        content_type: file.content_type.clone(),
        owner: namespace::user(),
        on_progress: Rc::new(move |loaded, total| {
            uploads.set(&sha, UploadState::Sending { loaded, total })
        }),
    };
    let mut hooks = FileHooks {
        page,
        sha256: sha256.to_owned(),
        size: file.size,
    };
    let end = upload_burst(&transport, &TimerClock, &RetryPolicy::default(), &mut hooks).await;
    let shown = match &end {
        UploadEnd::Uploaded => {
            if let Err(error) = file_store::settle_file(sha256, None).await {
                leptos::logging::warn!("the uploaded file could not be marked: {error:?}");
            }
            UploadState::Uploaded
        }
        UploadEnd::Refused { problem } => {
            let json = serde_json::to_string(problem).unwrap_or_default();
            let _ = file_store::settle_file(sha256, Some(json)).await;
            UploadState::Refused(refusal_sentence(problem))
        }
        UploadEnd::Offline => UploadState::Kept {
            why: Some(WaitReason::Offline.sentence()),
        },
        UploadEnd::Waiting { last } => UploadState::Kept {
            why: Some(WaitReason::after(last).sentence()),
        },
    };
    page.uploads.set(sha256, shown);
    end
}

struct FileHooks {
    page: PageState,
    sha256: String,
    size: f64,
}

impl BurstHooks for FileHooks {
    fn is_online(&self) -> bool {
        web_sys::window()
            .map(|w| w.navigator().on_line())
            .unwrap_or(true)
    }

    fn jitter(&mut self) -> f64 {
        0.5 + 0.5 * js_sys::Math::random()
    }

    fn on_event(&mut self, event: BurstEvent) {
        let state = match event {
            BurstEvent::AttemptStarted { .. } => UploadState::Sending {
                loaded: 0.0,
                total: self.size,
            },
            BurstEvent::RetryScheduled { outcome, .. } => UploadState::Kept {
                why: Some(WaitReason::after(&outcome).sentence()),
            },
        };
        self.page.uploads.set(&self.sha256, state);
    }
}

/// One `PUT` of one file's bytes.
struct XhrPut {
    url: String,
    blob: Blob,
    content_type: String,
    /// The person whose file this is: the server refuses it when someone else has signed
    /// in on this browser since.
    owner: Option<String>,
    on_progress: Rc<dyn Fn(f64, f64)>,
}

impl FileTransport for XhrPut {
    async fn put(&self) -> AttemptOutcome {
        match self.send().await {
            Ok(outcome) => outcome,
            Err(reason) => AttemptOutcome::Network { reason },
        }
    }
}

impl XhrPut {
    async fn send(&self) -> Result<AttemptOutcome, String> {
        let failed = |e: wasm_bindgen::JsValue| format!("{e:?}");
        let xhr = XmlHttpRequest::new().map_err(failed)?;
        xhr.open_with_async("PUT", &self.url, true)
            .map_err(failed)?;
        let content_type = if self.content_type.is_empty() {
            "application/octet-stream"
        } else {
            &self.content_type
        };
        xhr.set_request_header("Content-Type", content_type)
            .map_err(failed)?;
        if let Some(owner) = &self.owner {
            xhr.set_request_header(OWNER_HEADER, owner)
                .map_err(failed)?;
        }
        xhr.set_timeout(ATTEMPT_TIMEOUT_MS);
        let (ended, end) = oneshot::channel::<()>();
        let ended = Rc::new(Cell::new(Some(ended)));
        let on_end = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(ended) = ended.take() {
                let _ = ended.send(());
            }
        });
        xhr.set_onloadend(Some(on_end.as_ref().unchecked_ref()));
        let progress = self.on_progress.clone();
        let on_progress = Closure::<dyn FnMut(ProgressEvent)>::new(move |e: ProgressEvent| {
            progress(e.loaded(), e.total())
        });
        let upload = xhr.upload().map_err(failed)?;
        upload.set_onprogress(Some(on_progress.as_ref().unchecked_ref()));
        xhr.send_with_opt_blob(Some(&self.blob)).map_err(failed)?;
        let _ = end.await;
        xhr.set_onloadend(None);
        upload.set_onprogress(None);
        let status = xhr.status().unwrap_or(0);
        if status == 0 {
            return Err("the upload got no answer".into());
        }
        let retry_after = xhr.get_response_header("retry-after").ok().flatten();
        let body = xhr.response_text().ok().flatten().unwrap_or_default();
        Ok(read_upload_answer(
            status,
            retry_after.as_deref(),
            body.as_bytes(),
            now(),
        ))
    }
}
