//! A note told about alone — read by its id, or the note a write's answer is about —
//! carries its body rendered (PROTOCOL.md v3, Markdown: `html`); lists and search results
//! do not. Rendering is a pure function of the body, so an answer kept with its key and
//! replayed later still holds the same bytes.
//!
//! A write's answer is made inside its transaction — on SQLite, in the one writer, where
//! every other write waits for it — while rendering a long body takes tens of
//! milliseconds. So the routes render the body a write carries before the transaction
//! ([`warm`]), and the answer finds it in a small cache of bodies rendered lately.

use std::collections::VecDeque;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use app::api::Note;

use crate::text::markdown;

/// How many bytes of bodies and their html the cache keeps (the oldest go first).
const CACHE_BYTES: usize = 16 * 1024 * 1024;

static CACHE: Mutex<Cache> = Mutex::new(Cache::new(CACHE_BYTES));

/// The note with `html`: its body rendered from Markdown and sanitized.
pub fn with_html(note: &Note) -> Note {
    Note {
        html: Some(html_of(&note.body).to_string()),
        ..note.clone()
    }
}

/// Renders `body` now (before a write's transaction), for its answer to find.
pub fn warm(body: &str) {
    html_of(body);
}

fn html_of(body: &str) -> Arc<str> {
    if let Some(html) = lock().get(body) {
        return html;
    }
    let html: Arc<str> = markdown::render(body).into();
    lock().insert(body, html.clone());
    html
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Bodies and their html, newest last, within a budget of bytes.
struct Cache {
    entries: VecDeque<(u64, String, Arc<str>)>,
    bytes: usize,
    budget: usize,
}

impl Cache {
    const fn new(budget: usize) -> Self {
        Self {
            entries: VecDeque::new(),
            bytes: 0,
            budget,
        }
    }

    fn key(body: &str) -> u64 {
        let mut hasher = DefaultHasher::new();
        body.hash(&mut hasher);
        hasher.finish()
    }

    fn get(&self, body: &str) -> Option<Arc<str>> {
        let key = Self::key(body);
        self.entries
            .iter()
            .rev()
            .find(|(k, b, _)| *k == key && b == body)
            .map(|(_, _, html)| html.clone())
    }

    fn insert(&mut self, body: &str, html: Arc<str>) {
        let size = body.len() + html.len();
        if size > self.budget || self.get(body).is_some() {
            return;
        }
        while self.bytes + size > self.budget {
            let Some((_, old_body, old_html)) = self.entries.pop_front() else {
                break;
            };
            self.bytes -= old_body.len() + old_html.len();
        }
        self.bytes += size;
        self.entries
            .push_back((Self::key(body), body.to_owned(), html));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_rendered_before_its_write_is_found_by_its_answer_and_nothing_else_is() {
        let mut cache = Cache::new(1_000);
        cache.insert("# a", "<h1>a</h1>".into());
        assert_eq!(cache.get("# a").as_deref(), Some("<h1>a</h1>"));
        assert_eq!(cache.get("# b"), None);
    }

    #[test]
    fn the_cache_keeps_to_its_budget_dropping_the_oldest_first() {
        let mut cache = Cache::new(100);
        for n in 0..20 {
            cache.insert(&format!("body {n:02}"), format!("<p>{n:02}</p>").into());
            assert!(cache.bytes <= 100, "{} bytes", cache.bytes);
        }
        assert!(cache.get("body 19").is_some());
        assert!(cache.get("body 00").is_none());
        cache.insert(&"x".repeat(200), "too big".into());
        assert!(cache.get(&"x".repeat(200)).is_none());
    }

    #[test]
    fn a_note_told_about_alone_carries_the_same_html_warm_or_cold() {
        let note = Note {
            id: "n".into(),
            title: "t".into(),
            body: "- [ ] a #tag".into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version: 1,
            trashed_at: None,
            conflict_of: None,
            tags: vec!["tag".into()],
            pinned: false,
            html: None,
        };
        let cold = markdown::render(&note.body);
        warm(&note.body);
        assert_eq!(with_html(&note).html.as_deref(), Some(cold.as_str()));
    }
}
