// The largest manifest the page accepts (4 MiB) in the editor: typing into it stays responsive. Long tasks (the
// browser's PerformanceObserver 'longtask') are measured while typing and applying; the figures are printed for the
// closing notes. Above 256 KiB the editor shows the text unhighlighted (kubeloop's own bound) and counts its lines
// once typing pauses; the highlighted copy and the gutter draw only the visible lines at any size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, sharedBrowser, withPage, waitFor, sel, screenshot, applyResultText } from './lib.mjs';

const browser = sharedBrowser();

/** A manifest of `n` ConfigMaps of about 1 KB each. */
function manifest(n) {
  let doc = '';
  for (let i = 0; i < n; i++) {
    doc += `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  labels:\n    app: big\ndata:\n  key: "${'v'.repeat(900)}"\n`;
  }
  return doc;
}

const longTasks = (page) => page.evaluate(() => window.__long.splice(0));

test('typing into the largest accepted manifest keeps every task under 200 ms', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) window.__long.push(Math.round(e.duration));
      }).observe({ type: 'longtask' });
    });
    const text = manifest(4190); // just under 4 MiB (4,194,304 bytes)
    assert.ok(text.length > 4_180_000 && text.length <= 4 * 1024 * 1024, `${text.length} bytes`);
    const editor = page.locator(sel.editor).first();
    await editor.evaluate((e, v) => {
      e.value = v;
      e.dispatchEvent(new InputEvent('input', { bubbles: true }));
    }, text);
    // The paste settles (the browser lays the text out once; the gutter counts its lines after the pause).
    await page.waitForTimeout(2500);
    const pasted = await longTasks(page);
    await editor.focus();
    await page.waitForTimeout(800);
    await longTasks(page);
    const typed = [];
    for (let i = 0; i < 20; i++) {
      await page.keyboard.type('#');
      await page.waitForTimeout(30);
      typed.push(...(await longTasks(page)));
    }
    await page.waitForTimeout(600);
    const paused = await longTasks(page);
    console.log(`4 MiB manifest: long tasks after the paste ${JSON.stringify(pasted)} ms, while typing 20 characters ${JSON.stringify(typed)} ms, after the pause ${JSON.stringify(paused)} ms`);
    assert.ok(Math.max(0, ...typed) < 200, `a task over 200 ms while typing: ${typed}`);
    assert.ok(Math.max(0, ...paused) < 200, `a task over 200 ms when the gutter caught up: ${paused}`);
    assert.equal((await editor.inputValue()).length, text.length + 20, 'every character arrived');
    await page.locator('[data-testid=apply]').click();
    await waitFor(async () => /error|created/.test(await applyResultText(page)), { timeout: 60_000, message: 'the apply ends' });
    const applying = await longTasks(page);
    console.log(`4 MiB manifest: long tasks while applying ${JSON.stringify(applying)} ms (the apply is not sliced yet)`);
    await screenshot(page, 'bigtext-4mib');
  });
});
