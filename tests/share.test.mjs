// Links that hold a run: [data-testid=share-link] makes one and shows it in [data-testid=share-url]; opened in a new
// tab, it replays to the same simulated time and history hash and pauses there. `kubeloop run LINK` replays the
// same link natively, `kubeloop link FILE` makes one the page opens, every lesson and example has a link of its own
// (docs/sharing.md lists them), and a scenario file dropped on the page opens as the file picker opens it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  TEST_TIMEOUT, BASE_URL, ROOT, sharedBrowser, withPage, waitFor, setControl, nodeByName, kubectl, screenshot,
  simTime, sel, kubeloop, setEditorText, clickApply, applyResultText, runClockPast, waitSimTimePast, historyHash,
  printedHash, killNode,
} from './lib.mjs';

const browser = sharedBrowser();

/** Waits until the page shows `hash`, then checks that it stays paused there. */
async function pausedAt(page, hash, what) {
  await waitFor(async () => (await historyHash(page)) === hash, {
    timeout: 60_000,
    message: async () => `${what}: the page's hash ${await historyHash(page)} is ${hash}`,
  });
  const t = await simTime(page);
  await page.waitForTimeout(400);
  assert.equal(await simTime(page), t, `${what}: paused`);
  assert.equal(await historyHash(page), hash, `${what}: still the same run`);
  return t;
}

async function podNames(page) {
  return page.$$eval(sel.pod, (els) => els.map((e) => `${e.getAttribute('data-name')}@${e.getAttribute('data-node')}`).sort());
}

test('a share link opened in a new tab shows the same pods, time and hash, paused; kubeloop run replays it', { timeout: TEST_TIMEOUT }, async () => {
  let url;
  let hash;
  let t;
  let shown;
  await withPage(browser(), '?seed=11', async (page) => {
    await runClockPast(page, 5);
    await killNode(page, 'node-2');
    await kubectl(page, 'kubectl scale deployment web --replicas=6', (o) => /scaled/.test(o));
    await setControl(page, 'drop-watch-events', 30);
    await waitSimTimePast(page, 50, 'fifty simulated seconds');
    await setControl(page, 'drop-watch-events', 0);
    await waitSimTimePast(page, 70, 'seventy simulated seconds');
    await page.locator(sel.playPause).click();
    hash = await historyHash(page);
    t = await simTime(page);
    shown = await podNames(page);
    await page.locator('[data-testid=share-link]').click();
    const input = page.locator('[data-testid=share-url]');
    await waitFor(async () => (await input.count()) > 0 && /#run=/.test(await input.inputValue()), { message: 'the link is shown' });
    url = await input.inputValue();
    assert.ok(url.startsWith(new URL('./', BASE_URL).toString()), `the link is to this page: ${url}`);
    assert.ok(url.endsWith(`&hash=${hash}`), url);
    assert.ok(!url.includes('?seed='), 'the seed is in the run, not in the query');
    await screenshot(page, 'share-link');
  });
  // A new tab (a fresh context: nothing shared but the URL).
  await withPage(browser(), url, async (page) => {
    const at = await pausedAt(page, hash, 'the opened link');
    assert.equal(at, t, 'the same simulated time');
    assert.deepEqual(await podNames(page), shown, 'the same pods on the same nodes');
    assert.equal(await page.locator(nodeByName('node-2')).getAttribute('data-alive'), 'false', 'the killed node is dead');
    const notice = await page.locator('[data-testid=notice]').innerText();
    assert.match(notice, /at the history hash the link says/, notice);
    await screenshot(page, 'share-opened');
    await page.locator(sel.playPause).click();
    await waitSimTimePast(page, t + 1, 'play continues it live');
  });
  // The same link, natively (the browser's DEFLATE read by the runner's).
  assert.equal(printedHash(kubeloop(['run', url, '--quiet'])), hash, 'kubeloop run LINK prints the hash');
});

test('a link kubeloop link made opens at the hash kubeloop run prints; a link pasted into the open tab opens too', { timeout: TEST_TIMEOUT }, async () => {
  const expected = printedHash(kubeloop(['run', 'examples/self-healing.yaml', '--quiet']));
  const fragment = kubeloop(['link', 'examples/self-healing.yaml']).trim();
  assert.match(fragment, /^#run=[A-Za-z0-9_-]+&hash=[0-9a-f]{16}$/);
  await withPage(browser(), '', async (page) => {
    await waitSimTimePast(page, 1, 'the default cluster runs');
    // Pasted into the address bar of the open tab: only the fragment changes, nothing reloads.
    await page.evaluate((f) => {
      window.location.hash = f;
    }, fragment);
    await pausedAt(page, expected, 'the runner-made link');
    await page.evaluate(() => {
      window.location.hash = '#lesson=probes';
    });
    await waitFor(async () => (await page.locator('[data-testid=lesson-panel]').getAttribute('data-lesson')) === 'probes', {
      message: 'the lesson link opens the lesson',
    });
    assert.equal(await simTime(page), 0, 'at its start, paused');
  });
});

test('every lesson and example of docs/sharing.md opens from its link', { timeout: 600_000 }, async () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'sharing.md'), 'utf8');
  const links = [...doc.matchAll(/`#(lesson|scenario|example)=([a-z0-9-]+)`/g)].map((m) => [m[1], m[2]]);
  const named = (kind) => links.filter(([k]) => k === kind).map(([, n]) => n).sort();
  const files = (dir) => readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')).sort();
  assert.deepEqual(named('lesson'), files('examples/lessons'), 'every lesson has a link');
  assert.deepEqual(named('scenario'), files('examples'), 'every scenario of examples/ has a link');
  await withPage(browser(), '', async (page) => {
    const menu = await page.$$eval('[data-testid=examples] option', (os) => os.map((o) => o.value).filter(Boolean).sort());
    assert.deepEqual(named('example'), menu, 'every example of the menu has a link');
  });
  for (const [kind, name] of links) {
    await withPage(browser(), `#${kind}=${name}`, async (page) => {
      const what = `#${kind}=${name}`;
      if (kind === 'scenario') {
        const expected = printedHash(kubeloop(['run', `examples/${name}.yaml`, '--quiet']));
        await pausedAt(page, expected, what);
      } else if (kind === 'lesson') {
        await waitFor(async () => (await page.locator('[data-testid=lesson-panel]').getAttribute('data-lesson')) === name, { message: what });
        await page.waitForTimeout(300);
        assert.equal(await simTime(page), 0, `${what}: paused at its start`);
      } else {
        await waitFor(async () => /Opened the example/.test(await page.locator('[data-testid=notice]').innerText()), { message: what });
        assert.equal(await simTime(page), 0, `${what}: paused at its start`);
      }
      if (name === 'node-failure') await screenshot(page, 'share-scenario-link');
    });
  }
});

