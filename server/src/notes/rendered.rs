//! A note told about alone — read by its id, or the note a write's answer is about —
//! carries its body rendered (PROTOCOL.md v3, Markdown: `html`); lists and search results
//! do not. Rendering is a pure function of the body, so an answer kept with its key and
//! replayed later still holds the same bytes.
//!
//! A write's answer is made inside its transaction — on SQLite, in the one writer, where
//! every other write waits for it — while rendering a long body takes tens of
//! milliseconds. So the routes render the body a write carries before the transaction
//! ([`warm`]), and the answer finds it in a small cache of bodies rendered lately.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex};

use app::api::Note;

use crate::text::markdown;

/// How many bytes of bodies and their html the cache keeps (the oldest go first), each
/// entry counted with [`ENTRY_OVERHEAD`] besides.
const CACHE_BYTES: usize = 16 * 1024 * 1024;
/// What an entry costs beyond its text (its place in the map and the queue, the
/// allocations' headers): many tiny bodies cannot hold more memory than the budget says.
const ENTRY_OVERHEAD: usize = 160;

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::new(CACHE_BYTES)));

/// The note with `html`: its body rendered from Markdown and sanitized.
pub fn with_html(note: &Note) -> Note {
    Note {
        html: Some(html_of(&note.body).to_string()),
        ..note.clone()
    }
}

/// [`with_html`] on a thread for blocking work: a long body takes tens of milliseconds to
/// render, which must not hold one of the few threads every request runs on.
pub async fn with_html_off_the_runtime(note: Note) -> Note {
    match tokio::task::spawn_blocking(move || with_html(&note)).await {
        Ok(note) => note,
        Err(panicked) => std::panic::resume_unwind(panicked.into_panic()),
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

/// A body and its html.
type Entry = (Box<str>, Arc<str>);

/// Bodies and their html, found by the body's hash, dropped oldest first past a budget.
struct Cache {
    /// Entries by the hash of their body (bodies that hash alike share a list, oldest first).
    by_hash: HashMap<u64, Vec<Entry>>,
    /// The hashes in the order their entries came.
    order: VecDeque<u64>,
    bytes: usize,
    budget: usize,
}

impl Cache {
    fn new(budget: usize) -> Self {
        Self {
            by_hash: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            budget,
        }
    }

    fn key(body: &str) -> u64 {
        let mut hasher = DefaultHasher::new();
        body.hash(&mut hasher);
        hasher.finish()
    }

    fn cost(body: &str, html: &str) -> usize {
        body.len() + html.len() + ENTRY_OVERHEAD
    }

    fn get(&self, body: &str) -> Option<Arc<str>> {
        self.by_hash
            .get(&Self::key(body))?
            .iter()
            .find(|(b, _)| &**b == body)
            .map(|(_, html)| html.clone())
    }

    fn insert(&mut self, body: &str, html: Arc<str>) {
        let size = Self::cost(body, &html);
        if size > self.budget || self.get(body).is_some() {
            return;
        }
        while self.bytes + size > self.budget {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(list) = self.by_hash.get_mut(&oldest) {
                let (old_body, old_html) = list.remove(0);
                self.bytes -= Self::cost(&old_body, &old_html);
                if list.is_empty() {
                    self.by_hash.remove(&oldest);
                }
            }
        }
        let key = Self::key(body);
        self.bytes += size;
        self.order.push_back(key);
        self.by_hash
            .entry(key)
            .or_default()
            .push((body.into(), html));
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
        let budget = 4 * (ENTRY_OVERHEAD + 20);
        let mut cache = Cache::new(budget);
        for n in 0..20 {
            cache.insert(&format!("body {n:02}"), format!("<p>{n:02}</p>").into());
            assert!(cache.bytes <= budget, "{} bytes", cache.bytes);
        }
        assert_eq!(cache.order.len(), 4, "each entry counted with its overhead");
        assert!(cache.get("body 19").is_some());
        assert!(cache.get("body 00").is_none());
        cache.insert(&"x".repeat(budget), "too big".into());
        assert!(cache.get(&"x".repeat(budget)).is_none());
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
