// Splits the page's wasm in two: the first download (what the page needs to run) and the deferred module (code the
// page runs only after something a person does: kubectl's commands, reading a scenario), which the page fetches and
// instantiates after its first paint (src/deferred.rs). docs/size.md says why and what is where.
//
//   node scripts/split-wasm.mjs IN.wasm DIR
//
// IN.wasm is the optimized wasm with its name section (wasm-opt -g). The script writes IN.wasm back without the
// moved code and without names, writes the deferred module into DIR as `deferred-<digest>.wasm`, and prints what it
// moved. Both modules keep the same memory, tables and globals: the deferred module imports them from the first one
// (as `primary`), with every function of the first one it calls, and puts its functions into the table at
// instantiation.
//
// What moves: the functions reachable from the ROOTS (and from the table entries that only deferred code takes the
// address of, OWNED) and from nothing else. In the first module each moved function keeps its index; its body
// becomes a call through a new table slot that the deferred module fills (when the first module calls it or takes
// its address), or `unreachable` (when only moved code calls it). Before the deferred module is instantiated such a
// call traps, so the page calls the roots only once `deferred::ready()` says so.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import * as wasm from './wasm-read.mjs';

// The entry points the page gates (src/deferred.rs): every kubectl command line, and reading a scenario.
const ROOTS = [
  /^kubeloop_engine::kubectl::run$/,
  /^kubeloop_engine::scenario::parse::<impl kubeloop_engine::scenario::Scenario>::parse$/,
  // "Why?" of a pod: the chain of causes (src/liverun.rs calls it through a pointer binaryen cannot inline).
  /^kubeloop_web::snapshot::build_why$/,
  // The timeline: a checkpoint's copy of the cluster and a scrub's re-execution (src/liverun/scrub.rs, the same).
  /^kubeloop_core::sim::why::<impl kubeloop_core::sim::Sim>::checkpoint$/,
  /^kubeloop_engine::scenario::rewind::Rewind::scrub$/,
  // A fork compared with the run it was forked from (src/liverun/fork.rs, the same).
  /^kubeloop_engine::scenario::diff::ForkCompare::look$/,
  // An object's history: the run made again with it traced, its versions' YAML, their diff (the same).
  /^kubeloop_engine::scenario::rewind::Rewind::history$/,
  /^kubeloop_web::snapshot::history::trace_history$/,
  /^kubeloop_web::snapshot::history::build_history$/,
];
// Table entries only deferred code takes the address of: the commands (`Command::run`, reached from
// `kubectl::run`), the commands that keep printing (`Follow`, made only by commands), and the field readers the
// scenario reader passes as functions, and the copies of controllers and rate limiters.
const OWNED = [
  /^kubeloop_engine::kubectl::[a-z_]+::(run|run_[a-z_]+|api_resources|version)$/,
  /^<kubeloop_engine::kubectl::[a-z_]+::[A-Za-z]+ as kubeloop_engine::kubectl::Follow>::[a-z_]+$/,
  /^kubeloop_engine::kubectl::Follow::pending$/,
  /^kubeloop_engine::scenario::(actions|expect|values|parse)::/,
  /^<kubeloop_engine::scenario::(ScenarioError|expect::When) as core::fmt::Display>::fmt$/,
  // A controller's and a rate limiter's copy, in their vtables: only a checkpoint's copy of the cluster calls them.
  /^<T as kubeloop_core::controller::CloneReconciler>::clone_box$/,
  /^<T as kubeloop_core::workqueue::CloneRateLimiter<K>>::clone_box$/,
];
// A test gives its own (tests/split.test.mjs): `{"roots": [regex, ...], "owned": [regex, ...]}`.
if (process.env.KUBELOOP_SPLIT_CONFIG) {
  const c = JSON.parse(process.env.KUBELOOP_SPLIT_CONFIG);
  ROOTS.splice(0, ROOTS.length, ...c.roots.map((r) => new RegExp(r)));
  OWNED.splice(0, OWNED.length, ...c.owned.map((r) => new RegExp(r)));
}
const EXPORT_PREFIX = '~';

