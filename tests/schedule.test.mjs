// Why is my pod Pending, and why on that node: the pod detail's scheduling explanation (schedule-explain), one
// row per node (schedule-node) with the filter verdict, the scores and the chosen node, upstream's message for an
// unschedulable pod, and the what-if of the score weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT,
  sharedBrowser,
  withPage,
  waitFor,
  podByName,
  setEditorText,
  clickApply,
  screenshot,
  waitForRunningPods,
  nodes,
  SCREENSHOT_DIR,
} from './lib.mjs';
import path from 'node:path';

/** The pod's detail panel, in a window tall enough to show its scheduling explanation whole. */
async function shoot(page, name) {
  await page.setViewportSize({ width: 1440, height: 1500 });
  await page.locator('[data-testid=schedule-explain]').scrollIntoViewIfNeeded();
  await page.locator('[data-testid=pod-detail]').screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
  await page.setViewportSize({ width: 1440, height: 900 });
}

const browser = sharedBrowser();

/** A bare pod's manifest: its one container's resource requests, bound to `nodeName` if given. */
const podYaml = (name, requests, nodeName) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${nodeName ? `  nodeName: ${nodeName}\n` : ''}  containers:
  - name: c
    image: nginx:1.27
    resources:
      requests:
${Object.entries(requests)
  .map(([k, v]) => `        ${k}: ${JSON.stringify(v)}\n`)
  .join('')}`;

const BIG = podYaml('huge', { cpu: '64' });

const rows = (page) =>
  page.locator('[data-testid=schedule-node]').evaluateAll((els) =>
    els.map((e) => ({
      node: e.dataset.node,
      feasible: e.dataset.feasible,
      reason: e.dataset.reason ?? null,
      score: e.dataset.score === undefined ? null : Number(e.dataset.score),
    })),
  );

test('an unschedulable pod: every node says why, and the message is upstream\'s', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await waitForRunningPods(page, 3);
    const nodeCount = (await nodes(page)).length;
    await setEditorText(page, BIG);
    await clickApply(page);
    await page.locator(podByName('huge')).first().click();
    const explain = page.locator('[data-testid=schedule-explain]');
    await explain.waitFor({ state: 'visible' });
    await waitFor(async () => (await page.locator('[data-testid=schedule-message]').count()) > 0, { message: 'the message' });
    const r = await rows(page);
    assert.equal(r.length, nodeCount);
    for (const n of r) {
      assert.equal(n.feasible, 'false', JSON.stringify(n));
      assert.equal(n.reason, 'Insufficient cpu', JSON.stringify(n));
      assert.equal(n.score, null);
    }
    const msg = await page.locator('[data-testid=schedule-message]').innerText();
    assert.equal(
      msg,
      `0/${nodeCount} nodes are available: ${nodeCount} Insufficient cpu. preemption: 0/${nodeCount} nodes are available: ${nodeCount} No preemption victims found for incoming pod.`,
    );
    // The same message the scheduler wrote in the pod's PodScheduled condition.
    await waitFor(async () => (await page.locator('[data-testid=pod-detail]').innerText()).includes(`Unschedulable: ${msg}`), {
      message: 'the condition carries the same message',
    });
    await screenshot(page, 'schedule-unschedulable');
    await shoot(page, 'schedule-unschedulable-explain');

    // What-if: NodeResourcesFit switched off, the pod would fit every node; across the cluster it is the pod
    // that would go somewhere (from no node).
    const fit = page.locator('[data-testid=schedule-filter][data-plugin=NodeResourcesFit]');
    assert.ok(await fit.isChecked(), 'upstream runs every filter');
    await fit.uncheck();
    await waitFor(async () => ((await explain.getAttribute('data-best')) ?? '') !== '', { message: 'a node with the filter off' });
    assert.equal((await rows(page)).filter((n) => n.feasible === 'true').length, nodeCount);
    assert.match(await page.locator('[data-testid=schedule-whatif]').innerText(), /With upstream's profile: no node\. This what-if changes the placement\./);
    const move = page.locator('[data-testid=schedule-move][data-pod=huge]');
    await move.waitFor({ state: 'visible' });
    assert.equal(await move.getAttribute('data-from'), 'no node');
    await shoot(page, 'schedule-filter-off');
  });
});

test('a running pod: feasible nodes scored, the best marked, and a weight what-if', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    const [name] = await waitForRunningPods(page, 3);
    await page.locator(podByName(name)).first().click();
    await page.locator('[data-testid=schedule-explain]').waitFor({ state: 'visible' });
    const r = await rows(page);
    assert.ok(r.length >= 3, JSON.stringify(r));
    const feasible = r.filter((n) => n.feasible === 'true');
    assert.ok(feasible.length >= 1);
    for (const n of feasible) assert.ok(Number.isInteger(n.score) && n.score >= 0, JSON.stringify(n));
    const best = await page.locator('[data-testid=schedule-explain]').getAttribute('data-best');
    assert.ok(feasible.some((n) => n.node === best), `the best (${best}) is a feasible node`);
    assert.equal(Math.max(...feasible.map((n) => n.score)), feasible.find((n) => n.node === best).score, 'the best has the top total');
    await shoot(page, 'schedule-running-explain');

    // What-if: every score plugin off but PodTopologySpread: the totals change, and the page says what upstream's
    // weights pick.
    const weights = page.locator('[data-testid=schedule-weight]');
    assert.equal(await weights.count(), 4);
    for (const [plugin, w] of [
      ['NodeResourcesFit', '0'],
      ['NodeResourcesBalancedAllocation', '0'],
      ['TaintToleration', '0'],
    ]) {
      const input = page.locator(`[data-testid=schedule-weight][data-plugin=${plugin}]`);
      await input.fill(w);
      await input.dispatchEvent('change');
    }
    await page.locator('[data-testid=schedule-whatif]').waitFor({ state: 'visible' });
    assert.match(await page.locator('[data-testid=schedule-whatif]').innerText(), /With upstream's profile: \S+/);
    const after = await rows(page);
    for (const n of after.filter((x) => x.feasible === 'true')) {
      assert.ok(n.score % 2 === 0 && n.score <= 200, `spread only, weight 2: ${JSON.stringify(n)}`);
    }
    await shoot(page, 'schedule-whatif-explain');
  });
});

const SKEWED = `${podYaml('hog', { cpu: '100m', memory: '12Gi' }, 'node-1')}---\n${podYaml('cruncher', { cpu: '2', memory: '128Mi' })}`;

test('what-if across the cluster: a weight changed names the pods it would place elsewhere', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await waitForRunningPods(page, 3);
    // node-1 holds a memory-heavy pod; a cpu-heavy pod goes elsewhere with upstream's weights (LeastAllocated
    // outweighs BalancedAllocation), to node-1 with BalancedAllocation alone.
    await setEditorText(page, SKEWED);
    await clickApply(page);
    await waitForRunningPods(page, 5);
    const cruncher = page.locator(podByName('cruncher')).first();
    assert.notEqual(await cruncher.getAttribute('data-node'), 'node-1');
    await cruncher.click();
    await page.locator('[data-testid=schedule-explain]').waitFor({ state: 'visible' });
    assert.equal(await page.locator('[data-testid=schedule-moved]').count(), 0, 'nothing to say with upstream\'s weights');
    const input = page.locator('[data-testid=schedule-weight][data-plugin=NodeResourcesFit]');
    await input.fill('0');
    await input.dispatchEvent('change');
    const moved = page.locator('[data-testid=schedule-moved]');
    await moved.waitFor({ state: 'visible' });
    const moves = await page.locator('[data-testid=schedule-move]').evaluateAll((els) =>
      els.map((e) => ({ pod: e.dataset.pod, from: e.dataset.from, to: e.dataset.to })),
    );
    t.diagnostic(`${await moved.innerText()} ${JSON.stringify(moves)}`);
    assert.equal(Number(await moved.getAttribute('data-moved')), moves.length);
    assert.equal(Number(await moved.getAttribute('data-looked')), 5, 'every pod looked at');
    const c = moves.find((m) => m.pod === 'cruncher');
    assert.ok(c && c.to === 'node-1' && c.from !== 'node-1', JSON.stringify(moves));
    assert.equal(await page.locator('[data-testid=schedule-explain]').getAttribute('data-best'), 'node-1');
    await shoot(page, 'schedule-whatif-cluster');
    // Escape closes the panel from the pod clicked (which keeps the focus; a second click would toggle it off).
    await page.locator('[data-testid=pod-detail]').waitFor({ state: 'visible' });
    await cruncher.focus();
    await page.keyboard.press('Escape');
    await waitFor(async () => (await page.locator('[data-testid=pod-detail]').count()) === 0, { message: 'Escape closes the panel' });
  });
});
