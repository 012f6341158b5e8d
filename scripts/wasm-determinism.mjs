// The engine compiled to wasm32 gives the native history, bit for bit: runs each scenario in the engine built for
// wasm32-unknown-unknown (crates/wasm-check, no imports) and compares its summary, history hash included, with
// what the native runner prints for `kubeloop run FILE --json`.
//
//   node scripts/wasm-determinism.mjs WASM NATIVE_RUNNER SCENARIO...
//
// Exit code 0 when every scenario matches; 1 with the differences otherwise.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';

const [wasmPath, runner, ...scenarios] = process.argv.slice(2);
if (!wasmPath || !runner || scenarios.length === 0) {
  console.error('usage: node scripts/wasm-determinism.mjs WASM NATIVE_RUNNER SCENARIO...');
  process.exit(2);
}

const module = new WebAssembly.Module(readFileSync(wasmPath));
if (WebAssembly.Module.imports(module).length !== 0) {
  console.error('the wasm module imports something:', WebAssembly.Module.imports(module));
  process.exit(1);
}

// Every regular file under a folder, relative to it (what `kubectl -f` in a scenario may name).
function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size < 1 << 20) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

function runWasm(scenarioPath) {
  // A fresh instance per scenario: nothing carries over.
  const { exports: w } = new WebAssembly.Instance(module, {});
  const put = (text) => {
    const bytes = new TextEncoder().encode(text);
    const ptr = w.kl_alloc(bytes.length);
    new Uint8Array(w.memory.buffer, ptr, bytes.length).set(bytes);
    return [ptr, bytes.length];
  };
  const dir = dirname(scenarioPath);
  for (const f of filesUnder(dir)) {
    w.kl_add_file(...put(f), ...put(readFileSync(join(dir, f), 'utf8')));
  }
  w.kl_run(...put(readFileSync(scenarioPath, 'utf8')));
  const ptr = w.kl_output_ptr();
  const len = w.kl_output_len();
  return new TextDecoder().decode(new Uint8Array(w.memory.buffer, ptr, len));
}

let failed = 0;
for (const s of scenarios) {
  const native = execFileSync(runner, ['run', s, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const started = Date.now();
  const wasm = runWasm(s);
  const hash = (t) => (t.match(/"historyHash": "([0-9a-f]+)"/) || t.match(/"history_hash": "([0-9a-f]+)"/) || [])[1];
  if (wasm === native) {
    console.log(`ok  ${s}: history ${hash(native)} (wasm ${Date.now() - started} ms)`);
  } else {
    failed++;
    console.log(`FAIL ${s}: native history ${hash(native)}, wasm ${hash(wasm)}`);
    const a = native.split('\n');
    const b = wasm.split('\n');
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] !== b[i]) {
        console.log(`  first difference at line ${i + 1}:\n  native: ${a[i]}\n  wasm:   ${b[i]}`);
        break;
      }
    }
  }
}
process.exit(failed ? 1 : 0);
