import { before, after } from 'node:test';
// Helpers shared by the browser tests (tests/*.test.mjs).
//
// The tests drive the built playground (dist/) served over HTTP, through the hooks of the UI contract
// (docs/ui-contract.md) only: data-testid elements and the documented data-* attributes.
//
// Environment:
//   KUBELOOP_URL       the page, served from a sub-path (default http://127.0.0.1:8080/kubeloop/)
//   KUBELOOP_CHROMIUM  the browser binary (default /usr/bin/chromium; never downloaded)
//   KUBELOOP_HEADFUL=1 show the browser window (local debugging)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.KUBELOOP_URL || 'http://127.0.0.1:8080/kubeloop/';
/** The repository's root. */
export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

// Per-test budget (node:test `timeout`), generous: the first load compiles the wasm module.
export const TEST_TIMEOUT = 180_000;

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

const sel = {
  ready: 'body[data-ready="true"]',
  editor: '[data-testid=yaml-editor]',
  apply: '[data-testid=apply]',
  applyResult: '[data-testid=apply-result]',
  node: '[data-testid=node]',
  addNode: '[data-testid=add-node]',
  pod: '[data-testid=pod]',
  runningPod: '[data-testid=pod][data-phase=Running][data-terminating=false]',
  podDelete: '[data-testid=pod-delete]',
  playPause: '[data-testid=play-pause]',
  step: '[data-testid=step]',
  speed: '[data-testid=speed]',
  simTime: '[data-testid=sim-time]',
};
export { sel };

/** Quotes a value for a CSS attribute selector. */
export const cssString = (s) => JSON.stringify(String(s));
export const podByName = (name) => `[data-testid=pod][data-name=${cssString(name)}]`;
export const nodeByName = (name) => `[data-testid=node][data-name=${cssString(name)}]`;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Launches the system chromium (one per test file). Playwright gives each launch a fresh temporary
 * --user-data-dir and removes it on close; each test then uses its own isolated context (no shared storage).
 */
/** One browser for the whole test file: launched before its tests, closed after. Returns a getter. */
export function sharedBrowser() {
  let browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  return () => browser;
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.KUBELOOP_CHROMIUM || '/usr/bin/chromium',
    headless: process.env.KUBELOOP_HEADFUL !== '1',
    args: process.env.KUBELOOP_HEADFUL === '1' ? CHROMIUM_ARGS.filter((a) => a !== '--headless') : CHROMIUM_ARGS,
    timeout: 60_000,
  });
}

/** Runs the `kubeloop` CLI with `args` from the repository's root: the binary the test command built, or cargo builds
 * it. Returns its stdout. */
export function kubeloop(args) {
  for (const bin of ['target/debug/kubeloop', 'target/release/kubeloop']) {
    const p = path.join(ROOT, bin);
    if (existsSync(p)) return execFileSync(p, args, { cwd: ROOT, encoding: 'utf8' });
  }
  return execFileSync('cargo', ['run', '-q', '-p', 'kubeloop-cli', '--', ...args], { cwd: ROOT, encoding: 'utf8' });
}

/**
 * Opens the playground in a fresh context (query: e.g. '?seed=7') and waits for body[data-ready="true"].
 * Returns { page, context, problems } where problems collects uncaught page errors, crashes and console errors.
 * With `clock: true` the page's clocks (performance.now, requestAnimationFrame, timers, Date) are Playwright's fake
 * clock, running with the wall clock until the test pauses it (page.clock.pauseAt) and moves it (page.clock.runFor):
 * then the page's frames, and so its simulated clock, advance by the time the test says, however busy the machine.
 * `init`: a function run in the page before its own scripts (context.addInitScript).
 */
