// The page at scale, a benchmark (issue 29): load to ready, then for each cluster size a new run of N nodes and P pods
// (kubeloop's own demo Deployments, as `kubeloop bench` makes them: 100 pods each, 10m CPU and 16Mi requested) played
// at a speed until every pod is Running. It prints the time to converge (wall and simulated), the frame times while
// converging and after (requestAnimationFrame deltas: p50, p95, p99), the longest main-thread tasks
// (PerformanceObserver 'longtask', every task over 50 ms), the wasm memory (the module's WebAssembly.Memory), and
// the click latency: from a click on a control (a node opened in the detail panel, the panel closed) to the frame
// that shows the answer. It prints figures only; it fails on a page error, never on a figure (they depend on the
// machine and on what else runs on it).
//
// The cluster is opened as a scenario file through [data-testid=import-scenario] (every build of the page opens one,
// so a build from before the size control is measured the same way), or with --open control through the page's
// cluster size control ([data-testid=cluster-size-nodes], [data-testid=cluster-size-pods], [data-testid=cluster-size-start]).
//
// Against a build you serve (as the browser tests, docs/web-tests.md):
//   KUBELOOP_URL=http://127.0.0.1:8080/kubeloop/ node scripts/bench-scale.mjs
//   KUBELOOP_URL=... node scripts/bench-scale.mjs --sizes 1000x30000 --speed 100 --timeout 600 --clicks 6
//   KUBELOOP_URL=... node scripts/bench-scale.mjs --sizes 1000x30000 --speed max --steady 60    # the page's top speed
//   KUBELOOP_URL=... node scripts/bench-scale.mjs --load-runs 10 --sizes none     # load to ready only
import { launchBrowser, openPage, describeProblems, assertPageAlive, setSpeed, setPlaying, simTime, openClusterTools } from '../tests/lib.mjs';

const USAGE =
  'usage: node scripts/bench-scale.mjs [--sizes NxP,...|none] [--speed K|max] [--timeout SECONDS] [--steady SECONDS] ' +
  '[--clicks N] [--load-runs N] [--seed N] [--open file|control]';

function parseArgs(argv) {
  const o = { sizes: '1000x30000,5000x150000', speed: 100, timeout: 900, steady: 15, clicks: 6, loadRuns: 5, seed: 1, open: 'file' };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    const num = () => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) fail(`${k} takes a whole number`);
      return n;
    };
    if (k === '--sizes') o.sizes = v ?? fail('--sizes takes NxP,...');
    else if (k === '--speed') o.speed = v === 'max' ? 'max' : num();
    else if (k === '--timeout') o.timeout = num();
    else if (k === '--steady') o.steady = num();
    else if (k === '--clicks') o.clicks = num();
    else if (k === '--load-runs') o.loadRuns = num();
    else if (k === '--seed') o.seed = num();
    else if (k === '--open' && (v === 'file' || v === 'control')) o.open = v;
    else fail(`unknown argument ${k}`);
  }
  o.sizes =
    o.sizes === 'none'
      ? []
      : o.sizes.split(',').map((s) => {
          const m = s.trim().match(/^(\d+)x(\d+)$/);
          if (!m) fail(`--sizes: ${JSON.stringify(s)} is not NODESxPODS`);
          return { nodes: Number(m[1]), pods: Number(m[2]) };
        });
  return o;
}

function fail(msg) {
  console.error(`bench-scale: ${msg}\n${USAGE}`);
  process.exit(2);
}

