//! The person's files for the account page: `GET /api/files`, a page at a time, naming the
//! page's person (the server refuses when someone else has signed in on this browser
//! since).

use leptos::prelude::*;

use super::namespace;
use crate::api::{FILES_API_PATH, FileList, OWNER_HEADER, Problem};
use crate::links::urlencode;

/// Reads the first page of the list into `into` (or why it could not be read).
pub fn load_files(into: RwSignal<Option<Result<FileList, String>>>) {
    leptos::task::spawn_local(async move {
        let read = read_page(None).await;
        into.set(Some(read));
    });
}

/// Reads the page after `cursor` and adds it to the list in `into`; why it could not be
/// read goes to `failed` (the list stays as it was, and More can be pressed again).
pub fn load_more_files(
    into: RwSignal<Option<Result<FileList, String>>>,
    cursor: String,
    failed: RwSignal<Option<String>>,
) {
    leptos::task::spawn_local(async move {
        match read_page(Some(&cursor)).await {
            Ok(page) => {
                failed.set(None);
                into.update(|list| {
                    if let Some(Ok(list)) = list {
                        list.add_page(&cursor, page);
                    }
                });
            }
            Err(why) => failed.set(Some(why)),
        }
    });
}

async fn read_page(cursor: Option<&str>) -> Result<FileList, String> {
    let url = match cursor {
        Some(cursor) => format!("{FILES_API_PATH}?cursor={}", urlencode(cursor)),
        None => FILES_API_PATH.to_owned(),
    };
    let mut request = gloo_net::http::Request::get(&url);
    if let Some(owner) = namespace::user().or_else(namespace::read_user_from_page) {
        request = request.header(OWNER_HEADER, &owner);
    }
    match request.send().await {
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
    }
}