const [input, outDir] = process.argv.slice(2);
if (!input || !outDir) {
  console.error('usage: node scripts/split-wasm.mjs IN.wasm DIR');
  process.exit(2);
}
const fail = (msg) => {
  console.error(`kubeloop: split-wasm: ${msg}`);
  process.exit(1);
};

// ---- reading ----
const buf = readFileSync(input);
const { leb, skipLeb, str } = wasm;
const enc = (n) => {
  const out = [];
  do {
    let x = n % 128;
    n = Math.floor(n / 128);
    if (n) x |= 0x80;
    out.push(x);
  } while (n);
  return Buffer.from(out);
};
const name = (s) => Buffer.concat([enc(Buffer.byteLength(s)), Buffer.from(s)]);
const vec = (items) => Buffer.concat([enc(items.length), ...items]);
const section = (id, body) => Buffer.concat([Buffer.from([id]), enc(body.length), body]);

let sections;
try {
  sections = wasm.sections(buf);
} catch (e) {
  fail(`${input}: ${e.message}`);
}
const sec = (id) => sections.find((s) => s.id === id);

const imported0 = wasm.imports(buf, sections);
if (imported0.tables || imported0.memories || imported0.globals) fail('the module imports a table, memory or global');
const funcImports = imported0.functions; // {module, field, type}
const imported = funcImports.length;

const funcTypes = [];
{
  let p = sec(3).bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    let t;
    [t, p] = leb(buf, p);
    funcTypes.push(t);
  }
}
const typeOf = (f) => (f < imported ? funcImports[f].type : funcTypes[f - imported]);

// Types: each function type's parameter count (a forwarding body passes them all on).
const paramCounts = [];
{
  let p = sec(1).bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    if (buf[p++] !== 0x60) fail('a type that is not a function type');
    let np;
    [np, p] = leb(buf, p);
    p += np;
    let nr;
    [nr, p] = leb(buf, p);
    p += nr;
    paramCounts.push(np);
  }
}

const tables = []; // {reftype, flags, min, max}
{
  let p = sec(4).bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    const reftype = buf[p++];
    let l;
    [l, p] = wasm.limits(buf, p);
    tables.push({ reftype, ...l });
  }
}
if (!tables.length || tables[0].reftype !== 0x70) fail('table 0 is not a funcref table');

let memory;
{
  let p = sec(5).bodyStart;
  let n;
  [n, p] = leb(buf, p);
  if (n !== 1) fail(`${n} memories`);
  [memory] = wasm.limits(buf, p);
}

const globals = []; // {type, mut}
if (sec(6)) {
  let p = sec(6).bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    const type = buf[p++];
    const mut = buf[p++];
    globals.push({ type, mut });
    // the init expression: one constant or global.get, then end
    while (buf[p] !== 0x0b) {
      const op = buf[p++];
      if (op === 0x41 || op === 0x42 || op === 0x23 || op === 0xd2) p = skipLeb(buf, p);
      else if (op === 0x43) p += 4;
      else if (op === 0x44) p += 8;
      else fail(`global init opcode ${op}`);
    }
    p++;
  }
}

const exports = []; // {name, kind, index}
if (sec(7)) {
  let p = sec(7).bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    let nm;
    let index;
    [nm, p] = str(buf, p);
    const kind = buf[p++];
    [index, p] = leb(buf, p);
    exports.push({ name: nm, kind, index });
  }
}
const start = sec(8) ? leb(buf, sec(8).bodyStart)[0] : null;

const elem = new Map(); // table slot -> function
if (sec(9)) {
  let p = sec(9).bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    let flags;
    [flags, p] = leb(buf, p);
    if (flags !== 0 || buf[p++] !== 0x41) fail(`an element segment of a kind this script does not read (${flags})`);
    let offset;
    [offset, p] = leb(buf, p);
    if (buf[p++] !== 0x0b) fail('element segment offset');
    let m;
    [m, p] = leb(buf, p);
    for (let j = 0; j < m; j++) {
      let f;
      [f, p] = leb(buf, p);
      elem.set(offset + j, f);
    }
  }
}
const elemFuncs = new Set(elem.values());

