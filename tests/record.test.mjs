// A run is a value: what a person does in the page (clicks, console lines, an apply) is recorded with its simulated
// time, [data-testid=export-scenario] downloads it as a scenario file, and `kubeloop run` on that file prints the
// history hash the page showed in [data-testid=history-hash]. Reads are not recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  TEST_TIMEOUT,
  sharedBrowser,
  withPage,
  waitFor,
  setSpeed,
  nodeByName,
  kubectl,
  screenshot,
  setEditorText,
  clickApply,
  editorText,
  simTime,
  sel,
  setControl,
  kubeloop,
} from './lib.mjs';

const browser = sharedBrowser();
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const kubeloopRun = (file) => kubeloop(['run', file, '--quiet']);

test('a run made by clicks exports as a scenario that kubeloop run replays to the hash the page shows', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitFor(async () => (await simTime(page)) > 5, { message: 'the clock runs' });
    // Kill a node with its button, scale with the console, read (not recorded), apply from the editor.
    await page.locator(nodeByName('node-2')).locator('[data-testid=node-kill]').click();
    await kubectl(page, 'kubectl scale deployment web --replicas=5', (o) => /scaled/.test(o));
    await kubectl(page, 'kubectl get pods', (o) => /NAME/.test(o));
    await setEditorText(page, (await editorText(page)).replace('replicas: 3', 'replicas: 4'));
    await clickApply(page);
    // Drop watch events for a while (a fault: recorded as the mode/fault action it is).
    await setControl(page, 'drop-watch-events', 40);
    await waitFor(async () => (await simTime(page)) > 40, { timeout: 60_000, message: 'forty simulated seconds' });
    await setControl(page, 'drop-watch-events', 0);
    await waitFor(async () => (await simTime(page)) > 60, { timeout: 60_000, message: 'a minute of simulated time' });
    // Pause, read the hash, export.
    await page.locator(sel.playPause).click();
    const hash = (await page.locator('[data-testid=history-hash]').innerText()).trim();
    assert.match(hash, /^[0-9a-f]{16}$/, hash);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-testid=export-scenario]').click(),
    ]);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubeloop-export-'));
    const file = path.join(dir, download.suggestedFilename());
    await download.saveAs(file);
    const text = readFileSync(file, 'utf8');
    assert.match(text, /killNode: "node-2"|killNode: node-2/, text);
    assert.match(text, /kubectl: "scale deployment web --replicas=5"|kubectl scale/, text);
    assert.doesNotMatch(text, /get pods/, 'reads are not recorded');
    assert.match(text, /dropWatchEvents: 0\.4/, text);
    const out = kubeloopRun(file);
    assert.match(out, new RegExp(`history hash ${hash}`), `the replay prints the page's hash ${hash}:\n${out}\n${text}`);
    await screenshot(page, 'record-exported');
    // Replay: the same run again from 0 (same seed), its interventions at their times. At speed 1 the clock is seen
    // to go back before the replay can reach where the run was.
    const end = await simTime(page);
    await setSpeed(page, 1);
    await page.locator('[data-testid=replay]').click();
    await waitFor(async () => (await simTime(page)) < end, { message: 'the clock starts again' });
    await setSpeed(page, 10);
    await waitFor(async () => (await simTime(page)) > 30, { timeout: 60_000, message: 'the replay runs' });
    await waitFor(async () => (await page.locator('[data-testid=node][data-name=node-2]').getAttribute('data-alive')) === 'false', {
      timeout: 10_000,
      message: 'the recorded kill came again',
    });
  });
});

test('opening a scenario file replays it to its end, paused, with the hash kubeloop run prints', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    const file = path.join(root, 'examples', 'node-failure.yaml');
    const expected = kubeloopRun(file).match(/history hash ([0-9a-f]{16})/)?.[1];
    assert.ok(expected, 'kubeloop run prints a history hash');
    await page.locator('[data-testid=import-scenario]').setInputFiles(file);
    await waitFor(async () => (await page.locator('[data-testid=history-hash]').innerText()).trim() === expected, {
      timeout: 60_000,
      message: async () => `the page's hash ${await page.locator('[data-testid=history-hash]').innerText()} is ${expected}`,
    });
    const t1 = await simTime(page);
    await page.waitForTimeout(500);
    assert.equal(await simTime(page), t1, 'paused at the end of the scenario');
    await screenshot(page, 'record-imported');
  });
});
