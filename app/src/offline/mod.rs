//! The offline copy's pure core: every note of the person, kept in the browser and kept
//! current from the change feed (`feed`: what a page of the feed does to the copy), and
//! the pages answered from it when the network is gone (`reading`: the list, the trash,
//! the tags, one note; `search`: the search box, with the server's grammar, fold and CJK
//! bigrams). No browser types: `cargo test` checks it natively. The glue that stores the
//! copy in IndexedDB and serves the pages from it is `browser::offline_copy`.

pub mod feed;
pub mod reading;
pub mod search;
