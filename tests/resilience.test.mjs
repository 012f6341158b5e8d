// The page does not lose work: a reload brings back the editor's text, the console's history and the run (paused
// where it was); Reset ([data-testid=reset-default]) goes back to the default after asking; a stored session that
// does not read gives a message and a working page; text the page replaces (a lesson) stays recoverable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, BASE_URL, sharedBrowser, withPage, waitFor, nodeByName, kubectl, kubectlInput, simTime, sel,
  setEditorText, editorText, screenshot, runClockPast, waitSimTimePast, historyHash, killNode, waitForKeptSession,
} from './lib.mjs';

const browser = sharedBrowser();
const MINE = '# my work in progress\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\ndata:\n  a: "1"\n';
const notice = async (page) => ((await page.locator('[data-testid=notice]').count()) ? page.locator('[data-testid=notice]').innerText() : '');

test('a reload brings back the editor text, the console history and the run; Reset goes back to the default', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '?seed=3', async (page) => {
    await runClockPast(page, 4);
    await killNode(page, 'node-2');
    await kubectl(page, 'kubectl scale deployment web --replicas=5', (o) => /scaled/.test(o));
    await setEditorText(page, MINE);
    await waitSimTimePast(page, 20, 'twenty simulated seconds');
    await page.locator(sel.playPause).click();
    const t = await simTime(page);
    const hash = await historyHash(page);
    // The session is written every 2 s and when the page is hidden or left: here, once it holds the paused run.
    await waitForKeptSession(page, (s) => s?.editor === MINE && s.playing === false, 'the session kept with the text and the paused run');
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector(sel.ready, { state: 'attached' });
    await waitFor(async () => /Restored your last session/.test(await notice(page)), { message: 'the notice says so' });
    assert.equal(await editorText(page), MINE, 'the editor text');
    assert.equal(await simTime(page), t, 'the run, paused where it was');
    assert.equal(await historyHash(page), hash);
    assert.equal(await page.locator(nodeByName('node-2')).getAttribute('data-alive'), 'false');
    assert.match(await page.locator('.console-panel').innerText(), /kubectl scale deployment web --replicas=5[\s\S]*scaled/);
    await kubectlInput(page).focus();
    await page.keyboard.press('ArrowUp');
    assert.equal(await kubectlInput(page).inputValue(), 'kubectl scale deployment web --replicas=5', 'Up recalls it');
    await screenshot(page, 'resilience-restored');

    // Reset asks first (work would be lost), then opens the default page.
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      d.dismiss();
    });
    await page.locator('[data-testid=reset-default]').click();
    await waitFor(() => asked !== '', { message: 'Reset asks' });
    assert.equal(await editorText(page), MINE, 'dismissed: nothing changed');
    page.once('dialog', (d) => d.accept());
    await Promise.all([page.waitForNavigation(), page.locator('[data-testid=reset-default]').click()]);
    await page.waitForSelector(sel.ready, { state: 'attached' });
    assert.match(await editorText(page), /# A web tier: 3 nginx replicas/);
    assert.doesNotMatch(page.url(), /seed=/);
    assert.equal(await page.locator(nodeByName('node-2')).getAttribute('data-alive'), 'true');
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector(sel.ready, { state: 'attached' });
    assert.doesNotMatch(await notice(page), /Restored/, 'nothing kept after Reset');
  });
});

test('a stored session that does not read gives a message and a working page', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    for (const [value, said] of [
      ['{not json', /not restored: it is not JSON/],
      ['{"version": 99, "editor": "x"}', /not restored: it was written by another version/],
      ['x'.repeat(4_200_000), /not restored: it is 4200000 characters, more than kubeloop keeps/],
    ]) {
      // Written from another page of the same origin (the playground itself keeps its session on leaving).
      await page.goto(new URL('/', BASE_URL).toString());
      await page.evaluate((v) => localStorage.setItem('kubeloop.session.v1', v), value);
      await page.goto(BASE_URL, { waitUntil: 'load' });
      await page.waitForSelector(sel.ready, { state: 'attached' });
      await waitFor(async () => said.test(await notice(page)), { message: `${said}` });
      await waitSimTimePast(page, 1, 'the page runs');
    }
  });
});

test('a lesson started over edited text keeps the text recoverable', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setEditorText(page, MINE);
    await page.locator('[data-testid=lesson][data-lesson=self-healing]').click();
    const bar = page.locator('[data-testid=editor-replaced]');
    await bar.waitFor({ state: 'visible' });
    assert.doesNotMatch(await editorText(page), /my work in progress/, 'the lesson put its manifests in');
    await screenshot(page, 'resilience-replaced');
    await page.locator('[data-testid=editor-restore]').click();
    assert.equal(await editorText(page), MINE, 'restored');
    assert.equal(await bar.count(), 0);
  });
});
