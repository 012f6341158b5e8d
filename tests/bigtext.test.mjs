// The largest manifest the page accepts (4 MiB, 10,000 documents) in the editor, as a person gets it there: pasted
// from the clipboard (Ctrl+V). Long tasks (the browser's PerformanceObserver 'longtask', every main-thread task over
// 50 ms) are measured while pasting, typing, scrolling and applying; the figures are printed for the closing notes,
// and the budget holds: no task over 200 ms.
//
// From 1 MiB the textarea holds a window of about a thousand lines (kubeloop's own bound; a browser's own textarea
// takes 100 to 200 ms a keystroke at 1 to 3 MiB of short lines), the lines outside it kept by the page: a paste that
// large is put in by the page, not the browser. An apply over 64 KiB is read, checked and written a few documents at a
// time across frames with the clock held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, BASE_URL, sharedBrowser, withPage, waitFor, sel, screenshot, applyResultText } from './lib.mjs';

const browser = sharedBrowser();
const LIMIT_MS = 200;

/** 10,000 ConfigMaps of short lines, as real manifests are: just under 4 MiB. */
function shortLines() {
  let doc = '';
  for (let i = 0; i < 10000; i++) {
    doc += `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  namespace: default\n  labels:\n    app: big\n    tier: backend\ndata:\n`;
    for (let k = 0; k < 6; k++) doc += `  key-${k}: "value ${k} of configmap number ${i}"\n`;
  }
  return doc;
}

/** 4,190 ConfigMaps of about 1 KB, each with one long line: just under 4 MiB. */
function longLines() {
  let doc = '';
  for (let i = 0; i < 4190; i++) {
    doc += `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  labels:\n    app: big\ndata:\n  key: "${'v'.repeat(900)}"\n`;
  }
  return doc;
}

async function watchLongTasks(page) {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE_URL).origin });
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__long.push(Math.round(e.duration));
    }).observe({ type: 'longtask' });
  });
}
const longTasks = (page) => page.evaluate(() => window.__long.splice(0));
const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

/** Puts `text` on the clipboard and pastes it over the editor's text (Ctrl+A, Ctrl+V): the long tasks it took. */
async function paste(page, text) {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  const editor = page.locator(sel.editor).first();
  await editor.focus();
  await longTasks(page);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  await waitFor(async () => (await editor.getAttribute('data-window')) !== null, { message: 'the editor holds a window' });
  await page.waitForTimeout(1000);
  return longTasks(page);
}

const windowOf = async (page) => {
  const [a, b] = (await page.locator(sel.editor).first().getAttribute('data-window')).split('-').map(Number);
  return { first: a, last: b };
};