export async function openPage(browser, query = '', { waitReady = true, clock = false, init = null, setup = null } = {}) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  // The caller's own preparation of the context before the page opens (routes that hold a file back).
  if (setup) await setup(context);
  if (clock) await context.clock.install();
  // A script of the caller's that runs in the page before its own (the benchmark's recorders).
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const problems = { pageErrors: [], consoleErrors: [], crashed: false, failedRequests: [], csp: [] };
  // Every Content-Security-Policy violation fails the test (assertPageAlive): the page ships a strict policy.
  await context.exposeBinding('__kubeloopCsp', (_source, v) => problems.csp.push(v));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__kubeloopCsp(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  page.on('pageerror', (e) => problems.pageErrors.push(String(e && e.stack ? e.stack : e)));
  page.on('crash', () => {
    problems.crashed = true;
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.consoleErrors.push(m.text());
    if (/Content Security Policy/i.test(m.text())) problems.csp.push(m.text());
  });
  page.on('requestfailed', (r) => problems.failedRequests.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.failedRequests.push(`${r.url()} HTTP ${r.status()}`);
  });
  const url = new URL(query, BASE_URL).toString();
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  if (waitReady) {
    try {
      await page.waitForSelector(sel.ready, { state: 'attached', timeout: 60_000 });
    } catch (e) {
      throw new Error(`${url}: body[data-ready="true"] never appeared; ${describeProblems(problems)}`, { cause: e });
    }
  }
  return { page, context, problems };
}

export function describeProblems(p) {
  const parts = [];
  if (p.crashed) parts.push('the page crashed');
  if (p.pageErrors.length) parts.push(`uncaught errors: ${p.pageErrors.slice(0, 3).join(' | ')}`);
  if (p.failedRequests.length) parts.push(`failed requests: ${p.failedRequests.slice(0, 5).join(' | ')}`);
  if (p.consoleErrors.length) parts.push(`console errors: ${p.consoleErrors.slice(0, 3).join(' | ')}`);
  if (p.csp.length) parts.push(`Content-Security-Policy violations: ${p.csp.slice(0, 3).join(' | ')}`);
  return parts.length ? parts.join('; ') : 'no page errors';
}

/** Fails when the page died: an uncaught exception (a wasm panic traps as one) or a renderer crash. */
export function assertPageAlive(problems) {
  assert.equal(problems.crashed, false, 'the page crashed');
  assert.deepEqual(problems.pageErrors, [], `uncaught page errors: ${problems.pageErrors.join('\n')}`);
  assert.deepEqual(problems.csp, [], `Content-Security-Policy violations: ${problems.csp.join('\n')}`);
}

/**
 * Polls fn() until it returns a truthy value; returns it. Fails with message() (plus the last value).
 *
 * The timeout is a freeze guard, not a speed the page must keep: every wait is for something the page does (a
 * simulated time, a hook's value), never for wall time to pass, and its timeout is at least five times what it
 * takes on a busy 2-core machine. A wait that used more than a fifth of its timeout says so on stderr, with where it
 * was called from, so a guard that has grown tight shows before it fails.
 */
export async function waitFor(fn, { timeout = 60_000, interval = 100, message = 'condition' } = {}) {
  const start = Date.now();
  const deadline = start + timeout;
  let last;
  let lastErr;
  for (;;) {
    try {
      last = await fn();
      if (last) {
        const took = Date.now() - start;
        if (took * 5 > timeout) {
          const where = typeof message === 'string' ? message : (new Error().stack.split('\n')[2] ?? '').trim();
          console.error(`waitFor: "${where}" took ${took} ms of its ${timeout} ms timeout (less than 5x headroom)`);
        }
        return last;
      }
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > deadline) {
      const m = typeof message === 'function' ? await message(last) : message;
      throw new Error(`timed out after ${timeout} ms waiting for ${m}${lastErr ? ` (last error: ${lastErr.message})` : ''}`);
    }
    await sleep(interval);
  }
}

/** Parses an integer out of a hook's text (e.g. "3"). */
export function parseIntStrict(text, what) {
  const m = String(text).trim().match(/-?\d+/);
  assert.ok(m, `${what}: expected an integer, got ${JSON.stringify(text)}`);
  return Number(m[0]);
}

/** Integer text of a [data-testid=...] hook. */
export async function intHook(page, testid) {
  const text = await page.locator(`[data-testid=${testid}]`).first().textContent({ timeout: 10_000 });
  return parseIntStrict(text, `[data-testid=${testid}]`);
}

/** The simulated clock in seconds: the first number in [data-testid=sim-time] (a unit may follow). */
export async function simTime(page) {
  const text = await page.locator(sel.simTime).first().textContent({ timeout: 10_000 });
  const m = String(text).replace(/,/g, '').match(/-?\d+(?:\.\d+)?/);
  assert.ok(m, `[data-testid=sim-time]: expected a number, got ${JSON.stringify(text)}`);
  let v = Number(m[0]);
  // "a number, optionally with a unit": seconds are the contract; accept an explicit ms/min unit too.
  const unit = String(text).slice(m.index + m[0].length).trim();
  if (/^ms\b/.test(unit)) v /= 1000;
  else if (/^(m|min)\b/.test(unit)) v *= 60;
  return v;
}

