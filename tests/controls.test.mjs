// The rest of the UI contract: the control-loop hooks (queues, events, fault knobs, drift, API reads); the
// kubectl console is in kubectl.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, sharedBrowser, withPage, waitFor, setSpeed, intHook, parseIntStrict, runningPodNames,
  waitForRunningPods, editorText, setEditorText, clickApply, withReplicas, setControl,
} from './lib.mjs';

const browser = sharedBrowser();

const CONTROLLERS = ['deployment', 'replicaset', 'scheduler', 'nodelifecycle', 'garbagecollector'];

test('queue-depth per controller, Kubernetes events, drift and api-reads', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    // Events seen so far (the list may be capped, so collect while the Deployment comes up).
    const seen = new Map();
    const collect = async () => {
      const events = await page.$$eval('[data-testid=event]', (els) =>
        els.map((e) => ({
          who: e.getAttribute('data-controller') ?? e.getAttribute('data-source'),
          reason: e.getAttribute('data-reason'),
        })),
      );
      for (const e of events) {
        assert.ok(e.who, 'every [data-testid=event] has data-controller or data-source');
        assert.ok(e.reason, 'every [data-testid=event] has data-reason');
        seen.set(e.reason, e.who);
      }
    };
    await collect();
    await setSpeed(page, 10);
    const want = ['ScalingReplicaSet', 'SuccessfulCreate', 'Scheduled', 'Started'];
    await waitFor(
      async () => {
        await collect();
        return want.every((r) => seen.has(r)) && (await runningPodNames(page)).length === 3;
      },
      { timeout: 60_000, message: () => `events ${want} (seen: ${[...seen.keys()]})` },
    );
    t.diagnostic(`event reasons: ${[...seen].map(([r, w]) => `${w}/${r}`).join(', ')}`);

    const queues = await page.$$eval('[data-testid=queue-depth]', (els) =>
      els.map((e) => ({ controller: e.getAttribute('data-controller'), text: e.textContent })),
    );
    t.diagnostic(`queues: ${JSON.stringify(queues)}`);
    for (const q of queues) {
      assert.ok(CONTROLLERS.includes(q.controller) || /^[a-z]+$/.test(q.controller ?? ''), `queue-depth data-controller ${q.controller}`);
      assert.ok(parseIntStrict(q.text, `queue-depth[${q.controller}]`) >= 0);
    }
    for (const c of ['deployment', 'replicaset', 'scheduler']) {
      assert.ok(queues.some((q) => q.controller === c), `a [data-testid=queue-depth][data-controller=${c}]`);
    }

    assert.equal(await intHook(page, 'drift'), 0, 'no drift without faults');
    const reads0 = await intHook(page, 'api-reads');
    assert.ok(reads0 > 0, `api-reads counts the initial LISTs and watch events (${reads0})`);
    await setEditorText(page, withReplicas(await editorText(page), 3, 5));
    await clickApply(page);
    await waitForRunningPods(page, 5);
    const reads1 = await intHook(page, 'api-reads');
    assert.ok(reads1 > reads0, `api-reads grows as controllers watch the scale-up (${reads0} -> ${reads1})`);
  });
});

test('drop-watch-events (0..100): at 100 % the informer caches drift from the API store', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
    const drop = page.locator('[data-testid=drop-watch-events]').first();
    const info = await drop.evaluate((e) => ({ tag: e.tagName.toLowerCase(), type: e.type, min: e.min, max: e.max }));
    assert.equal(info.tag, 'input', 'drop-watch-events is an <input>');
    assert.ok(['range', 'number'].includes(info.type), `drop-watch-events type ${info.type}`);
    if (info.min !== '') assert.equal(Number(info.min), 0, 'drop-watch-events min');
    if (info.max !== '') assert.equal(Number(info.max), 100, 'drop-watch-events max');
    assert.equal(await intHook(page, 'drift'), 0, 'no drift before the fault');

    // Informers that lose every watch event miss the scale-up: their caches differ from the store.
    await setControl(page, 'drop-watch-events', 100);
    await setEditorText(page, withReplicas(await editorText(page), 3, 5));
    await clickApply(page);
    let drift;
    await waitFor(
      async () => {
        drift = await intHook(page, 'drift');
        return drift > 0;
      },
      { timeout: 30_000, message: () => `drift > 0 with 100 % of watch events dropped (drift ${drift})` },
    );
    t.diagnostic(`drift with every watch event dropped: ${drift}`);
  });
});

test('resync-period: an <input> in seconds, 0 disables resync', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    const resync = page.locator('[data-testid=resync-period]').first();
    assert.equal(await resync.count(), 1, 'a [data-testid=resync-period]');
    assert.equal(await resync.evaluate((e) => e.tagName.toLowerCase()), 'input', 'resync-period is an <input>');
    assert.ok(Number.isFinite(Number(await resync.inputValue())), 'resync-period holds seconds');
    await setControl(page, 'resync-period', 0);
    assert.equal(Number(await resync.inputValue()), 0);
  });
});

test('trigger-mode and observe-mode controls', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    for (const [testid, options] of [
      ['trigger-mode', ['level', 'edge']],
      ['observe-mode', ['informer', 'polling']],
    ]) {
      const sel = page.locator(`[data-testid=${testid}]`).first();
      assert.equal(await sel.count(), 1, `a [data-testid=${testid}]`);
      assert.equal(await sel.evaluate((e) => e.tagName.toLowerCase()), 'select', `${testid} is a <select>`);
      const values = await sel.evaluate((e) => [...e.options].map((o) => o.value));
      for (const v of options) assert.ok(values.includes(v), `${testid} has option ${v} (has ${values})`);
      for (const v of [...options].reverse()) await setControl(page, testid, v);
    }
  });
});

test('API reads per minute: the current observe mode next to the last figure of the other', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 100);
    const rate = async (mode) => {
      const text = await page.locator(`[data-testid=api-reads-per-min-${mode}]`).first().textContent();
      const m = String(text).replace(/,/g, '').match(/^(\d+)\/min$/);
      return m ? Number(m[1]) : null;
    };
    await waitFor(async () => rate('informer'), { timeout: 60_000, message: 'an informer reads/min figure' });
    await setControl(page, 'observe-mode', 'polling');
    // From the switch on, the informer figure is the last one measured in that mode; polling is measured anew
    // (10 s to settle, then at least 10 s of samples).
    const informer = await rate('informer');
    assert.ok(informer > 0, `informer reads/min ${informer}`);
    const polling = await waitFor(async () => rate('polling'), { timeout: 60_000, message: 'a polling reads/min figure' });
    assert.equal(await rate('informer'), informer, 'the informer figure stays while polling');
    t.diagnostic(`API reads/min: informer ${informer}, polling ${polling}`);
    assert.ok(polling > informer, `polling ${polling}/min reads more than informers ${informer}/min`);

    // Fault knobs keep their values.
    await setControl(page, 'relist-period', 0);
    await setControl(page, 'conflict-percent', 20);
    await setControl(page, 'api-latency', 15);
    await page.locator('[data-testid=reject-pod-creates]').first().check();
    assert.equal(await page.locator('[data-testid=reject-pod-creates]').first().isChecked(), true);
    await page.locator('[data-testid=disconnect-watches]').first().click();
    await page.locator('[data-testid=force-relist]').first().click();
    await page.locator('[data-testid=reject-pod-creates]').first().uncheck();
  });
});
