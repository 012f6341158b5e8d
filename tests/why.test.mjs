// "Why?" of a pod (issue 31): a person kills a node, then from the replacement pod's detail asks why it exists and
// follows the chain of causes (cause-chain, one cause per step with data-kind and data-time) back to the kill.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedBrowser, withPage, waitFor, killForReplacement, podByName, SCREENSHOT_DIR,
} from './lib.mjs';
import path from 'node:path';

const LONG = 300_000;
const browser = sharedBrowser();

const KINDS = new Set(['write', 'reconcile', 'queue', 'watch', 'intervention', 'timer', 'resync', 'relist']);

/** The chain as the page shows it. */
const chain = (page) =>
  page.locator('[data-testid=cause]').evaluateAll((els) =>
    els.map((e) => ({ kind: e.dataset.kind, time: Number(e.dataset.time), text: e.textContent })),
  );

test("a replacement pod's why reaches the node the person killed, step by step", { timeout: LONG }, async (t) => {
  await withPage(browser(), '', async (page) => {
    const { victim, replacement } = await killForReplacement(page);
    t.diagnostic(`killed ${victim}; replacement ${replacement.name} on ${replacement.node}`);
    await page.locator(podByName(replacement.name)).first().click();
    const detail = page.locator('[data-testid=pod-detail]');
    await detail.waitFor({ state: 'visible' });
    await detail.locator('[data-testid=why]').click();
    await detail.locator('[data-testid=cause-chain]').waitFor({ state: 'visible' });
    const steps = await chain(page);
    t.diagnostic(steps.map((s) => `${s.time} ${s.kind}`).join(' <- '));
    assert.ok(steps.length >= 5, JSON.stringify(steps));
    for (const s of steps) {
      assert.ok(KINDS.has(s.kind), `data-kind ${s.kind}`);
      assert.ok(Number.isInteger(s.time) && s.time >= 0, `data-time ${s.time}`);
    }
    assert.equal(steps[0].kind, 'write');
    assert.match(steps[0].text, new RegExp(`created Pod default/${replacement.name}`));
    for (const kind of ['reconcile', 'watch', 'timer']) {
      assert.ok(steps.some((s) => s.kind === kind), `a ${kind} step in ${JSON.stringify(steps.map((s) => s.kind))}`);
    }
    const last = steps[steps.length - 1];
    assert.equal(last.kind, 'intervention');
    assert.match(last.text, new RegExp(`kill node ${victim}`));
    // What the causes reach back to is said (kubeloop keeps the last writes' only).
    assert.match(await detail.locator('[data-testid=cause-kept]').innerText(), /^kubeloop keeps the causes of the last 65,536 writes \(its own bound\): these reach back to [\d.]+ s\.$/);
    // The kill came first: the chain goes back in time.
    assert.ok(last.time <= steps[0].time);
    await page.setViewportSize({ width: 1440, height: 1600 });
    await detail.locator('[data-testid=cause-chain]').scrollIntoViewIfNeeded();
    await detail.screenshot({ path: path.join(SCREENSHOT_DIR, 'why-replacement-pod.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    // A step that wrote the dead node opens it (and scrubs the timeline to its moment).
    await detail.locator(`[data-testid=cause][data-kind=write] button:has-text("Node ${victim}")`).first().click();
    await waitFor(async () => (await page.locator('[data-testid=node-detail] h3').innerText()) === `node/${victim}`, {
      message: 'the node the step wrote',
    });
  });
});
