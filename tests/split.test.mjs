// scripts/split-wasm.mjs on a small module of its own (no browser): what it moves, what the first module does before
// the second one is instantiated (a moved function traps), and that once it is, both share one memory, table and
// global (the stack pointer) and give the results the whole module gave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './lib.mjs';

// `root` is what the page would gate; `owned` a table entry only moved code takes the address of; `helper` only
// `root` calls; `shared` and `kept_cb` stay, the first called by moved code through the first module's exports (as
// is the imported `log`).
const WAT = `(module
  (type $i_i (func (param i32) (result i32)))
  (import "env" "log" (func $log (param i32)))
  (memory (export "memory") 1)
  (global $sp (mut i32) (i32.const 1000))
  (table 2 funcref)
  (elem (i32.const 0) $owned $kept_cb)
  (func $main (export "main") (param i32) (result i32) (call $root (local.get 0)))
  (func $viaTable (export "viaTable") (param i32) (param i32) (result i32)
    (call_indirect (type $i_i) (local.get 0) (local.get 1)))
  (func $sp (export "sp") (result i32) (global.get $sp))
  (func $other (export "other") (param i32) (result i32) (call $shared (local.get 0)))
  (func $root (param i32) (result i32)
    (global.set $sp (i32.sub (global.get $sp) (i32.const 16)))
    (i32.store (global.get $sp) (local.get 0))
    (call $log (local.get 0))
    (i32.add
      (i32.add (call $helper (local.get 0)) (call $shared (local.get 0)))
      (call_indirect (type $i_i) (local.get 0) (i32.const 0))))
  (func $helper (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
  (func $shared (param i32) (result i32) (i32.add (local.get 0) (i32.const 100)))
  (func $owned (param i32) (result i32) (i32.add (global.get $sp) (local.get 0)))
  (func $kept_cb (param i32) (result i32) (i32.const 7))
)`;

test('split-wasm moves what only the roots reach into a second module that shares memory, table and globals', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloop-split-'));
  try {
    writeFileSync(path.join(dir, 't.wat'), WAT);
    writeFileSync(path.join(dir, 'index.html'), '<head>\n    <meta charset="utf-8" />\n</head>\n');
    const wasm = path.join(dir, 't.wasm');
    execFileSync(path.join(ROOT, 'node_modules/.bin/wasm-as'), ['-g', path.join(dir, 't.wat'), '-o', wasm]);
    const said = execFileSync('node', [path.join(ROOT, 'scripts/split-wasm.mjs'), wasm, dir], {
      env: { ...process.env, KUBELOOP_SPLIT_CONFIG: JSON.stringify({ roots: ['^root$'], owned: ['^owned$'] }), KUBELOOP_SPLIT_LIST: '1' },
      encoding: 'utf8',
    });
    assert.match(said, /3 functions \(\d+ B of code\) moved to deferred-[0-9a-f]{16}\.wasm; 2 reached through the table, 2 of the first module's functions exported to it/, said);
    for (const f of ['root', 'owned']) assert.match(said, new RegExp(`slot \\d+: ${f}\\n`), said);
    assert.match(said, /moved: helper\n/, said);
    const second = readdirSync(dir).find((f) => /^deferred-[0-9a-f]{16}\.wasm$/.test(f));
    assert.match(readFileSync(path.join(dir, 'index.html'), 'utf8'), new RegExp(`<meta name="kubeloop-deferred" content="${second}" />`));
    const firstBytes = readFileSync(wasm);
    assert.ok(!firstBytes.includes(Buffer.from('helper')), 'the first module keeps no names');

    const logged = [];
    const first = new WebAssembly.Instance(new WebAssembly.Module(firstBytes), { env: { log: (v) => logged.push(v) } });
    const e = first.exports;
    assert.equal(e.viaTable(3, 1), 7, 'what stays runs before the second module comes');
    assert.equal(e.other(1), 101);
    assert.throws(() => e.main(5), WebAssembly.RuntimeError, 'a moved function traps before');
    assert.throws(() => e.viaTable(3, 0), WebAssembly.RuntimeError, 'so does a moved table entry');
    assert.equal(e.sp(), 1000, 'nothing ran');

    new WebAssembly.Instance(new WebAssembly.Module(readFileSync(path.join(dir, second))), { primary: e });
    // root: sp 1000 - 16 = 984, stores 5 there, logs it, helper 10 + shared 105 + owned (sp + 5 = 989).
    assert.equal(e.main(5), 1104);
    assert.deepEqual(logged, [5]);
    assert.equal(e.sp(), 984, 'one stack pointer');
    assert.equal(new DataView(e.memory.buffer).getInt32(984, true), 5, 'one memory');
    assert.equal(e.viaTable(1, 0), 985, 'the moved table entry runs from its old slot');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