test('a scenario file dropped on the page opens; a broken link says why and changes nothing', { timeout: TEST_TIMEOUT }, async () => {
  const file = path.join(ROOT, 'examples', 'unschedulable.yaml');
  const expected = printedHash(kubeloop(['run', file, '--quiet']));
  await withPage(browser(), '', async (page) => {
    const text = readFileSync(file, 'utf8');
    await page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'unschedulable.yaml', { type: 'application/yaml' }));
      document.querySelector('.app').dispatchEvent(new DragEvent('dragenter', { bubbles: true, cancelable: true, dataTransfer: dt }));
      window.__drop = dt;
    }, text);
    const zone = page.locator('[data-testid=drop-zone]');
    await zone.waitFor({ state: 'visible' });
    await screenshot(page, 'share-drop-zone');
    await page.evaluate(() => {
      const zone = document.querySelector('[data-testid=drop-zone]');
      zone.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: window.__drop }));
      zone.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: window.__drop }));
    });
    await pausedAt(page, expected, 'the dropped file');
    assert.equal(await zone.count(), 0, 'the drop zone is gone');
  });
  await withPage(browser(), '#run=AAAA&hash=0123456789abcdef', async (page) => {
    await waitFor(async () => /The link does not open/.test(await page.locator('[data-testid=notice]').innerText()), {
      message: 'a broken link says so',
    });
    const notice = await page.locator('[data-testid=notice]').innerText();
    assert.match(notice, /not DEFLATE data/, notice);
    assert.equal(await simTime(page), 0, 'paused at the starting cluster');
    await page.locator(sel.playPause).click();
    await waitSimTimePast(page, 1, 'the page still runs');
  });
});

test('a run too large for a link says so and points to export', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    // 96 KiB of random letters in a ConfigMap: DEFLATE cannot make that fit in 64 KiB of base64url.
    const noise = Array.from(randomBytes(96 * 1024), (b) => String.fromCharCode(97 + (b % 26))).join('');
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: noise\ndata:\n  noise: ${noise}\n`;
    await setEditorText(page, yaml);
    await clickApply(page);
    await waitFor(async () => /configmap\/noise created/.test(await applyResultText(page)), { message: 'the ConfigMap is applied' });
    await page.locator('[data-testid=share-link]').click();
    const bar = page.locator('[data-testid=share-bar]');
    await waitFor(async () => /too large for a link/.test(await bar.innerText()), { message: 'the bar says the run is too large' });
    assert.match(await bar.innerText(), /export it as a file instead/);
    assert.equal(await page.locator('[data-testid=share-url]').count(), 0, 'no link is shown');
    await screenshot(page, 'share-too-large');
  });
});
