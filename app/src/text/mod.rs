//! Text as the search sees it, the same on both sides: how a word is folded (`fold`), how
//! text is cut into tokens (`tokens`), the bigrams of CJK text (`cjk`), the search box's
//! grammar (`query`) and the snippet under a result (`snippet`, escaped by `html`). The
//! server indexes notes, renders queries for its databases and writes snippets with
//! these; the browser searches the notes it keeps offline with them, so a search finds
//! and shows the same notes either way (accents, case and CJK included).

pub mod cjk;
pub mod fold;
pub mod html;
pub mod query;
pub mod snippet;
pub mod tokens;
