//! The rank of a search's match on SQLite: FTS5's bm25, the same score (to the last bit
//! where SQLite's C is built without fused multiply-adds, as on x86-64 here; within a
//! rounding elsewhere), without the work bm25 spends on a phrase that weighs nothing.
//!
//! A search's `MATCH` holds the person's scope token beside the words
//! (`search::search_match`), in a column weighed 0. bm25 computes every phrase's idf at
//! the first row of a search by walking each row that holds the phrase: for the scope
//! token, every live note of the person, for a term that adds 0 to every score. At 100,000
//! notes, skipping that walk saved 0.5–2.3 ms of the server's CPU per search in six A/B
//! runs, the median search 11–17 % faster (README).
//!
//! [`RANK`] takes bm25's arguments (the table, then a weight per column) and returns
//! bm25's score. bm25 adds, for each phrase, `idf × f × (k1 + 1) / (f + k1 × (1 − b + b ×
//! D / avgdl))`, `f` the phrase's weighted count in the row: where `f` is 0 that term is
//! exactly 0.0, whatever the idf. So here a phrase's idf is computed the first time a row
//! holds it in a weighed column, and the scope token's never; the other terms are added in
//! bm25's order by its formula, its constants and the same `log`, so the scores (and the
//! order of results) are bm25's. `tests` compare the two on every query they run. One
//! difference: an index whose counts disagree (more rows holding a phrase than rows in
//! all) gives bm25 a NaN idf, and so no score for any row; here only for rows holding
//! that phrase. Our index is kept by triggers in the same transaction as the notes.
//!
//! It is registered on each read connection as it opens (`open.rs`), through FTS5's own C
//! interface (`fts5_api`), which rusqlite does not wrap.

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::ffi;

/// The function's name in SQL: `oncenote_rank(notes_fts, 10.0, 1.0, 1.0, 0.0)` as
/// `bm25(…)` is called.
pub const RANK: &str = "oncenote_rank";

/// bm25's constants, as FTS5 has them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Registers [`RANK`] on the connection `db`.
///
/// # Safety
/// `db` is an open connection, used by no other thread while this runs.
pub unsafe fn register(db: *mut ffi::sqlite3) -> Result<(), String> {
    // SAFETY: as the caller promised.
    let api = unsafe { fts5_api(db) }?;
    // SAFETY: `fts5_api` gave a pointer to FTS5's own, live as long as the connection.
    let create = unsafe { (*api).xCreateFunction }.ok_or("FTS5 offers no xCreateFunction")?;
    // SAFETY: the name is a NUL-terminated constant; the function takes no user data and
    // so needs no destructor.
    let code = unsafe {
        create(
            api,
            c"oncenote_rank".as_ptr(),
            ptr::null_mut(),
            Some(rank),
            None,
        )
    };
    if code == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(format!("FTS5 refused the rank function (code {code})"))
    }
}

