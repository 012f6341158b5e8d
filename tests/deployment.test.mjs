// The default Deployment, kubectl apply from the editor (button and Ctrl+Enter), apply errors, deleting a pod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, sel, sharedBrowser, withPage, waitFor, setSpeed, simTime, pods, nodes, runningPodNames,
  waitForRunningPods, intHook, editorText, setEditorText, clickApply, applySeq, waitSimTime, waitForApplyResult,
  withReplicas, lineOf, deletePod, screenshot,
} from './lib.mjs';

const browser = sharedBrowser();

test('the page gets ready and the default Deployment reaches 3 Running pods', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    const start = Date.now();
    await setSpeed(page, 10);
    const names = await waitForRunningPods(page, 3, 60_000);
    t.diagnostic(`3 Running pods after ${Date.now() - start} ms wall, sim-time ${await simTime(page)} s: ${names}`);
    // Every Running pod is bound to a node the page shows.
    const nodeNames = new Set((await nodes(page)).map((n) => n.name));
    assert.ok(nodeNames.size >= 1, 'no [data-testid=node] elements');
    for (const p of await pods(page)) {
      if (p.phase === 'Running') assert.ok(nodeNames.has(p.node), `pod ${p.name} runs on unknown node "${p.node}"`);
    }
    assert.equal(await intHook(page, 'summary-pods-pending'), 0, 'summary-pods-pending');
    await screenshot(page, '01-default-view');
  });
});

test('apply a changed replica count with the apply button: configured, 5 Running pods', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
    const text = await editorText(page);
    assert.match(text, /kind:\s*Deployment/, 'the editor holds the web Deployment');
    await setEditorText(page, withReplicas(text, 3, 5));
    const result = await clickApply(page);
    assert.match(result, /configured/, `apply-result: ${result}`);
    assert.match(result, /web/, `apply-result names the Deployment: ${result}`);
    await waitForRunningPods(page, 5);
  });
});

test('Ctrl+Enter in the editor applies too', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
    await setEditorText(page, withReplicas(await editorText(page), 3, 5));
    const before = await applySeq(page);
    await page.locator(sel.editor).first().press('Control+Enter');
    const result = await waitForApplyResult(page, before);
    assert.match(result, /configured/, `apply-result after Ctrl+Enter: ${result}`);
    await waitForRunningPods(page, 5);
    // And back down to 2: the surplus pods terminate (30 s grace), 2 stay Running.
    await setEditorText(page, withReplicas(await editorText(page), 5, 2));
    await page.locator(sel.editor).first().press('Control+Enter');
    await waitForRunningPods(page, 2);
  });
});

/**
 * Applies `broken`, expects the outcome `summary` first and an error naming line `line`, then checks that the
 * Deployment's pods did not change for 30 simulated seconds: the failed document is not applied.
 */
async function expectApplyError(page, broken, line, summary, shot) {
  const before = await runningPodNames(page);
  const allBefore = (await pods(page)).map((p) => p.name).sort();
  await setEditorText(page, broken);
  const result = await clickApply(page);
  assert.equal(result.split('\n')[0], summary, `apply-result leads with the outcome counted: ${result}`);
  assert.match(result, new RegExp(`line ${line}(?!\\d)`), `apply-result should name line ${line}: ${result}`);
  assert.doesNotMatch(result, /\bconfigured\b/, `the failed Deployment is not applied: ${result}`);
  if (shot) await screenshot(page, shot);
  // The simulation keeps running after an apply error.
  await waitSimTime(page, 30);
  assert.deepEqual(await runningPodNames(page), before, 'Running pods unchanged after a failed apply');
  assert.deepEqual((await pods(page)).map((p) => p.name).sort(), allBefore, 'no pod created or deleted');
  assert.equal(await intHook(page, 'summary-pods-running'), before.length, 'summary-pods-running unchanged');
  assert.equal(await editorText(page), broken, 'the editor keeps the text that failed');
  return result;
}

const configMap = (name) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;

test('broken YAML: reading stops at it, the documents before it are applied, apply-result names the line', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
    // A ConfigMap, then the Deployment with replicas 3 -> 5 (would create pods) and a syntax error on its image line.
    const lines = `${configMap('before')}---\n${withReplicas(await editorText(page), 3, 5)}`.split('\n');
    const i = lines.findIndex((l) => /^\s*-?\s*image:/.test(l));
    assert.ok(i >= 0, 'the Deployment has an image: line');
    lines[i] = lines[i].replace(/image:.*$/, 'image: nginx: 1.27'); // "mapping values are not allowed here"
    const summary = '1 created, 1 failed (reading stopped at document 2: nothing after it was applied)';
    const result = await expectApplyError(page, lines.join('\n'), i + 1, summary, '03-apply-error');
    assert.match(result, /configmap\/before created/, `the document before the error is applied: ${result}`);
    t.diagnostic(`syntax error: ${result}`);
  });
});

test('a typo in a field name is a strict-decoding error naming its line; that document is not applied', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
    const text = withReplicas(await editorText(page), 3, 5).replace(/\bimage:/, 'imagee:');
    const result = await expectApplyError(page, text, lineOf(text, 'imagee:'), '1 failed', null);
    t.diagnostic(`typo: ${result}`);
  });
});

test('a kind kubeloop does not serve fails only its own document; the outcome leads, warnings are folded below', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
    const widget = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n';
    const text = `${widget}---\n${configMap('settings')}---\n${withReplicas(await editorText(page), 3, 5)}`;
    await setEditorText(page, text);
    const result = await clickApply(page);
    assert.equal(result.split('\n')[0], '1 created, 1 configured, 1 failed', `the outcome counted first: ${result}`);
    assert.match(result, /configmap\/settings created/, result);
    assert.match(result, /deployment\.apps\/web configured/, result);
    assert.match(result, new RegExp(`line ${lineOf(text, 'kind: Widget')}(?!\\d)`), `the failure names its line: ${result}`);
    const details = page.locator(`${sel.applyResult} details`);
    assert.equal(await details.count(), 1, 'the warnings are folded in a <details>');
    assert.equal(await details.first().evaluate((d) => d.open), false, 'folded');
    assert.match(await details.first().locator('summary').textContent(), /^1 warning/);
    await waitForRunningPods(page, 5);
    t.diagnostic(result);
  });
});

test('deleting a pod: it terminates and goes, a replacement with another name runs', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    const original = await waitForRunningPods(page, 3);
    const victim = original[0];
    const how = await deletePod(page, victim);
    t.diagnostic(`deleted ${victim} with the pod-delete ${how}`);
    await waitFor(
      async () => {
        const p = (await pods(page)).find((x) => x.name === victim);
        return !p || p.terminating === 'true';
      },
      { timeout: 10_000, message: `pod ${victim} to be terminating or gone` },
    );
    let running = [];
    await waitFor(
      async () => {
        running = await runningPodNames(page);
        return running.length === 3 && !running.includes(victim) && running.some((n) => !original.includes(n));
      },
      { timeout: 60_000, message: () => `3 Running pods with a replacement for ${victim} (now ${running})` },
    );
    const replacement = running.find((n) => !original.includes(n));
    assert.notEqual(replacement, victim);
    t.diagnostic(`replacement ${replacement}`);
    await waitFor(async () => !(await pods(page)).some((x) => x.name === victim), {
      timeout: 60_000,
      message: `pod ${victim} to be gone after its grace period`,
    });
    await waitForRunningPods(page, 3, 10_000);
  });
});