/** Waits until the simulated clock is past `secs` s; `message` names the wait when it times out. */
export async function waitSimTimePast(page, secs, message, timeout = 60_000) {
  await waitFor(async () => (await simTime(page)) > secs, { timeout, message });
}

/** Plays at 10 times real time and waits until the simulated clock is past `secs` s. */
export async function runClockPast(page, secs) {
  await setSpeed(page, 10);
  await waitSimTimePast(page, secs, 'the clock runs');
}

/** The history hash the page shows now ([data-testid=history-hash]). */
export async function historyHash(page) {
  return (await page.locator('[data-testid=history-hash]').innerText()).trim();
}

/** The history hash in what `kubeloop run` printed (undefined when there is none). */
export const printedHash = (out) => out.match(/history hash ([0-9a-f]{16})/)?.[1];

/** Clicks the named node's [data-testid=node-kill]: its kubelet stops. */
export async function killNode(page, name) {
  await page.locator(nodeByName(name)).locator('[data-testid=node-kill]').click();
}

/** All pods as { name, phase, terminating, node }. */
export async function pods(page) {
  return page.$$eval(sel.pod, (els) =>
    els.map((e) => ({
      name: e.getAttribute('data-name'),
      phase: e.getAttribute('data-phase'),
      terminating: e.getAttribute('data-terminating'),
      node: e.getAttribute('data-node'),
    })),
  );
}

/** Names of the pods that are Running and not terminating, sorted. */
export async function runningPodNames(page) {
  return page.$$eval(sel.runningPod, (els) => els.map((e) => e.getAttribute('data-name')).sort());
}

/** All nodes as { name, ready, alive }. */
export async function nodes(page) {
  return page.$$eval(sel.node, (els) =>
    els.map((e) => ({
      name: e.getAttribute('data-name'),
      ready: e.getAttribute('data-ready'),
      alive: e.getAttribute('data-alive'),
    })),
  );
}

/** Waits for exactly n Running, non-terminating pods and summary-pods-running == n. Returns their names. */
export async function waitForRunningPods(page, n, timeout = 90_000) {
  let names = [];
  let summary;
  await waitFor(
    async () => {
      names = await runningPodNames(page);
      summary = await intHook(page, 'summary-pods-running');
      return names.length === n && summary === n;
    },
    {
      timeout,
      message: async () =>
        `${n} Running pods (pod elements Running+not terminating: ${names.length}, summary-pods-running: ${summary}, ` +
        `sim-time ${await simTime(page).catch(() => '?')}, pods: ${JSON.stringify(await pods(page).catch(() => []))})`,
    },
  );
  return names;
}

/**
 * Selects a speed (1, 10 or 100 times real time) on [data-testid=speed], a <select> or an <input>.
 * For a <select>, the option whose value (or else label) is that number is chosen (e.g. "10", "10x", "×10").
 */
export async function setSpeed(page, factor) {
  const speed = page.locator(sel.speed).first();
  const tag = await speed.evaluate((e) => e.tagName.toLowerCase());
  if (tag === 'select') {
    const options = await speed.evaluate((e) => [...e.options].map((o) => ({ value: o.value, label: o.textContent })));
    const num = (s) => {
      const m = String(s).match(/\d+(?:\.\d+)?/);
      return m ? Number(m[0]) : NaN;
    };
    const opt = options.find((o) => num(o.value) === factor) || options.find((o) => num(o.label) === factor);
    assert.ok(opt, `[data-testid=speed] has no option for ${factor}: ${JSON.stringify(options)}`);
    await speed.selectOption({ value: opt.value });
  } else {
    await speed.fill(String(factor), { force: true });
    await speed.dispatchEvent('input');
    await speed.dispatchEvent('change');
  }
}

/** Replaces the editor's text: fill (which dispatches `input`), plus an explicit `input` event as the contract says. */
export async function setEditorText(page, text) {
  const editor = page.locator(sel.editor).first();
  await editor.fill(text, { force: true });
  await editor.dispatchEvent('input');
  assert.equal(await editor.inputValue(), text, 'the editor did not keep the text filled in');
}