const bodies = wasm.bodies(buf, sections); // [start, end) of each defined function's body
const total = imported + bodies.length;

const names = new Map([...wasm.functionNames(buf, sections)].map(([i, n]) => [i, n.replace(/::h[0-9a-f]{16}$/, '')]));
if (!names.size) fail(`${input} has no function names (wasm-opt -g keeps them)`);

// Every instruction of a body, with where its function index (call, return_call, ref.func) is, if any.
function scan(i, onFunc, onMemoryInit) {
  const [s, e] = bodies[i];
  let p = s;
  let n;
  [n, p] = leb(buf, p);
  for (let k = 0; k < n; k++) {
    p = skipLeb(buf, p);
    p++;
  }
  while (p < e) {
    const op = buf[p++];
    if (op === 0x02 || op === 0x03 || op === 0x04) {
      const t = buf[p];
      if (t === 0x40 || (t >= 0x6f && t <= 0x7f)) p++;
      else p = skipLeb(buf, p);
    } else if (op === 0x0c || op === 0x0d) p = skipLeb(buf, p);
    else if (op === 0x0e) {
      let m;
      [m, p] = leb(buf, p);
      for (let k = 0; k <= m; k++) p = skipLeb(buf, p);
    } else if (op === 0x10 || op === 0x12 || op === 0xd2) {
      const at = p;
      let f;
      [f, p] = leb(buf, p);
      onFunc(f, at, p);
    } else if (op === 0x11 || op === 0x13) {
      p = skipLeb(buf, p);
      p = skipLeb(buf, p);
    } else if (op === 0x1c) {
      let m;
      [m, p] = leb(buf, p);
      p += m;
    } else if (op >= 0x20 && op <= 0x26) p = skipLeb(buf, p);
    else if (op >= 0x28 && op <= 0x3e) {
      p = skipLeb(buf, p);
      p = skipLeb(buf, p);
    } else if (op === 0x3f || op === 0x40) p++;
    else if (op === 0x41 || op === 0x42) p = skipLeb(buf, p);
    else if (op === 0x43) p += 4;
    else if (op === 0x44) p += 8;
    else if (op === 0xd0) p++;
    else if (op === 0xfc) {
      let sub;
      [sub, p] = leb(buf, p);
      if (sub <= 7) {
        // saturating truncations
      } else if (sub === 8 || sub === 9) {
        onMemoryInit();
        p = skipLeb(buf, p);
        if (sub === 8) p++;
      } else if (sub === 10) p += 2;
      else if (sub === 11) p++;
      else if (sub === 12 || sub === 14) {
        p = skipLeb(buf, p);
        p = skipLeb(buf, p);
      } else if (sub === 13 || (sub >= 15 && sub <= 17)) p = skipLeb(buf, p);
      else fail(`opcode 0xfc ${sub}`);
    } else if (
      (op >= 0x45 && op <= 0xc4) ||
      op <= 0x01 ||
      op === 0x05 ||
      op === 0x0b ||
      op === 0x0f ||
      op === 0x1a ||
      op === 0x1b ||
      op === 0xd1
    ) {
      // no immediates
    } else fail(`opcode 0x${op.toString(16)} in ${names.get(i + imported)}`);
  }
}