/// The connection's FTS5 interface, as SQLite's documentation asks for it: `SELECT
/// fts5(?1)` with a pointer bound where it writes its own.
///
/// # Safety
/// As [`register`].
unsafe fn fts5_api(db: *mut ffi::sqlite3) -> Result<*mut ffi::fts5_api, String> {
    let mut statement = ptr::null_mut();
    // SAFETY: `db` is open; the SQL is NUL-terminated.
    let code = unsafe {
        ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut statement,
            ptr::null_mut(),
        )
    };
    if code != ffi::SQLITE_OK {
        return Err(format!("this SQLite has no FTS5 (code {code})"));
    }
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    // SAFETY: `statement` was prepared above and is finalized below, before `api` goes;
    // the pointer's type name is the one FTS5 looks for.
    let code = unsafe {
        ffi::sqlite3_bind_pointer(
            statement,
            1,
            (&raw mut api).cast(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(statement);
        ffi::sqlite3_finalize(statement)
    };
    if code != ffi::SQLITE_OK || api.is_null() {
        return Err(format!("FTS5 gave no interface (code {code})"));
    }
    // SAFETY: not null: FTS5's interface, which lives as long as the connection.
    if unsafe { (*api).iVersion } < 2 {
        return Err("this SQLite's FTS5 is too old".into());
    }
    Ok(api)
}

/// What a search computes once, kept by FTS5 beside the query until it ends.
struct Search {
    rows: i64,
    /// The average row length in tokens (every column).
    average_length: f64,
    /// Each phrase's idf, once a row held the phrase in a weighed column.
    idf: Vec<Option<f64>>,
    /// The current row's weighted count of each phrase.
    counts: Vec<f64>,
}

/// The SQL function: bm25's score of the current row, or SQLite's error code.
unsafe extern "C" fn rank(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    context: *mut ffi::sqlite3_context,
    weights: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 calls this with its interface, the query's context and the call's
    // arguments after the table.
    let score = unsafe { score(&*api, fts, weights, values) };
    // SAFETY: `context` is this call's.
    unsafe {
        match score {
            Ok(score) => ffi::sqlite3_result_double(context, score),
            Err(code) => ffi::sqlite3_result_error_code(context, code),
        }
    }
}

/// A function of FTS5's interface, or an error if this SQLite lacks it.
fn function<F>(f: Option<F>) -> Result<F, c_int> {
    f.ok_or(ffi::SQLITE_ERROR)
}

fn ok(code: c_int) -> Result<(), c_int> {
    if code == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(code)
    }
}

/// bm25's score of the current row (see the module's note).
///
/// # Safety
/// As FTS5 calls [`rank`]: `values` holds `weights` values.
unsafe fn score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    weights: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<f64, c_int> {
    // SAFETY: FTS5 keeps the search until the query ends; nothing else touches it while
    // this call runs.
    let search = unsafe { search_of(api, fts) }?;
    search.counts.fill(0.0);
    let mut instances = 0;
    // SAFETY: the context is the current row's; the out-pointers are ours.
    unsafe { ok(function(api.xInstCount)?(fts, &mut instances)) }?;
    for instance in 0..instances {
        let (mut phrase, mut column, mut offset) = (0, 0, 0);
        // SAFETY: as above; `instance` is below the count FTS5 gave.
        unsafe {
            ok(function(api.xInst)?(
                fts,
                instance,
                &mut phrase,
                &mut column,
                &mut offset,
            ))
        }?;
        let weight = match usize::try_from(column) {
            // SAFETY: `values` holds `weights` values, and `column` is below that.
            Ok(at) if column < weights => unsafe { ffi::sqlite3_value_double(*values.add(at)) },
            _ => 1.0,
        };
        if let Some(count) = usize::try_from(phrase)
            .ok()
            .and_then(|at| search.counts.get_mut(at))
        {
            *count += weight;
        }
    }
    let mut tokens = 0;
    // SAFETY: as above.
    unsafe { ok(function(api.xColumnSize)?(fts, -1, &mut tokens)) }?;
    let length = f64::from(tokens);
    let mut score = 0.0;
    for phrase in 0..search.counts.len() {
        let count = search.counts[phrase];
        if count == 0.0 {
            // bm25 adds idf × 0 / (…) here: exactly 0.0.
            continue;
        }
        let idf = match search.idf[phrase] {
            Some(idf) => idf,
            None => {
                // SAFETY: as above; `phrase` is below the phrase count.
                let idf = unsafe { idf_of(api, fts, phrase, search.rows) }?;
                search.idf[phrase] = Some(idf);
                idf
            }
        };
        score += idf
            * ((count * (K1 + 1.0))
                / (count + K1 * (1.0 - B + B * length / search.average_length)));
    }
    // bm25 returns -1.0 × score: the same bits as the negation.
    Ok(-score)
}

