// Writes brotli (.br) and gzip (.gz) copies of the built wasm, JS and CSS beside them,
// so the server sends them compressed without compressing on every request.
//   node scripts/precompress.mjs target/site/pkg
import { readdirSync, readFileSync, writeFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";

const dir = process.argv[2] ?? "target/site/pkg";
for (const name of readdirSync(dir)) {
  if (!/\.(wasm|js|css)$/.test(name)) continue;
  const path = join(dir, name);
  const raw = readFileSync(path);
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: statSync(path).size,
    },
  });
  const gz = gzipSync(raw, { level: 9 });
  writeFileSync(`${path}.br`, br);
  writeFileSync(`${path}.gz`, gz);
  console.log(`${name}: ${raw.length} B raw, ${br.length} B brotli, ${gz.length} B gzip`);
}
