//! Text analysis shared by the search index and the search query: how a word is folded
//! (`fold`), how text is cut into tokens (`tokens`), the bigrams of CJK text (`cjk`) —
//! these three live in the app crate (`app::text`), which the browser's offline search
//! uses too, so both sides fold and cut text alike — a
//! note's words as PostgreSQL's index holds them (`document`), the search box's grammar
//! with its FTS5 and `tsquery` renderings (`query`), the `#tags` of a note (`tags`) and
//! its body rendered from Markdown and sanitized (`markdown`).
//!
//! Both the storage (which writes the index and runs the query) and the search feature
//! (which parses the box and highlights the snippets) use it, so it imports neither: it
//! is plain functions of text, the same for every database.

pub mod addresses;
pub mod document;
pub mod markdown;
pub mod query;
pub mod tags;

pub use app::text::{cjk, fold, tokens};
