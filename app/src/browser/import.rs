//! Importing an export file: sent straight to the server's import (it is not a save
//! intent — nothing is kept to retry), and the result told in words.

use leptos::prelude::*;

/// Reads the file the person chose and posts it to `/api/import`.
pub fn import_file(event: leptos::ev::Event, message: RwSignal<Option<String>>) {
    use wasm_bindgen::JsCast;
    let file = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .and_then(|input| input.files())
        .and_then(|files| files.get(0));
    let Some(file) = file else {
        return;
    };
    message.set(Some("Importing…".into()));
    leptos::task::spawn_local(async move {
        let mut request =
            gloo_net::http::Request::post("/api/import").header("Content-Type", "application/zip");
        // Into this page's person's account, never whoever else signed in since.
        if let Some(owner) = super::namespace::user() {
            request = request.header(crate::api::OWNER_HEADER, &owner);
        }
        let sent = request.body(wasm_bindgen::JsValue::from(file));
        let text = match sent {
            Ok(request) => match request.send().await {
                Ok(response) if response.ok() => {
                    match response.json::<crate::api::ImportReport>().await {
                        Ok(report) => format!(
                            "Imported {} note(s); {} were here already{}.",
                            report.imported,
                            report.already_there,
                            match report.failed.len() {
                                0 => String::new(),
                                n => format!("; {n} could not be imported"),
                            }
                        ),
                        Err(_) => "Imported.".into(),
                    }
                }
                Ok(response) => match response.json::<crate::api::Problem>().await {
                    Ok(problem) => format!("Not imported: {}.", problem.detail),
                    Err(_) => format!("Not imported (the server answered {}).", response.status()),
                },
                Err(_) => "Not imported: the server could not be reached.".into(),
            },
            Err(_) => "Not imported: the file could not be read.".into(),
        };
        message.set(Some(text));
    });
}
