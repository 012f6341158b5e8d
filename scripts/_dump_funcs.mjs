import { readFileSync } from 'node:fs';
import * as wasm from './wasm-read.mjs';
const [a, b] = process.argv.slice(2);
function funcs(path) {
  const buf = readFileSync(path);
  const all = wasm.sections(buf);
  const imported = wasm.imports(buf, all).functions.length;
  const names = wasm.functionNames(buf, all);
  const m = new Map();
  wasm.bodies(buf, all).forEach(([s, e], i) => { const n = names.get(i + imported) ?? `f${i}`; m.set(n, (m.get(n) ?? 0) + e - s); });
  return m;
}
const A = funcs(a), B = funcs(b);
const diff = [];
for (const [n, s] of B) diff.push([n, s - (A.get(n) ?? 0)]);
for (const [n, s] of A) if (!B.has(n)) diff.push([n, -s]);
diff.sort((x, y) => y[1] - x[1]);
let tot = 0; for (const [, d] of diff) tot += d;
console.log('total', tot);
for (const [n, d] of diff.slice(0, 40)) console.log(d, n.slice(0, 150));