/// The search's kept figures, made at its first row.
///
/// # Safety
/// As [`score`]; the reference is not kept past the call.
unsafe fn search_of<'a>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
) -> Result<&'a mut Search, c_int> {
    // SAFETY: slot 0 of this query's data is only ever set below, to a `Search`.
    let kept = unsafe { function(api.xGetAuxdata)?(fts, 0) }.cast::<Search>();
    if !kept.is_null() {
        // SAFETY: set below from a `Box<Search>`, freed only when the query ends.
        return Ok(unsafe { &mut *kept });
    }
    // SAFETY: the out-pointers are ours.
    let phrases = unsafe { function(api.xPhraseCount)?(fts) };
    let phrases = usize::try_from(phrases).map_err(|_| ffi::SQLITE_ERROR)?;
    let (mut rows, mut tokens) = (0_i64, 0_i64);
    unsafe {
        ok(function(api.xRowCount)?(fts, &mut rows))?;
        ok(function(api.xColumnTotalSize)?(fts, -1, &mut tokens))?;
    }
    let search = Box::into_raw(Box::new(Search {
        rows,
        average_length: tokens as f64 / rows as f64,
        idf: vec![None; phrases],
        counts: vec![0.0; phrases],
    }));
    // SAFETY: FTS5 owns it from here: it calls `forget_search` when the query ends, or
    // at once if it cannot keep it (then the error is returned, and it is not touched).
    unsafe {
        ok(function(api.xSetAuxdata)?(
            fts,
            search.cast(),
            Some(forget_search),
        ))
    }?;
    // SAFETY: kept by FTS5 until the query ends.
    Ok(unsafe { &mut *search })
}

/// Frees a [`Search`] FTS5 kept.
unsafe extern "C" fn forget_search(search: *mut c_void) {
    // SAFETY: made by `Box::into_raw` in `search_of`, and freed only here, once.
    drop(unsafe { Box::from_raw(search.cast::<Search>()) });
}

