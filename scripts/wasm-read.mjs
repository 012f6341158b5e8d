// Reading a wasm module's binary: its sections, imports, function bodies and names. Shared by
// scripts/size-budget.mjs (what takes the room) and scripts/split-wasm.mjs (what moves to the second module).

/** An unsigned LEB128 at `p`: `[value, position after it]`. */
export function leb(b, p) {
  let r = 0;
  let s = 0;
  let x;
  do {
    x = b[p++];
    r += (x & 0x7f) * 2 ** s;
    s += 7;
  } while (x & 0x80);
  return [r, p];
}

/** The position after the LEB128 at `p`. */
export function skipLeb(b, p) {
  while (b[p++] & 0x80);
  return p;
}

/** A length-prefixed UTF-8 string at `p`: `[text, position after it]`. */
export function str(b, p) {
  const [n, q] = leb(b, p);
  return [b.toString('utf8', q, q + n), q + n];
}

/** Limits (a table's or a memory's) at `p`: `[{flags, min, max}, position after them]` (`max` null when none). */
export function limits(b, p) {
  const flags = b[p++];
  let min;
  let max = null;
  [min, p] = leb(b, p);
  if (flags & 1) [max, p] = leb(b, p);
  return [{ flags, min, max }, p];
}

/** The module's sections, in order: `{id, start, bodyStart, end}` (a custom section's id is 0). */
export function sections(buf) {
  if (buf.readUInt32LE(0) !== 0x6d736100) throw new Error('not a wasm module');
  const out = [];
  for (let pos = 8; pos < buf.length; ) {
    const id = buf[pos];
    const [size, p] = leb(buf, pos + 1);
    out.push({ id, start: pos, bodyStart: p, end: p + size });
    pos = p + size;
  }
  return out;
}

/** A custom section's name. */
export function customName(buf, section) {
  return str(buf, section.bodyStart)[0];
}

/** The imports: functions (`{module, field, type}`, numbered before the module's own) and counts of the rest. */
export function imports(buf, all) {
  const out = { functions: [], tables: 0, memories: 0, globals: 0 };
  const s = all.find((x) => x.id === 2);
  if (!s) return out;
  let p = s.bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    let module;
    let field;
    [module, p] = str(buf, p);
    [field, p] = str(buf, p);
    const kind = buf[p++];
    if (kind === 0) {
      let type;
      [type, p] = leb(buf, p);
      out.functions.push({ module, field, type });
    } else if (kind === 1) {
      out.tables++;
      [, p] = limits(buf, p + 1);
    } else if (kind === 2) {
      out.memories++;
      [, p] = limits(buf, p);
    } else if (kind === 3) {
      out.globals++;
      p += 2;
    } else {
      p = skipLeb(buf, p);
    }
  }
  return out;
}

/** Each defined function's body, `[start, end)` in `buf`. */
export function bodies(buf, all) {
  const s = all.find((x) => x.id === 10);
  const out = [];
  if (!s) return out;
  let p = s.bodyStart;
  let n;
  [n, p] = leb(buf, p);
  for (let i = 0; i < n; i++) {
    let len;
    [len, p] = leb(buf, p);
    out.push([p, p + len]);
    p += len;
  }
  return out;
}

/** The name section's function names, by function index (imports first), as written. */
export function functionNames(buf, all) {
  const names = new Map();
  for (const s of all.filter((x) => x.id === 0 && customName(buf, x) === 'name')) {
    let p = str(buf, s.bodyStart)[1];
    while (p < s.end) {
      const sub = buf[p++];
      let size;
      [size, p] = leb(buf, p);
      const subEnd = p + size;
      if (sub === 1) {
        let n;
        [n, p] = leb(buf, p);
        for (let i = 0; i < n; i++) {
          let idx;
          let f;
          [idx, p] = leb(buf, p);
          [f, p] = str(buf, p);
          names.set(idx, f);
        }
      }
      p = subEnd;
    }
  }
  return names;
}
