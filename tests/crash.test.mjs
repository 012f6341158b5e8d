// A panic is not a frozen page: the panic hook shows [data-testid=crash-overlay] with what happened, the seed, the
// run as a scenario file (which `kubeloop run` replays to the hash the page showed), the editor's text, and a
// reload. The panic is triggered through a test-only path (an exported function no control reaches).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  TEST_TIMEOUT, sharedBrowser, withPage, sel, setEditorText, screenshot, kubeloop, runClockPast, waitSimTimePast,
  historyHash, killNode,
} from './lib.mjs';

const browser = sharedBrowser();

test('a panic shows the crash overlay with the seed, the run, the editor text and a reload', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '?seed=5', async (page, problems) => {
    await runClockPast(page, 4);
    await killNode(page, 'node-3');
    await waitSimTimePast(page, 12, 'twelve simulated seconds');
    await page.locator(sel.playPause).click();
    const hash = await historyHash(page);
    await setEditorText(page, '# my unsaved work\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n');
    const thrown = await page.evaluate(() => {
      try {
        window.wasmBindings.kubeloop_test_panic();
        return 'returned';
      } catch (e) {
        return String(e);
      }
    });
    assert.notEqual(thrown, 'returned', 'the panic aborts the call');
    const overlay = page.locator('[data-testid=crash-overlay]');
    await overlay.waitFor({ state: 'visible' });
    assert.match(await overlay.innerText(), /a panic on purpose/);
    assert.equal((await page.locator('[data-testid=crash-seed]').innerText()).trim(), 'seed 5');
    const run = await page.locator('[data-testid=crash-run]').inputValue();
    assert.match(run, /killNode/, run);
    assert.equal(await page.locator('[data-testid=crash-editor]').inputValue(), '# my unsaved work\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n');
    assert.equal(await page.locator('[data-testid=crash-export]').getAttribute('download'), 'kubeloop-crash.yaml');
    await screenshot(page, 'crash-overlay');
    // The run in the overlay is the run the page showed.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'kubeloop-crash-')), 'crash.yaml');
    writeFileSync(file, run);
    assert.match(kubeloop(['run', file, '--quiet']), new RegExp(`history hash ${hash}`), run);
    // Reload gives a working page again.
    await Promise.all([page.waitForNavigation(), page.locator('[data-testid=crash-reload]').click()]);
    await page.waitForSelector(sel.ready, { state: 'attached' });
    assert.equal(await overlay.count(), 0);
    problems.consoleErrors.length = 0;
  });
});