/// bm25's idf of `phrase`: how many rows of the table hold it, weighed against all
/// `rows`, never below 1e-6.
///
/// # Safety
/// As [`score`].
unsafe fn idf_of(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    phrase: usize,
    rows: i64,
) -> Result<f64, c_int> {
    let mut hits = 0_i64;
    let phrase = c_int::try_from(phrase).map_err(|_| ffi::SQLITE_ERROR)?;
    #[cfg(test)]
    tests::PHRASES_COUNTED.with(|n| n.set(n.get() + 1));
    // SAFETY: `count_hit` only counts into `hits`, which outlives the call.
    unsafe {
        ok(function(api.xQueryPhrase)?(
            fts,
            phrase,
            (&raw mut hits).cast(),
            Some(count_hit),
        ))
    }?;
    let idf = (((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
    Ok(if idf <= 0.0 { 1e-6 } else { idf })
}

/// Counts one row holding a phrase (`xQueryPhrase`'s callback).
unsafe extern "C" fn count_hit(
    _api: *const ffi::Fts5ExtensionApi,
    _fts: *mut ffi::Fts5Context,
    hits: *mut c_void,
) -> c_int {
    // SAFETY: `idf_of` passes its counter.
    unsafe { *hits.cast::<i64>() += 1 };
    ffi::SQLITE_OK
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::register;

    thread_local! {
        /// Phrases whose idf this thread computed.
        pub(super) static PHRASES_COUNTED: Cell<usize> = const { Cell::new(0) };
    }

    /// A table shaped as `notes_fts` (title, body, cjk, search_scope), with notes of two
    /// people, and the rank registered.
    fn notes() -> rusqlite::Connection {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        // SAFETY: the connection is open and this thread's alone.
        unsafe { register(db.handle()) }.unwrap();
        db.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(title, body, cjk, search_scope, \
             tokenize = 'unicode61 remove_diacritics 2')",
        )
        .unwrap();
        let words = [
            "milk", "bread", "eggs", "tea", "plan", "trip", "paris", "rome", "budget", "garden",
        ];
        for n in 0..400_usize {
            let pick = |k: usize| words[(n * 7 + k * 3 + n / 5) % words.len()];
            let title = format!("{} {}", pick(0), pick(n % 3));
            let body = (0..(5 + n % 23))
                .map(|k| pick(k + n % 4))
                .collect::<Vec<_>>()
                .join(" ");
            let scope = if n % 3 == 0 { "sa" } else { "sb" };
            db.execute(
                "INSERT INTO t VALUES (?1, ?2, '', ?3)",
                (&title, &body, scope),
            )
            .unwrap();
        }
        db
    }

    const QUERIES: [&str; 8] = [
        "milk",
        "milk tea",
        "\"milk tea\"",
        "milk NOT eggs",
        "paris OR rome",
        "{title}: garden",
        "budget plan trip",
        "rome NOT (paris OR milk)",
    ];

    /// The same bits on x86-64 (no fused multiply-add in SQLite's C build); elsewhere a
    /// compiler may fuse bm25's multiply-adds, which Rust never does: within a rounding.
    fn same_score(bm25: f64, ours: f64) -> bool {
        if cfg!(target_arch = "x86_64") {
            bm25.to_bits() == ours.to_bits()
        } else {
            (bm25 - ours).abs() <= 1e-12 * bm25.abs().max(1.0)
        }
    }

    #[test]
    fn the_rank_is_bm25s_score_to_the_last_bit_for_every_match() {
        let db = notes();
        let mut compared = 0;
        for query in QUERIES {
            for scope in ["sa", "sb"] {
                let matched = format!("search_scope: \"{scope}\" AND ({query})");
                let mut statement = db
                    .prepare(
                        "SELECT bm25(t, 10.0, 1.0, 1.0, 0.0), \
                         oncenote_rank(t, 10.0, 1.0, 1.0, 0.0) FROM t WHERE t MATCH ?1",
                    )
                    .unwrap();
                let scores: Vec<(f64, f64)> = statement
                    .query_map([&matched], |row| Ok((row.get(0)?, row.get(1)?)))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                assert!(!scores.is_empty(), "{matched} matched nothing");
                for (bm25, ours) in scores {
                    assert!(same_score(bm25, ours), "{matched}: {bm25} vs {ours}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 500, "only {compared} scores compared");
    }

    #[test]
    fn the_rank_never_counts_the_rows_of_the_scope_token_nor_of_an_excluded_word() {
        let db = notes();
        for (query, phrases) in [("milk", 1), ("milk tea", 2), ("milk NOT eggs", 1)] {
            let matched = format!("search_scope: \"sa\" AND ({query})");
            PHRASES_COUNTED.with(|n| n.set(0));
            let found: Vec<f64> = db
                .prepare("SELECT oncenote_rank(t, 10.0, 1.0, 1.0, 0.0) FROM t WHERE t MATCH ?1")
                .unwrap()
                .query_map([&matched], |row| row.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(!found.is_empty());
            assert_eq!(
                PHRASES_COUNTED.with(Cell::get),
                phrases,
                "{matched}: every phrase's rows counted but the scope's and the excluded"
            );
        }
    }

    #[test]
    fn a_weighted_column_outweighs_the_rest_as_bm25s_weights_say() {
        let db = notes();
        // The word in the body goes in first: its place cannot be what orders them.
        db.execute(
            "INSERT INTO t VALUES ('x', 'lighthouse', '', 'sa'), ('lighthouse', 'x', '', 'sa')",
            (),
        )
        .unwrap();
        let ranked = |weights: &str| -> Vec<String> {
            db.prepare(&format!(
                "SELECT title FROM t WHERE t MATCH 'search_scope: \"sa\" AND lighthouse' \
                 ORDER BY oncenote_rank(t, {weights})"
            ))
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
        };
        assert_eq!(ranked("10.0, 1.0, 1.0, 0.0"), ["lighthouse", "x"]);
        assert_eq!(ranked("1.0, 10.0, 1.0, 0.0"), ["x", "lighthouse"]);
    }
}
