// Checks the shape of the code that the architecture (README, "Following a write") relies
// on, so it stays that way as the code grows:
//   1. no import circles between source files (server/src, app/src, tools/proof/src);
//   2. nothing in server/src/storage/ or server/src/records/ imports the domain
//      (accounts, notes, search, idempotency) — arrows point down;
//   3. no production source file over 600 lines (an inline `#[cfg(test)] mod tests` at the
//      end of a file is not counted).
// Imports are read from `use crate::…`, `use super::…` and `crate::…::` paths outside
// comments and test modules. A parent module's re-export of its own children (a facade
// `mod.rs`) is not an import. Run: node scripts/check-layout.mjs
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// The checkout to check: this one, or the one named (`node scripts/check-layout.mjs DIR`).
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const crates = ['server/src', 'app/src', 'tools/proof/src'];
const MAX_LINES = 600;
const DOMAIN = ['accounts', 'notes', 'search', 'idempotency'];
const BELOW_DOMAIN = ['storage', 'records'];

function rustFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rustFiles(path);
    return name.endsWith('.rs') ? [path] : [];
  });
}

/** The file's text without its test module and its comments. */
function production(text) {
  const tests = text.search(/^#\[cfg\(test\)\]\s*\n\s*mod tests\b/m);
  const kept = tests >= 0 ? text.slice(0, tests) : text;
  return kept.replace(/\/\/.*$/gm, '');
}

const problems = [];

/** The file's production code, its length checked. */
function countLines(file) {
  const code = production(readFileSync(file, 'utf8'));
  const lines = code.split('\n').length;
  if (lines > MAX_LINES) {
    problems.push(`${relative(root, file)}: ${lines} lines of production code (at most ${MAX_LINES})`);
  }
  return code;
}
for (const crate of crates) {
  const base = join(root, crate);
  // Module path (as a string joined by ::) → file.
  const modules = new Map();
  for (const file of rustFiles(base)) {
    let parts = relative(base, file).slice(0, -3).split('/');
    if (parts.at(-1) === 'mod') parts = parts.slice(0, -1);
    if (parts.length === 1 && (parts[0] === 'lib' || parts[0] === 'main')) parts = [];
    if (parts[0] === 'bin') {
      // Each binary is a crate of its own: only its length is checked.
      countLines(file);
      continue;
    }
    modules.set(parts.join('::'), { file, parts });
  }
  const resolve = (path) => {
    for (let i = path.length; i > 0; i--) {
      const key = path.slice(0, i).join('::');
      if (modules.has(key)) return key;
    }
    return null;
  };
  const edges = new Map();
  for (const [name, { file, parts }] of modules) {
    const code = countLines(file);
    const deps = new Set();
    for (const m of code.matchAll(/\b(crate|super)((?:::\w+)+)(?:::\{([^}]*)\})?/g)) {
      const segments = m[2].split('::').filter(Boolean);
      const path = m[1] === 'crate' ? segments : [...parts.slice(0, -1), ...segments];
      const targets = [path];
      for (const item of (m[3] ?? '').split(',')) {
        const first = item.trim().split('::')[0].split(/\s/)[0];
        if (first && first !== 'self') targets.push([...path, first]);
      }
      for (const target of targets) {
        const to = resolve(target);
        if (to === null || to === name) continue;
        // A facade re-exporting its own children is not an import.
        if (name === '' ? true : to.startsWith(`${name}::`)) continue;
        deps.add(to);
      }
    }
    edges.set(name, deps);
    if (crate === 'server/src' && BELOW_DOMAIN.includes(parts[0])) {
      for (const to of deps) {
        if (DOMAIN.includes(to.split('::')[0])) {
          problems.push(`${relative(root, file)} imports ${to}: storage and records stand below the domain`);
        }
      }
    }
  }
  // Circles: strongly connected components of more than one file (Tarjan).
  let index = 0;
  const stack = [];
  const info = new Map();
  const connect = (v) => {
    info.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!info.has(w)) {
        connect(w);
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
      } else if (info.get(w).onStack) {
        info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
      }
    }
    if (info.get(v).low === info.get(v).index) {
      const circle = [];
      let w;
      do {
        w = stack.pop();
        info.get(w).onStack = false;
        circle.push(w);
      } while (w !== v);
      if (circle.length > 1) {
        const files = circle.map((m) => relative(root, modules.get(m).file));
        problems.push(`import circle: ${files.join(' ⇄ ')}`);
      }
    }
  };
  for (const v of edges.keys()) if (!info.has(v)) connect(v);
  console.log(`${crate}: ${modules.size} files, ${[...edges.values()].reduce((n, d) => n + d.size, 0)} imports between them`);
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`layout: no import circles, storage and records below the domain, no file over ${MAX_LINES} lines`);
