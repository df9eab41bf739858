//! What the service worker keeps of a person in the browser's Cache Storage, named once for
//! the worker (`server/src/offline/sw.js`, whose placeholders the server fills in from
//! these) and the page (`browser::service_worker::forget`). A person's kept pages and
//! images are theirs alone: the worker deletes them when a page answer names someone else
//! or nobody, and the page when its person signs out or learns their session ended — a
//! shared computer keeps nothing of the last person for the next one (issue #60).

/// Each person's kept pages, `oncenote-pages-<user id>`: read offline.
pub const PAGES_PREFIX: &str = "oncenote-pages-";
/// Each person's kept images (`/files/…` shown in their notes), `oncenote-files-<user id>`:
/// shown offline.
pub const FILES_PREFIX: &str = "oncenote-files-";
/// The worker's memory of who was signed in at the last page answer.
pub const META_CACHE: &str = "oncenote-meta";
/// The one entry of [`META_CACHE`]: its body is that person's id, or [`NOBODY`].
pub const OWNER_ENTRY: &str = "/owner";
/// The header of [`OWNER_ENTRY`] that says when the answer it followed was asked for (ms
/// since 1970): the worker follows a page answer only if it was asked for after the one
/// it followed last, so one on its way while its person left brings them back as no one.
pub const ASKED_HEADER: &str = "x-asked-at";
/// Nobody signed in, as a page answer's owner header and as [`OWNER_ENTRY`] say it.
pub const NOBODY: &str = "-";
/// The page answer's mark that the worker must never keep it (the account pages, which
/// carry one-time links). A mark of our own, not `Cache-Control: no-store`: every page
/// rendered for a signed-in person is `no-store` for the browser's HTTP cache, and the
/// worker still keeps those in the person's own cache for reading offline.
pub const KEEP_HEADER: &str = "x-oncenote-keep";
/// The one value of [`KEEP_HEADER`].
pub const KEEP_NEVER: &str = "never";

/// The name of `user`'s cache of pages.
pub fn pages_cache(user: &str) -> String {
    format!("{PAGES_PREFIX}{user}")
}

/// The name of `user`'s cache of images.
pub fn files_cache(user: &str) -> String {
    format!("{FILES_PREFIX}{user}")
}