test('pasting, typing into, scrolling and applying the largest accepted manifest: no main-thread task over 200 ms', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await watchLongTasks(page);
    const text = shortLines();
    assert.ok(text.length > 3_900_000 && text.length <= 4 * 1024 * 1024, `${text.length} bytes`);
    const lines = text.split('\n');
    const editor = page.locator(sel.editor).first();

    const pasted = await paste(page, text);
    assert.equal(await editor.getAttribute('data-lines'), String(lines.length));
    const end = await windowOf(page);
    assert.equal(end.last, lines.length, 'after the paste the window holds its end, where the caret is');
    assert.ok(end.last - end.first < 1300, `a window of at most ~1,200 lines: ${end.first}-${end.last}`);

    const typed = [];
    for (let i = 0; i < 20; i++) {
      await page.keyboard.type('#');
      await page.waitForTimeout(30);
      typed.push(...(await longTasks(page)));
    }

    // Scrolled to the middle, the window follows, and it holds the text's own lines there.
    await editor.evaluate((e) => {
      e.parentElement.scrollTop = e.parentElement.scrollHeight / 2;
    });
    await waitFor(async () => (await windowOf(page)).last < end.first, { message: 'the window moved to the middle' });
    const middle = await windowOf(page);
    const shown = (await editor.inputValue()).split('\n');
    assert.deepEqual(shown.slice(0, 40), lines.slice(middle.first - 1, middle.first + 39), 'the window is the text at its lines');
    assert.equal(shown.length, middle.last - middle.first + 1);
    await screenshot(page, 'bigtext-window');
    // Ctrl+Home goes to the first line of the text, not of the window.
    await page.keyboard.press('Control+Home');
    await waitFor(async () => (await windowOf(page)).first === 1, { message: 'Ctrl+Home' });
    await page.keyboard.type('# first\n');
    const scrolled = await longTasks(page);

    await page.locator(sel.apply).click();
    await page.locator('[data-testid=apply-cancel]').waitFor({ state: 'visible' });
    const t0 = await page.locator(sel.simTime).innerText();
    await page.waitForTimeout(150);
    if (await page.locator('[data-testid=apply-cancel]').count()) {
      assert.equal(await page.locator(sel.simTime).innerText(), t0, 'the clock is held while the apply is read');
    }
    await screenshot(page, 'bigtext-applying');
    await waitFor(async () => /created/.test(await applyResultText(page)), { timeout: 90_000, message: 'the apply ends' });
    const applying = await longTasks(page);
    const result = await applyResultText(page);
    assert.match(result, /configmap\/cm-0 created/);
    assert.match(result, /configmap\/cm-9999 created/);
    await screenshot(page, 'bigtext-4mib');

    // Every character typed reached the whole text (Ctrl+A, Ctrl+C copies all of it, not the window).
    await editor.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    const copied = await clipboard(page);
    assert.equal(copied.length, text.length + 20 + '# first\n'.length);
    assert.ok(copied.startsWith('# first\n---\n') && copied.endsWith('"\n' + '#'.repeat(20)), copied.slice(-60));

    console.log(
      `4 MiB, 10,000 documents, ${lines.length} lines: long tasks pasting ${JSON.stringify(pasted)} ms, typing 20 characters ${JSON.stringify(typed)} ms, ` +
        `scrolling and Ctrl+Home ${JSON.stringify(scrolled)} ms, applying ${JSON.stringify(applying)} ms`,
    );
    for (const [what, tasks] of Object.entries({ pasting: pasted, typing: typed, scrolling: scrolled, applying })) {
      assert.ok(Math.max(0, ...tasks) < LIMIT_MS, `a task over ${LIMIT_MS} ms while ${what}: ${tasks}`);
    }
  });
});

test('a 4 MiB text of long lines: pasted within budget; Ctrl+A acts on every line; Cancel applies nothing', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await watchLongTasks(page);
    const text = longLines();
    const pasted = await paste(page, text);
    console.log(`4 MiB of 4,190 documents with 900-character lines: long tasks pasting ${JSON.stringify(pasted)} ms`);
    assert.ok(Math.max(0, ...pasted) < LIMIT_MS, `a task over ${LIMIT_MS} ms while pasting: ${pasted}`);
    const editor = page.locator(sel.editor).first();

    // Apply, and Cancel while it is read: nothing of it is applied.
    const cancelled = await page.evaluate(async () => {
      document.querySelector('[data-testid=apply]').click();
      let cancel = null;
      for (let i = 0; i < 100 && !cancel; i++) {
        await new Promise((r) => setTimeout(r, 2));
        cancel = document.querySelector('[data-testid=apply-cancel]:not([disabled])');
      }
      cancel?.click();
      return cancel !== null;
    });
    assert.ok(cancelled, `Cancel shows while the apply is read: ${(await applyResultText(page)).slice(0, 300)}`);
    await waitFor(async () => /apply cancelled: nothing was applied/.test(await applyResultText(page)), { message: 'cancelled' });
    await page.locator('[data-testid=kubectl-input]').fill('kubectl get configmap cm-1');
    await page.locator('[data-testid=kubectl-input]').press('Enter');
    await waitFor(async () => /NotFound|not found/.test(await page.locator('[data-testid=kubectl-output]').innerText()), {
      message: 'nothing applied',
    });

    // Ctrl+A selects every line: Copy copies them all, Backspace empties the editor (whole again, small).
    await editor.focus();
    await page.keyboard.press('Control+A');
    assert.match(await page.locator('[data-testid=editor-hint]').innerText(), /All 37711 lines selected/);
    await page.keyboard.press('Control+C');
    assert.equal((await clipboard(page)).length, text.length);
    await page.keyboard.press('Backspace');
    await waitFor(async () => (await editor.getAttribute('data-window')) === null, { message: 'whole again' });
    assert.equal(await editor.inputValue(), '');
    await page.keyboard.type('kind: ConfigMap');
    assert.equal(await editor.inputValue(), 'kind: ConfigMap');
  });
});
