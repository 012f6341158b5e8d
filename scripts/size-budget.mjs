// The playground's download, held to a budget: the wasm and the JS of dist/, compressed as a server would send
// them (gzip -9 and brotli 11), against the budget in scripts/size-budget.json. Prints both figures, and what
// takes the room: the wasm's code by crate and its largest functions, read from the name section of the wasm
// cargo built (before wasm-bindgen and wasm-opt, so raw bytes: shares, not the final figure).
//
//   node scripts/size-budget.mjs DIST_DIR CARGO_WASM
//
// Exit code 0 within the budget, 1 over it (or when a file is missing).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import * as wasm from './wasm-read.mjs';

const [dist, cargoWasm] = process.argv.slice(2);
if (!dist || !cargoWasm) {
  console.error('usage: node scripts/size-budget.mjs DIST_DIR CARGO_WASM');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const budget = JSON.parse(readFileSync(join(here, 'size-budget.json'), 'utf8'));

// The second module (scripts/split-wasm.mjs) loads once the page runs: not part of the first download.
const deferred = (f) => /^deferred-[0-9a-f]+\.wasm$/.test(f);
const files = readdirSync(dist).filter((f) => (f.endsWith('.wasm') || f.endsWith('.js')) && !deferred(f));
if (!files.some((f) => f.endsWith('.wasm'))) {
  console.error(`size-budget: no .wasm in ${dist}`);
  process.exit(1);
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
let gz = 0;
let br = 0;
let raw = 0;
for (const f of files.sort()) {
  const bytes = readFileSync(join(dist, f));
  const g = gzipSync(bytes, { level: 9 }).length;
  const b = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  raw += bytes.length;
  gz += g;
  br += b;
  console.log(`  ${f}: ${bytes.length} B raw, ${g} B gzip, ${b} B brotli`);
}
// Files of the site the page fetches once it runs (the second module, explain's documentation; the lessons and the
// example scenarios, each a file of examples/): not part of the first download.
for (const f of readdirSync(dist).filter((f) => f.endsWith('.tsv') || deferred(f)).sort()) {
  const bytes = readFileSync(join(dist, f));
  console.log(`  ${f} (fetched after the first download, not in the budget): ${bytes.length} B raw, ${gzipSync(bytes, { level: 9 }).length} B gzip`);
}
const examples = join(dist, 'examples');
if (existsSync(examples)) {
  const yaml = readdirSync(examples, { recursive: true }).filter((f) => f.endsWith('.yaml')).sort();
  const bytes = yaml.map((f) => readFileSync(join(examples, f)));
  const total = bytes.reduce((n, b) => n + b.length, 0);
  const gzipped = bytes.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0);
  console.log(`  examples/ (${yaml.length} files in the site, the lessons and scenarios among them fetched after the first download; not in the budget): ${total} B raw, ${gzipped} B gzip`);
}

// ---- contributors: function body sizes by name, from the cargo-built wasm's code and name sections ----------
function contributors(path) {
  const buf = readFileSync(path);
  const all = wasm.sections(buf);
  const imported = wasm.imports(buf, all).functions.length;
  const names = wasm.functionNames(buf, all);
  return wasm.bodies(buf, all).map(([s, e], i) => ({ size: e - s, name: names.get(i + imported) ?? `func ${i + imported}` }));
}

// The crate a (legacy-mangled) Rust symbol belongs to: its first path segment, or the first path inside `<...>`.
function crateOf(name) {
  const m = name.match(/^_ZN(\d+)(.*)$/);
  if (!m) return name.startsWith('__') || !name.includes('::') ? '(runtime and glue)' : name.split('::')[0];
  const first = m[2].slice(0, Number(m[1]));
  const inner = first.match(/^_?\$LT\$(?:\$RF\$)?(?:mut\$u20\$)?([a-z_][a-z0-9_]*)/);
  return inner ? inner[1] : first;
}

function demangle(name) {
  const m = name.match(/^_ZN(.*)17h[0-9a-f]{16}E$/);
  if (!m) return name;
  const parts = [];
  let s = m[1];
  while (s.length && /^\d/.test(s)) {
    const n = s.match(/^\d+/)[0];
    s = s.slice(n.length);
    parts.push(s.slice(0, Number(n)));
    s = s.slice(Number(n));
  }
  return parts
    .join('::')
    .replace(/\$LT\$/g, '<')
    .replace(/\$GT\$/g, '>')
    .replace(/\$RF\$/g, '&')
    .replace(/\$u20\$/g, ' ')
    .replace(/\$C\$/g, ',')
    .replace(/\.\./g, '::');
}

let funcs = [];
try {
  funcs = contributors(cargoWasm);
} catch (e) {
  console.log(`  (no contributors: ${cargoWasm}: ${e.message})`);
}
if (funcs.length) {
  const total = funcs.reduce((a, f) => a + f.size, 0);
  const byCrate = new Map();
  for (const f of funcs) byCrate.set(crateOf(f.name), (byCrate.get(crateOf(f.name)) ?? 0) + f.size);
  console.log(`  code by crate (raw function bodies before wasm-opt, ${kib(total)} in all):`);
  for (const [c, s] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`    ${((100 * s) / total).toFixed(1).padStart(5)}%  ${kib(s).padStart(10)}  ${c}`);
  }
  console.log('  largest functions:');
  for (const f of [...funcs].sort((a, b) => b.size - a.size).slice(0, 8)) {
    console.log(`    ${kib(f.size).padStart(10)}  ${demangle(f.name).slice(0, 110)}`);
  }
}

console.log(
  `size: wasm+js ${raw} B raw, ${gz} B gzip (${kib(gz)}), ${br} B brotli (${kib(br)}); budget ${budget.gzip} B gzip (${kib(budget.gzip)})`,
);
if (gz > budget.gzip) {
  console.error(
    `size-budget: the page is ${gz - budget.gzip} B gzip over its budget of ${budget.gzip} B: cut it, or raise scripts/size-budget.json in a commit that says why`,
  );
  process.exit(1);
}