export async function editorText(page) {
  return page.locator(sel.editor).first().inputValue();
}

export async function applyResultText(page) {
  return (await page.locator(sel.applyResult).first().textContent({ timeout: 10_000 })) ?? '';
}

/** The count of apply outcomes so far ([data-testid=apply-result]'s data-seq): tells two equal outcomes apart. */
export async function applySeq(page) {
  return Number(await page.locator(sel.applyResult).first().getAttribute('data-seq', { timeout: 10_000 }));
}

/** Clicks apply and waits for apply-result to show its outcome. */
export async function clickApply(page) {
  const before = await applySeq(page);
  await page.locator(sel.apply).first().click();
  return waitForApplyResult(page, before);
}

/**
 * Waits for the outcome of the apply asked for after apply-result's data-seq was `before` (a large apply read
 * across frames shows its progress first: the outcome is what follows it). Returns its text.
 */
export async function waitForApplyResult(page, before, predicate = () => true) {
  let text = '';
  await waitFor(
    async () => {
      text = (await applyResultText(page)).trim();
      const reading = (await page.locator('[data-testid=apply-cancel]').count()) > 0;
      return (await applySeq(page)) > before && !reading && text !== '' && predicate(text);
    },
    { timeout: 60_000, message: () => `[data-testid=apply-result] to show an outcome (now ${JSON.stringify(text)})` },
  );
  return text;
}

/** Waits until the simulated clock has moved `secs` past `from` (default: now); returns the time then. */
export async function waitSimTime(page, secs, { from, timeout = 120_000 } = {}) {
  const start = from ?? (await simTime(page));
  let t = start;
  await waitFor(
    async () => {
      t = await simTime(page);
      return t >= start + secs;
    },
    { timeout, interval: 200, message: () => `sim-time >= ${start + secs} s (now ${t})` },
  );
  return t;
}

/**
 * Pauses (or plays) with [data-testid=play-pause] and waits until the page shows it (aria-pressed): the clock shown
 * from then on is the one it stopped at (or runs). Returns the simulated time shown.
 */
export async function setPlaying(page, playing) {
  const button = page.locator(sel.playPause).first();
  if ((await button.getAttribute('aria-pressed')) !== String(playing)) await button.click();
  await waitFor(async () => (await button.getAttribute('aria-pressed')) === String(playing), {
    message: playing ? 'the page plays' : 'the page is paused',
  });
  return simTime(page);
}

export async function screenshot(page, name) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Opens the cluster's row of search and size control ([data-testid=cluster-tools-toggle]) when it is closed (it
 * is, by default, while the cluster is drawn as cards).
 */
export async function openClusterTools(page) {
  const toggle = page.locator('[data-testid=cluster-tools-toggle]');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.locator('[data-testid=cluster-size-nodes]').waitFor({ timeout: 10_000 });
}

/** The kubectl console's input. */
/** The session the page keeps in local storage (written every 2 s and when the page is hidden), or null. */
export async function keptSession(page) {
  const stored = await page.evaluate(() => localStorage.getItem('kubeloop.session.v1'));
  return stored ? JSON.parse(stored) : null;
}

/** Waits until the kept session is one `holds` accepts. */
export async function waitForKeptSession(page, holds, message) {
  await waitFor(async () => holds(await keptSession(page)) || null, { message });
}

export const kubectlInput = (page) => page.locator('[data-testid=kubectl-input]').first();

/** The kubectl console's output: the last command's, as kubectl prints it. */
export async function kubectlOutput(page) {
  return (await page.locator('[data-testid=kubectl-output]').first().textContent({ timeout: 10_000 })) ?? '';
}

/**
 * Types `line` into the kubectl console, presses Enter, and waits for the output to satisfy `done(text)`
 * (default: anything). Returns the output text.
 */
export async function kubectl(page, line, done = () => true, timeout = 30_000) {
  const input = kubectlInput(page);
  await input.fill(line);
  await input.press('Enter');
  let out = '';
  await waitFor(
    async () => {
      out = await kubectlOutput(page);
      return done(out) ? true : null;
    },
    { timeout, message: () => `kubectl-output for "${line}" (now ${JSON.stringify(out)})` },
  );
  return out;
}

