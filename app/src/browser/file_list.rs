//! The person's files for the account page: `GET /api/files`, naming the page's person
//! (the server refuses when someone else has signed in on this browser since).

use leptos::prelude::*;

use super::namespace;
use crate::api::{FILES_API_PATH, FileList, OWNER_HEADER, Problem};

/// Reads the list into `into` (or why it could not be read).
pub fn load_files(into: RwSignal<Option<Result<FileList, String>>>) {
    leptos::task::spawn_local(async move {
        let mut request = gloo_net::http::Request::get(FILES_API_PATH);
        if let Some(owner) = namespace::user().or_else(namespace::read_user_from_page) {
            request = request.header(OWNER_HEADER, &owner);
        }
        let read = match request.send().await {
            Ok(response) if response.ok() => response
                .json::<FileList>()
                .await
                .map_err(|_| "Your files could not be read.".to_owned()),
            Ok(response) => Err(match response.json::<Problem>().await {
                Ok(problem) => format!("Your files could not be read: {}.", problem.detail),
                Err(_) => format!(
                    "Your files could not be read (the server answered {}).",
                    response.status()
                ),
            }),
            Err(_) => Err("Your files could not be read: the server could not be reached.".into()),
        };
        into.set(Some(read));
    });
}
