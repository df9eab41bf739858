//! Text as the search sees it, the same on both sides: how a word is folded (`fold`), how
//! text is cut into tokens (`tokens`), the bigrams of CJK text (`cjk`) and the search
//! box's grammar (`query`). The server indexes notes and renders queries for its
//! databases with these; the browser searches the notes it keeps offline with them, so
//! a search finds the same notes either way (accents, case and CJK included).

pub mod cjk;
pub mod fold;
pub mod query;
pub mod tokens;