/** The web Deployment's editor text with its replica count changed (the default manifest has `replicas: 3`). */
export function withReplicas(text, from, to) {
  const needle = `replicas: ${from}`;
  const count = text.split(needle).length - 1;
  assert.equal(count, 1, `expected exactly one "${needle}" in the editor, found ${count}:\n${text}`);
  return text.replace(needle, `replicas: ${to}`);
}

/**
 * A Deployment `name` of `replicas` nginx:1.27 pods labelled {app: name}; `container`: more lines of its container
 * (YAML indented as the container's `image:`, each line ending in a newline).
 */
export function deploymentYaml(name, replicas, container = '') {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: ${name}
        image: nginx:1.27
${container}`;
}

/** A Service `name` selecting the pods labelled {app: name}; `ports`: the items of its `ports:` list (YAML). */
export function serviceYaml(name, ports) {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector: {app: ${name}}
  ports:
${ports}`;
}

/** 1-based line number of the first line containing `needle`. */
export function lineOf(text, needle) {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `"${needle}" not in the editor text`);
  return i + 1;
}

/**
 * Opens the page in a fresh context, runs body(page, problems), checks that the page did not die, and always
 * closes the context. Failures carry what the page reported (uncaught errors, failed requests, console errors).
 */
export async function withPage(browser, query, body, options = {}) {
  const { page, context, problems } = await openPage(browser, query, options);
  try {
    const r = await body(page, problems);
    assertPageAlive(problems);
    return r;
  } catch (e) {
    e.message += `\n(page: ${describeProblems(problems)})`;
    throw e;
  } finally {
    await context.close();
  }
}

/** Sets an <input> (range or number) or picks a <select> option, firing input and change. */
export async function setControl(page, testid, value) {
  const el = page.locator(`[data-testid=${testid}]`).first();
  const tag = await el.evaluate((e) => e.tagName.toLowerCase());
  if (tag === 'select') {
    await el.selectOption(String(value));
  } else {
    await el.evaluate((e, v) => {
      e.value = v;
      e.dispatchEvent(new Event('input', { bubbles: true }));
      e.dispatchEvent(new Event('change', { bubbles: true }));
    }, String(value));
  }
  assert.equal(await el.inputValue(), String(value), `[data-testid=${testid}] keeps ${value}`);
}

/** Deletes a pod via [data-testid=pod-delete]: inside the pod's element, or in the panel that clicking it opens. */
export async function deletePod(page, name) {
  const pod = page.locator(podByName(name)).first();
  const inner = pod.locator(sel.podDelete);
  if ((await inner.count()) > 0) {
    await pod.hover();
    await inner.first().click();
    return 'inside the pod element';
  }
  await pod.click();
  const button = page.locator(`${sel.podDelete}:visible`).first();
  await button.waitFor({ state: 'visible', timeout: 10_000 });
  await button.click();
  return 'in the detail panel';
}

/** Reasons of the [data-testid=event] rows shown now, added to the set `seen`. */
export async function collectEventReasons(page, seen = new Set()) {
  const reasons = await page.$$eval('[data-testid=event]', (els) => els.map((e) => e.getAttribute('data-reason')));
  for (const r of reasons) if (r) seen.add(r);
  return seen;
}

/**
 * With the fast demo timings at 10x, kills the node of a Running pod and waits for a replacement pod Running elsewhere:
 * the pods before, the node killed (its name and locator) and the replacement.
 */
export async function killForReplacement(page) {
  await setControl(page, 'timing-profile', 'fast-demo');
  await waitFor(async () => /fast demo/.test(await page.locator('[data-testid=notice]').first().textContent()), {
    message: 'the page rebuilt the simulation with the fast demo timings',
  });
  await setSpeed(page, 10);
  await waitForRunningPods(page, 3);
  const before = await pods(page);
  const victim = before.find((p) => p.phase === 'Running').node;
  const node = page.locator(nodeByName(victim)).first();
  await node.hover();
  await node.locator('[data-testid=node-kill]').first().click();
  await waitFor(async () => (await node.getAttribute('data-alive')) === 'false', { message: `${victim} killed` });
  const old = new Set(before.map((p) => p.name));
  let replacement = null;
  await waitFor(
    async () => {
      replacement = (await pods(page)).find((p) => !old.has(p.name) && p.phase === 'Running');
      return Boolean(replacement);
    },
    { timeout: 180_000, message: 'a replacement pod Running' },
  );
  return { before, victim, node, replacement };
}