// ---- what moves ----
const edges = Array.from({ length: total }, () => []);
const usesPassiveData = new Set();
for (let i = 0; i < bodies.length; i++) {
  scan(
    i,
    (f) => edges[i + imported].push(f),
    () => usesPassiveData.add(i + imported),
  );
}
const nameOf = (f) => names.get(f) ?? `#${f}`;
const roots = [];
for (let f = imported; f < total; f++) if (ROOTS.some((r) => r.test(nameOf(f)))) roots.push(f);
for (const r of ROOTS) {
  if (!roots.some((f) => r.test(nameOf(f)))) fail(`no function is ${r} (renamed or inlined? src/deferred.rs)`);
}
const owned = [...elemFuncs].filter((f) => OWNED.some((r) => r.test(nameOf(f))));
const isRoot = new Set(roots);
const ownedSet = new Set(owned);
function reach(from, stop) {
  const seen = new Set();
  const stack = [...from];
  while (stack.length) {
    const f = stack.pop();
    if (seen.has(f) || stop.has(f)) continue;
    seen.add(f);
    for (const g of edges[f]) stack.push(g);
  }
  return seen;
}
const exported = exports.filter((e) => e.kind === 0).map((e) => e.index);
const kept = reach(
  [...exported, ...(start === null ? [] : [start]), ...[...elemFuncs].filter((f) => !isRoot.has(f) && !ownedSet.has(f))],
  isRoot,
);
const moved = [...reach([...roots, ...owned], new Set())]
  .filter((f) => f >= imported && !kept.has(f) && !usesPassiveData.has(f))
  .sort((a, b) => a - b);
const movedSet = new Set(moved);
// A moved function the first module still calls or holds in its table keeps a forwarding body and a slot.
const forwarded = moved.filter((f) => isRoot.has(f) || elemFuncs.has(f));
const slotBase = tables[0].min;
const slotOf = new Map(forwarded.map((f, i) => [f, slotBase + i]));

// ---- the deferred module ----
const needed = new Set(); // first-module functions the moved code calls
for (const f of moved) for (const g of edges[f]) if (!movedSet.has(g)) needed.add(g);
const neededList = [...needed].sort((a, b) => a - b);
const secondaryIndex = new Map();
neededList.forEach((f, i) => secondaryIndex.set(f, i));
moved.forEach((f, i) => secondaryIndex.set(f, neededList.length + i));

const limits = (flags, min, max) =>
  Buffer.concat([Buffer.from([max === null ? 0 : 1]), enc(min), ...(max === null ? [] : [enc(max)])]);
const newTableMin = slotBase + forwarded.length;
const tableMax = (t, i) => (i === 0 && t.max !== null ? Math.max(t.max, newTableMin) : t.max);

const secImports = [
  Buffer.concat([name('primary'), name('memory'), Buffer.from([2]), limits(memory.flags, memory.min, memory.max)]),
  ...tables.map((t, i) =>
    Buffer.concat([
      name('primary'),
      name(`${EXPORT_PREFIX}t${i}`),
      Buffer.from([1, t.reftype]),
      limits(t.flags, i === 0 ? newTableMin : t.min, tableMax(t, i)),
    ]),
  ),
  ...globals.map((g, i) =>
    Buffer.concat([name('primary'), name(`${EXPORT_PREFIX}g${i}`), Buffer.from([3, g.type, g.mut])]),
  ),
  ...neededList.map((f) =>
    Buffer.concat([name('primary'), name(`${EXPORT_PREFIX}${f}`), Buffer.from([0]), enc(typeOf(f))]),
  ),
];
const rewrite = (i) => {
  // The body with each function index renumbered for the deferred module.
  const [s, e] = bodies[i];
  const parts = [];
  let last = s;
  scan(
    i,
    (f, at, after) => {
      parts.push(buf.subarray(last, at), enc(secondaryIndex.get(f)));
      last = after;
    },
    () => fail('moved code uses passive data'),
  );
  parts.push(buf.subarray(last, e));
  const body = Buffer.concat(parts);
  return Buffer.concat([enc(body.length), body]);
};
const secElem = forwarded.length
  ? [
      section(
        9,
        vec([
          Buffer.concat([
            Buffer.from([0, 0x41]),
            sleb(slotBase),
            Buffer.from([0x0b]),
            vec(forwarded.map((f) => enc(secondaryIndex.get(f)))),
          ]),
        ]),
      ),
    ]
  : [];
const secondary = Buffer.concat([
  buf.subarray(0, 8),
  buf.subarray(sec(1).start, sec(1).end),
  section(2, vec(secImports)),
  section(3, vec(moved.map((f) => enc(typeOf(f))))),
  ...secElem,
  section(10, vec(moved.map((f) => rewrite(f - imported)))),
  // The features the code uses (binaryen reads them from here).
  ...sections
    .filter((s) => s.id === 0 && wasm.customName(buf, s) === 'target_features')
    .map((s) => buf.subarray(s.start, s.end)),
]);

