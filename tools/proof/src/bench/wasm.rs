//! The size of the release wasm the browser downloads: raw, gzip -9 and brotli -11.
//!
//! A split build (`cargo leptos build --split`) has one main wasm — all the home page
//! needs — and a chunk per later page (and chunks shared by pages), named in
//! `__wasm_split_manifest.<hash>.json`. The first page's figure is the main wasm; beside
//! it, the most any other page adds, and all chunks together.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bytes of the wasm, as served and compressed.
pub struct WasmSizes {
    /// The main wasm: what the first page (home) downloads.
    pub raw: u64,
    pub gzip: u64,
    pub brotli: u64,
    /// How many chunks a split build has (0 without `--split`).
    pub chunks: usize,
    /// Every chunk's brotli bytes together.
    pub chunks_brotli: u64,
    /// The page whose chunks weigh most, and their brotli bytes (on top of the main wasm).
    pub heaviest_page: Option<(String, u64)>,
}

/// One file's sizes: raw, gzip -9, brotli -11.
fn compressed(path: &Path) -> anyhow::Result<(u64, u64, u64)> {
    let bytes = std::fs::read(path)?;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&bytes)?;
    let gzip = gzip.finish()?;
    let mut brotli = Vec::new();
    brotli::BrotliCompress(
        &mut bytes.as_slice(),
        &mut brotli,
        &brotli::enc::BrotliEncoderParams {
            quality: 11,
            ..Default::default()
        },
    )?;
    Ok((bytes.len() as u64, gzip.len() as u64, brotli.len() as u64))
}

/// Each split's chunk stems, from the manifest in `pkg` (empty without one).
fn split_manifest(pkg: &Path) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    let manifest = std::fs::read_dir(pkg)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("__wasm_split_manifest") && n.ends_with(".json"))
        });
    match manifest {
        Some(path) => Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?),
        None => Ok(BTreeMap::new()),
    }
}

/// The sizes of the `.wasm` files in the site's `pkg` folder.
pub fn wasm_sizes(pkg: &Path) -> anyhow::Result<WasmSizes> {
    let manifest = split_manifest(pkg)?;
    let chunk_stems: BTreeSet<&str> = manifest.values().flatten().map(String::as_str).collect();
    let wasm_files: Vec<PathBuf> = std::fs::read_dir(pkg)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .collect();
    let stem = |p: &Path| {
        p.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned()
    };
    let mains: Vec<&PathBuf> = wasm_files
        .iter()
        .filter(|p| !chunk_stems.contains(stem(p).as_str()))
        .collect();
    let main = match mains.as_slice() {
        [main] => *main,
        [] => anyhow::bail!("no main .wasm in {} (run scripts/build.sh)", pkg.display()),
        more => anyhow::bail!(
            "{} wasm files in {} that no split manifest names: {more:?} (a stale build? run \
             scripts/build.sh)",
            more.len(),
            pkg.display()
        ),
    };
    let (raw, gzip, brotli) = compressed(main)?;
    let mut chunk_brotli = BTreeMap::new();
    for chunk in &chunk_stems {
        let path = pkg.join(format!("{chunk}.wasm"));
        chunk_brotli.insert(*chunk, compressed(&path)?.2);
    }
    let heaviest_page = manifest
        .iter()
        .map(|(split, stems)| {
            let bytes = stems.iter().map(|s| chunk_brotli[s.as_str()]).sum::<u64>();
            (split.clone(), bytes)
        })
        .max_by_key(|(_, bytes)| *bytes);
    Ok(WasmSizes {
        raw,
        gzip,
        brotli,
        chunks: chunk_brotli.len(),
        chunks_brotli: chunk_brotli.values().sum(),
        heaviest_page,
    })
}

/// "; 12 chunks for the later pages, 90 KB brotli in all, the most one page adds: …"
/// (nothing for a build without chunks).
pub fn chunk_line(chunks: usize, chunks_brotli: u64, heaviest: Option<&(String, u64)>) -> String {
    match heaviest {
        Some((page, bytes)) if chunks > 0 => format!(
            "; {chunks} chunks for the later pages, {chunks_brotli} B brotli in all; the most \
             one page adds: {bytes} B ({page})"
        ),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh, empty folder for one test.
    fn empty_pkg(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("oncenote-wasm-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_split_build_counts_the_main_wasm_for_the_first_page_and_chunks_apart() {
        let pkg = empty_pkg("split");
        let write = |name: &str, len: usize| {
            // Bytes that do not compress, so sizes keep their order.
            let bytes: Vec<u8> = (0..len)
                .map(|i| (i * 7919 % 251) as u8 ^ (i >> 8) as u8)
                .collect();
            std::fs::write(pkg.join(name), bytes).unwrap();
        };
        write("oncenote.main.wasm", 4000);
        write("note.c1.wasm", 2000);
        write("shared.c3.wasm", 500);
        write("trash.c2.wasm", 1000);
        std::fs::write(
            pkg.join("__wasm_split_manifest.m.json"),
            r#"{"note":["note.c1","shared.c3"],"trash":["trash.c2","shared.c3"]}"#,
        )
        .unwrap();
        let sizes = wasm_sizes(&pkg).unwrap();
        assert_eq!(sizes.raw, 4000);
        assert_eq!(sizes.chunks, 3);
        let (page, bytes) = sizes.heaviest_page.unwrap();
        assert_eq!(page, "note");
        assert!(bytes > sizes.chunks_brotli / 2 && bytes < sizes.chunks_brotli);
    }

    #[test]
    fn an_unsplit_build_is_one_wasm_and_two_are_an_error() {
        let pkg = empty_pkg("unsplit");
        std::fs::write(pkg.join("oncenote.a.wasm"), [0u8; 100]).unwrap();
        let sizes = wasm_sizes(&pkg).unwrap();
        assert_eq!(
            (sizes.raw, sizes.chunks, sizes.heaviest_page),
            (100, 0, None)
        );
        std::fs::write(pkg.join("oncenote.b.wasm"), [0u8; 100]).unwrap();
        assert!(wasm_sizes(&pkg).is_err());
    }
}
