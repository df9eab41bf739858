//! What the server hands the page while rendering it. The app crate cannot depend on the
//! server crate (it is the other way round), so the server provides a loader.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::api::Note;

type Loading = Pin<Box<dyn Future<Output = Result<Vec<Note>, String>> + Send>>;

/// Reads the newest notes, for the server-rendered list.
#[derive(Clone)]
pub struct RecentNotes(Arc<dyn Fn() -> Loading + Send + Sync>);

impl RecentNotes {
    pub fn new<F, Fut>(load: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Note>, String>> + Send + 'static,
    {
        Self(Arc::new(move || Box::pin(load())))
    }

    pub fn load(&self) -> impl Future<Output = Result<Vec<Note>, String>> + Send + use<> {
        (self.0)()
    }
}

/// A fresh idempotency key for the page's form, minted by the server for each render, so
/// a save made without JavaScript is stored once however often that form is sent.
#[derive(Clone, Debug)]
pub struct FormKey(pub String);