/** The cluster as a scenario file: N nodes of the default shape and `kubeloop bench`'s Deployments (100 pods each). */
export function scaleScenario(nodes, pods, seed, per = 100) {
  const lines = [`seed: ${seed}`, 'cluster:', `  nodes: ${nodes}`, 'manifests: |'];
  for (let i = 0; i * per < pods; i++) {
    const replicas = Math.min(per, pods - i * per);
    lines.push(
      '  ---',
      '  apiVersion: apps/v1',
      '  kind: Deployment',
      '  metadata:',
      `    name: app-${i}`,
      '  spec:',
      `    replicas: ${replicas}`,
      '    selector:',
      '      matchLabels:',
      `        app: app-${i}`,
      '    template:',
      '      metadata:',
      '        labels:',
      `          app: app-${i}`,
      '      spec:',
      '        containers:',
      '        - name: app',
      `          image: registry.example/app:${i}`,
      '          resources:',
      '            requests:',
      '              cpu: 10m',
      '              memory: 16Mi',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Runs in the page before its own scripts: records long tasks, the loader's start, readiness and the wasm module. */
function recorders() {
  const kl = (window.__kl = { long: [], started: null, ready: null, wasm: null, click: null });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) kl.long.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
  // trunk's loader says when the module is instantiated and its main has run, with the module's exports.
  addEventListener('TrunkApplicationStarted', (e) => {
    kl.started = performance.now();
    kl.wasm = (e.detail && e.detail.wasm) || null;
  });
  new MutationObserver(() => {
    if (kl.ready === null && document.body && document.body.getAttribute('data-ready') === 'true') kl.ready = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
  // The click being measured: when the browser took it (the event's own time stamp, before any queueing).
  addEventListener('pointerdown', (e) => (kl.click = e.timeStamp), { capture: true });
}

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const median = (xs) => pct(xs, 50);
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : '-');
const frames = (d) =>
  d.length ? `${d.length} frames: p50 ${ms(pct(d, 50))}, p95 ${ms(pct(d, 95))}, p99 ${ms(pct(d, 99))}, max ${ms(Math.max(...d))}` : 'no frames';

/** Load to ready: the default page opened `runs` times; the medians of where the time went. */
async function load(browser, runs) {
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const { page, context, problems } = await openPage(browser, '', { init: recorders });
    try {
      const r = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const res = performance.getEntriesByType('resource');
        const wasm = res.find((e) => e.name.endsWith('.wasm'));
        const js = res.find((e) => /kubeloop-web.*\.js$/.test(e.name));
        const marks = Object.fromEntries(
          performance.getEntriesByType('mark').filter((m) => m.name.startsWith('kubeloop')).map((m) => [m.name, m.startTime]),
        );
        return {
          html: nav ? nav.responseEnd : NaN,
          jsEnd: js ? js.responseEnd : NaN,
          wasmStart: wasm ? wasm.startTime : NaN,
          wasmEnd: wasm ? wasm.responseEnd : NaN,
          wasmBytes: wasm ? wasm.encodedBodySize : NaN,
          started: window.__kl.started ?? NaN,
          ready: window.__kl.ready ?? NaN,
          marks,
        };
      });
      assertPageAlive(problems);
      rows.push(r);
    } finally {
      await context.close();
    }
  }
  const m = (f) => median(rows.map(f).filter(Number.isFinite));
  console.log(`load to ready, the default page, median of ${runs} (ms from navigation start):`);
  console.log(`  html received             ${ms(m((r) => r.html))}`);
  console.log(`  loader (js) received      ${ms(m((r) => r.jsEnd))}`);
  console.log(`  wasm fetched              ${ms(m((r) => r.wasmStart))} -> ${ms(m((r) => r.wasmEnd))} (${m((r) => r.wasmBytes)} bytes over the wire)`);
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.marks)))].sort((a, b) => m((r) => r.marks[a]) - m((r) => r.marks[b]));
  for (const n of names) console.log(`  ${n.padEnd(26)}${ms(m((r) => r.marks[n]))}`);
  console.log(`  module started (trunk)    ${ms(m((r) => r.started))}`);
  console.log(`  ready (body[data-ready])  ${ms(m((r) => r.ready))}   (each run: ${rows.map((r) => Math.round(r.ready)).join(', ')})`);
}

/** The summary's counts: pods Running and Pending, nodes. */
const counts = (page) =>
  page.evaluate(() => {
    const int = (id) => Number((document.querySelector(`[data-testid=${id}]`)?.textContent ?? '').replace(/\D/g, '') || NaN);
    return { running: int('summary-pods-running'), pending: int('summary-pods-pending') };
  });

/** Opens the cluster: a scenario file, or the size control. Returns the wall ms until the page shows it. */
async function openCluster(page, { nodes, pods }, seed, how) {
  const t0 = Date.now();
  if (how === 'control') {
    await openClusterTools(page);
    await page.locator('[data-testid=cluster-size-nodes]').fill(String(nodes));
    await page.locator('[data-testid=cluster-size-pods]').fill(String(pods));
    await page.locator('[data-testid=cluster-size-start]').click();
  } else {
    const buffer = Buffer.from(scaleScenario(nodes, pods, seed));
    await page.locator('[data-testid=import-scenario]').setInputFiles({ name: `scale-${nodes}x${pods}.yaml`, mimeType: 'text/yaml', buffer });
  }
  await page.waitForFunction(
    (n) => {
      const b = document.querySelector('[data-testid=summary-nodes-ready]')?.parentElement?.textContent ?? '';
      return b.endsWith(`/${n}`);
    },
    nodes,
    { timeout: 600_000, polling: 250 },
  );
  return Date.now() - t0;
}

