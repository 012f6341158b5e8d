// A run is a value: what a person does in the page (clicks, console lines, an apply) is recorded with its simulated
// time, [data-testid=export-scenario] downloads it as a scenario file, and `kubeloop run` on that file prints the
// history hash the page showed in [data-testid=history-hash]. Reads are not recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  TEST_TIMEOUT, ROOT, sharedBrowser, withPage, waitFor, setSpeed, kubectl, screenshot, setEditorText, clickApply,
  editorText, simTime, sel, setControl, kubeloop, pods, runClockPast, waitSimTimePast, historyHash, printedHash,
  killNode,
} from './lib.mjs';

const browser = sharedBrowser();
const kubeloopRun = (file) => kubeloop(['run', file, '--quiet']);

test('a run made by clicks exports as a scenario that kubeloop run replays to the hash the page shows', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await runClockPast(page, 5);
    // Kill a node with its button, scale with the console, read (not recorded), apply from the editor.
    await killNode(page, 'node-2');
    await kubectl(page, 'kubectl scale deployment web --replicas=5', (o) => /scaled/.test(o));
    await kubectl(page, 'kubectl get pods', (o) => /NAME/.test(o));
    await setEditorText(page, (await editorText(page)).replace('replicas: 3', 'replicas: 4'));
    await clickApply(page);
    // Drop watch events for a while (a fault: recorded as the mode/fault action it is).
    await setControl(page, 'drop-watch-events', 40);
    await waitSimTimePast(page, 40, 'forty simulated seconds');
    await setControl(page, 'drop-watch-events', 0);
    await waitSimTimePast(page, 60, 'a minute of simulated time');
    // Pause, read the hash, export.
    await page.locator(sel.playPause).click();
    const hash = await historyHash(page);
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
    await waitSimTimePast(page, 30, 'the replay runs');
    await waitFor(async () => (await page.locator('[data-testid=node][data-name=node-2]').getAttribute('data-alive')) === 'false', {
      timeout: 10_000,
      message: 'the recorded kill came again',
    });
  });
});

test('opening a scenario file replays it to its end, paused, with the hash kubeloop run prints', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    const file = path.join(ROOT, 'examples', 'node-failure.yaml');
    const expected = printedHash(kubeloopRun(file));
    assert.ok(expected, 'kubeloop run prints a history hash');
    await page.locator('[data-testid=import-scenario]').setInputFiles(file);
    await waitFor(async () => (await historyHash(page)) === expected, {
      timeout: 60_000,
      message: async () => `the page's hash ${await historyHash(page)} is ${expected}`,
    });
    const t1 = await simTime(page);
    await page.waitForTimeout(500);
    assert.equal(await simTime(page), t1, 'paused at the end of the scenario');
    await screenshot(page, 'record-imported');
  });
});

test('reads typed in the console while a drain waits on a budget leave the run as kubeloop run has it', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    // The pdb-drain lesson opened at 63 s: node-1 drained, node-2's eviction refused by the budget and retried
    // every 5 s; the drain goes on in the console.
    const lesson = path.join(ROOT, 'examples', 'lessons', 'pdb-drain.yaml');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubeloop-follow-'));
    const file = path.join(dir, 'pdb-drain-63s.yaml');
    writeFileSync(file, readFileSync(lesson, 'utf8').replace(/^until: 5m$/m, 'until: 63s'));
    const opened = printedHash(kubeloopRun(file));
    await page.locator('[data-testid=import-scenario]').setInputFiles(file);
    await waitFor(async () => (await historyHash(page)) === opened, { timeout: 60_000, message: 'the lesson opened at 63 s' });
    // Reads, paused and between steps of the clock; one of them keeps printing too.
    await kubectl(page, 'kubectl get pods', (o) => /NAME/.test(o));
    await kubectl(page, 'kubectl describe pdb web', (o) => /Allowed disruptions/.test(o));
    await page.locator(sel.step).click();
    await kubectl(page, 'kubectl get pods -w', (o) => /NAME/.test(o));
    await page.locator(sel.step).click();
    await kubectl(page, 'kubectl top nodes', (o) => /CPU/.test(o));
    await kubectl(page, 'kubectl get deploy web -o yaml', (o) => /kind: Deployment/.test(o));
    // On with the clock until the budget lets node-2 go, then pause and compare at that simulated time.
    await setSpeed(page, 10);
    await page.locator(sel.playPause).click();
    await waitSimTimePast(page, 90, 'ninety simulated seconds');
    await page.locator(sel.playPause).click();
    await kubectl(page, 'kubectl events', (o) => /LAST SEEN/.test(o));
    const onNode2 = (await pods(page)).filter((p) => p.node === 'node-2' && p.terminating === 'false');
    assert.deepEqual(onNode2, [], 'the drain went on beside the reads: node-2 drained');
    const hash = await historyHash(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=export-scenario]').click()]);
    const exported = path.join(dir, download.suggestedFilename());
    await download.saveAs(exported);
    const text = readFileSync(exported, 'utf8');
    assert.doesNotMatch(text, /for:|get pods|describe|top nodes|events/, `reads are not recorded and interrupt nothing:\n${text}`);
    const until = text.match(/^until: (\S+)$/m)?.[1];
    assert.ok(until, text);
    // The lesson as kubeloop run has it at the same simulated time, without the reads.
    const out = kubeloop(['run', lesson, '--until', until, '--quiet']);
    assert.match(out, new RegExp(`history hash ${hash}`), `kubeloop run to ${until} prints the page's hash ${hash}:\n${out}`);
    await screenshot(page, 'record-drain-with-reads');
  });
});
