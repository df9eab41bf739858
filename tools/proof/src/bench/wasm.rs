//! The size of the release wasm the browser downloads: raw, gzip -9 and brotli -11.

use std::io::Write;
use std::path::Path;

/// Bytes of the wasm, as served and compressed.
pub struct WasmSizes {
    pub raw: u64,
    pub gzip: u64,
    pub brotli: u64,
}

/// The sizes of the `.wasm` in the site's `pkg` folder.
pub fn wasm_sizes(pkg: &Path) -> anyhow::Result<WasmSizes> {
    let wasm = std::fs::read_dir(pkg)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm"))
        .ok_or_else(|| anyhow::anyhow!("no .wasm in {} (run scripts/build.sh)", pkg.display()))?;
    let bytes = std::fs::read(&wasm)?;
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
    Ok(WasmSizes {
        raw: bytes.len() as u64,
        gzip: gzip.len() as u64,
        brotli: brotli.len() as u64,
    })
}