/**
 * Records frames in the page until `done` (every pod Running, none Pending) or `limit` wall ms. Returns the rAF
 * deltas, whether it converged, the wall ms and the simulated seconds it took (from the page's own clock).
 */
function watch(page, pods, limit, untilConverged) {
  return page.evaluate(
    ({ pods, limit, untilConverged }) =>
      new Promise((resolve) => {
        const int = (id) => Number((document.querySelector(`[data-testid=${id}]`)?.textContent ?? '').replace(/\D/g, '') || NaN);
        const sim = () => {
          const t = document.querySelector('[data-testid=sim-time]')?.textContent ?? '';
          const m = t.replace(/,/g, '').match(/\d+(?:\.\d+)?/);
          return m ? Number(m[0]) * (/\bmin\b|\dm\b/.test(t) ? 60 : 1) : NaN;
        };
        const t0 = performance.now();
        const s0 = sim();
        const deltas = [];
        let last = t0;
        const tick = (ts) => {
          deltas.push(ts - last);
          last = ts;
          const now = performance.now();
          const converged = untilConverged && int('summary-pods-running') === pods && int('summary-pods-pending') === 0;
          if (converged || now - t0 > limit) {
            resolve({ deltas: deltas.slice(1), converged, wall: now - t0, sim0: s0, sim1: sim(), long: window.__kl.long.filter(([s]) => s >= t0) });
          } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    { pods, limit, untilConverged },
  );
}

/** One click and the wall ms from the browser taking it to the frame that shows `selector` (dis)appear. */
async function clickLatency(page, click, selector, present) {
  await page.evaluate(() => (window.__kl.click = null));
  const answered = page.evaluate(
    ({ selector, present }) =>
      new Promise((resolve) => {
        const t0 = performance.now();
        const tick = () => {
          const k = window.__kl.click;
          if (k !== null && !!document.querySelector(selector) === present) resolve(performance.now() - k);
          else if (performance.now() - t0 > 60_000) resolve(NaN);
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    { selector, present },
  );
  answered.catch(() => {});
  await click();
  return answered;
}

/** Opens the first node's details and closes them again: two click latencies. */
async function probeClicks(page) {
  const canvas = page.locator('[data-testid=cluster-canvas]');
  // The first node's cell: the canvas's top scrolled to the top of the cluster's scrolling body.
  const open = (await canvas.count())
    ? async () => {
        await canvas.evaluate((c) => c.scrollIntoView({ block: 'start' }));
        // The mouse at the cell itself: a locator's click would scroll the tall canvas's middle into view.
        const box = await canvas.boundingBox();
        // A point of the canvas the person can see: not under the console, not out of the window.
        const seen = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.dataset?.testid === 'cluster-canvas', { x: box.x + 5, y: box.y + 5 });
        if (!seen) throw new Error(`the first node's cell (${Math.round(box.x + 5)}, ${Math.round(box.y + 5)}) is not in sight: nothing to click`);
        await page.mouse.click(box.x + 5, box.y + 5);
      }
    : () => page.locator('[data-testid=node] .node-head').first().click();
  let a;
  try {
    a = await clickLatency(page, open, '[data-testid=node-detail]', true);
  } catch (e) {
    if (!/not in sight/.test(e.message)) throw e;
    console.log(`  no click: ${e.message}`);
    return [];
  }
  // No answer within a minute (NaN): the panel is not there to close.
  const close = page.locator('button[aria-label="Close details"]');
  if (!(await close.count())) return [a];
  const b = await clickLatency(page, () => close.click(), '[data-testid=node-detail]', false);
  return [a, b];
}

async function size(browser, s, o) {
  const { page, context, problems } = await openPage(browser, '', { init: recorders });
  try {
    const opened = await openCluster(page, s, o.seed, o.open);
    // "max": as fast as the frame budget lets the engine run (the speed selector's last choice).
    if (o.speed === 'max') await page.locator('[data-testid=speed]').first().selectOption({ value: 'max' });
    else await setSpeed(page, o.speed);
    const startSim = await setPlaying(page, true);
    const wall0 = Date.now();
    const clicks = [];
    let done = false;
    let last = null;
    const watching = watch(page, s.pods, o.timeout * 1000, true).finally(() => (done = true));
    watching.catch(() => {});
    // Click while it converges (a click every few seconds, spread over the run), then after; what the page shows
    // is read every 5 s, to say where it was if the tab dies.
    const look = setInterval(async () => {
      try {
        const memory = await page.evaluate(() => window.__kl.wasm?.memory?.buffer?.byteLength ?? NaN);
        last = { ...(await counts(page)), sim: await simTime(page), wall: (Date.now() - wall0) / 1000, memory };
      } catch {}
    }, 5000);
    try {
      for (let i = 0; i < o.clicks && !done; i++) {
        await new Promise((r) => setTimeout(r, 4000));
        if (!done) clicks.push(...(await probeClicks(page)));
      }
      await watching;
    } catch (e) {
      if (!problems.crashed && !page.isClosed()) throw e;
      console.log(`${s.nodes} nodes / ${s.pods} pods at speed ${o.speed}: the page crashed (${e.message.split('\n')[0]})`);
      if (last) {
        console.log(
          `  last seen ${last.wall.toFixed(0)} s after play: ${last.running} Running, ${last.pending} Pending at ${last.sim} s simulated; ` +
            `wasm memory ${(last.memory / 2 ** 20).toFixed(0)} MiB`,
        );
      }
      console.log(`  clicks before: ${clicks.map(Math.round).join(', ') || '-'} ms`);
      return;
    } finally {
      clearInterval(look);
    }
    const run = await watching;
    const { running, pending } = await counts(page);
    const steady = await watch(page, s.pods, o.steady * 1000, false);
    const after = [];
    for (let i = 0; i < Math.min(2, o.clicks); i++) after.push(...(await probeClicks(page)));
    const memory = await page.evaluate(() => window.__kl.wasm?.memory?.buffer?.byteLength ?? NaN);
    assertPageAlive(problems);
    const title = `${s.nodes} nodes / ${s.pods} pods at speed ${o.speed} (seed ${o.seed}, opened by ${o.open === 'file' ? 'a scenario file' : 'the size control'})`;
    console.log(title);
    console.log(`  opened (built, shown):      ${ms(opened)}`);
    const simS = run.sim1 - startSim;
    if (run.converged) {
      console.log(`  converged:                  after ${(run.wall / 1000).toFixed(1)} s wall, ${simS.toFixed(1)} s simulated (${(simS / (run.wall / 1000)).toFixed(1)}x)`);
    } else {
      console.log(`  converged:                  no, after ${(run.wall / 1000).toFixed(1)} s wall (${simS.toFixed(1)} s simulated): ${running} Running, ${pending} Pending`);
    }
    console.log(`  frames while converging:    ${frames(run.deltas)}`);
    const longest = [...run.long].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([, d]) => Math.round(d));
    console.log(`  long tasks while converging: ${run.long.length}, longest ${longest.join(', ') || '-'} ms`);
    const rate = (steady.sim1 - steady.sim0) / (steady.wall / 1000);
    console.log(`  after (${o.steady} s):              ${frames(steady.deltas)}; simulated ${rate.toFixed(1)}x real time`);
    console.log(`  long tasks after:           ${steady.long.length}, longest ${Math.round(Math.max(0, ...steady.long.map(([, d]) => d)))} ms`);
    console.log(`  clicks while converging:    ${clicks.map(Math.round).join(', ') || '-'} ms (median ${ms(median(clicks))}, max ${ms(Math.max(...clicks))})`);
    console.log(`  clicks after:               ${after.map(Math.round).join(', ') || '-'} ms`);
    console.log(`  wasm memory:                ${(memory / 2 ** 20).toFixed(0)} MiB (WebAssembly.Memory buffer)`);
    console.log(`  wall from play to here:     ${((Date.now() - wall0) / 1000).toFixed(0)} s`);
  } catch (e) {
    e.message += `\n(page: ${describeProblems(problems)})`;
    throw e;
  } finally {
    await context.close();
  }
}

const o = parseArgs(process.argv.slice(2));
const browser = await launchBrowser();
try {
  if (o.loadRuns > 0) await load(browser, o.loadRuns);
  for (const s of o.sizes) await size(browser, s, o);
} finally {
  await browser.close();
}