function sleb(n) {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return Buffer.from(out);
    }
    out.push(b | 0x80);
  }
}

// ---- the first module ----
const stub = (f) => {
  if (!slotOf.has(f)) return Buffer.from([0x00, 0x00, 0x0b]); // no locals, unreachable, end
  const t = typeOf(f);
  const parts = [Buffer.from([0x00])];
  for (let k = 0; k < paramCounts[t]; k++) parts.push(Buffer.from([0x20]), enc(k));
  parts.push(Buffer.from([0x41]), sleb(slotOf.get(f)), Buffer.from([0x11]), enc(t), Buffer.from([0x00, 0x0b]));
  return Buffer.concat(parts);
};
const code = vec(
  bodies.map(([s, e], i) => {
    const body = movedSet.has(i + imported) ? stub(i + imported) : buf.subarray(s, e);
    return Buffer.concat([enc(body.length), body]);
  }),
);
const tableSection = vec(
  tables.map((t, i) =>
    Buffer.concat([Buffer.from([t.reftype]), limits(t.flags, i === 0 ? newTableMin : t.min, tableMax(t, i))]),
  ),
);
const exportSection = vec([
  ...exports.map((e) => Buffer.concat([name(e.name), Buffer.from([e.kind]), enc(e.index)])),
  ...tables.map((_, i) => Buffer.concat([name(`${EXPORT_PREFIX}t${i}`), Buffer.from([1]), enc(i)])),
  ...globals.map((_, i) => Buffer.concat([name(`${EXPORT_PREFIX}g${i}`), Buffer.from([3]), enc(i)])),
  ...neededList.map((f) => Buffer.concat([name(`${EXPORT_PREFIX}${f}`), Buffer.from([0]), enc(f)])),
]);
if (!exports.some((e) => e.kind === 2 && e.name === 'memory')) fail('the memory is not exported as `memory`');
const primaryParts = [buf.subarray(0, 8)];
for (const s of sections) {
  if (s.id === 0) {
    if (wasm.customName(buf, s) === 'name') continue;
    primaryParts.push(buf.subarray(s.start, s.end));
  } else if (s.id === 4) primaryParts.push(section(4, tableSection));
  else if (s.id === 7) primaryParts.push(section(7, exportSection));
  else if (s.id === 10) primaryParts.push(section(10, code));
  else primaryParts.push(buf.subarray(s.start, s.end));
}
const primary = Buffer.concat(primaryParts);

if (process.env.KUBELOOP_SPLIT_LIST) {
  // What moved, for a person to read: the table entries first.
  for (const f of forwarded) console.log(`  slot ${slotOf.get(f)}: ${nameOf(f)}`);
  for (const f of moved) if (!slotOf.has(f)) console.log(`  moved: ${nameOf(f)}`);
}
const digest = createHash('sha256').update(secondary).digest('hex').slice(0, 16);
const out = path.join(outDir, `deferred-${digest}.wasm`);
// The page learns the module's name from a <meta> tag (src/deferred.rs), relative to the page.
const html = path.join(outDir, 'index.html');
const page = readFileSync(html, 'utf8');
if (page.includes('name="kubeloop-deferred"')) fail('index.html names a second module already');
const tag = `<meta name="kubeloop-deferred" content="${path.basename(out)}" />`;
if (!page.includes('<meta charset="utf-8" />')) fail('index.html has no <meta charset="utf-8" />');
writeFileSync(html, page.replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    ${tag}`));
writeFileSync(input, primary);
writeFileSync(out, secondary);
const movedBytes = moved.reduce((a, f) => a + bodies[f - imported][1] - bodies[f - imported][0], 0);
console.log(
  `kubeloop: split-wasm: ${moved.length} functions (${movedBytes} B of code) moved to ${path.basename(out)}; ` +
    `${forwarded.length} reached through the table, ${neededList.length} of the first module's functions exported to it`,
);
