// Failure, healing and the seed's lessons, end to end through the page: edge- vs level-triggered with lost watch
// events, a dead node's pods evicted and replaced, the control plane down and back, and every lesson preset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, sharedBrowser, withPage, waitFor, setSpeed, intHook, simTime, waitSimTime, pods, nodes, nodeByName,
  runningPodNames, waitForRunningPods, setControl, deletePod, collectEventReasons, screenshot,
} from './lib.mjs';

const browser = sharedBrowser();
const LONG = 300_000;

/** Clicks a button inside a container (hovering first: some show on hover). */
async function clickInside(container, testid) {
  await container.hover();
  const button = container.locator(`[data-testid=${testid}]`).first();
  await button.waitFor({ state: 'visible', timeout: 10_000 });
  await button.click();
}

test('edge vs level: a deletion lost with the watch events stays lost (no periodic relist, as upstream); after a 410 relist it stays missing when edge-triggered and heals when level-triggered', { timeout: LONG }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    const before = await waitForRunningPods(page, 3);
    await setControl(page, 'trigger-mode', 'edge');
    await setControl(page, 'drop-watch-events', 100);
    const victim = before[0];
    t.diagnostic(`deleting ${victim} ${await deletePod(page, victim)} while every control-plane watch event is dropped`);
    // The kubelet (its watch is not faulted) stops the pod and it goes; the control plane never hears of it.
    await waitFor(async () => !(await pods(page)).some((p) => p.name === victim), {
      timeout: 60_000,
      message: `pod ${victim} gone`,
    });
    await setControl(page, 'drop-watch-events', 0);
    let drift = await intHook(page, 'drift');
    t.diagnostic(`drift after the lost deletion: ${drift}`);
    assert.ok(drift > 0, `the control plane's caches still hold the deleted pod (drift ${drift})`);
    assert.equal((await runningPodNames(page)).length, 2, 'one pod short');

    // As upstream's, nothing relists on a timer: past the watch timeouts (5 to 10 min), the caches are still wrong.
    await setSpeed(page, 100);
    await waitSimTime(page, 660, { from: 0 });
    drift = await intHook(page, 'drift');
    t.diagnostic(`drift at sim-time ${await simTime(page)} s with no periodic relist: ${drift}`);
    assert.ok(drift > 0, `the watches resumed where they were: the lost deletion stays lost (drift ${drift})`);

    // 410 Gone: every control-plane informer LISTs again; the caches are right, the edge-triggered ReplicaSet does
    // nothing (a relist is not a notification).
    await page.locator('[data-testid=force-relist]').first().click();
    await waitFor(
      async () => {
        drift = await intHook(page, 'drift');
        return drift === 0;
      },
      { timeout: 30_000, message: () => `drift back to 0 after the 410 relist (now ${drift})` },
    );
    assert.deepEqual(await runningPodNames(page), before.filter((n) => n !== victim), 'edge: the replica stays missing');
    assert.equal(await intHook(page, 'summary-pods-running'), 2);
    await screenshot(page, 'lesson-edge-stuck');

    // Level-triggered: the next 410 relist makes the ReplicaSet controller look at the whole state; it creates the pod.
    await setControl(page, 'trigger-mode', 'level');
    const switched = await simTime(page);
    await page.locator('[data-testid=force-relist]').first().click();
    await waitForRunningPods(page, 3, 120_000);
    t.diagnostic(`level: healed between sim-time ${switched} s and ${await simTime(page)} s`);
    assert.equal(await intHook(page, 'drift'), 0);
    await screenshot(page, 'lesson-level-healed');
  });
});

test('a killed node (fast demo timings): Ready unknown, NodeNotReady, TaintManagerEviction, its pods replaced elsewhere, then revived', { timeout: LONG }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setControl(page, 'timing-profile', 'fast-demo');
    await waitFor(async () => /Rebuilt the simulation with seed \d+ and the fast demo/.test(await page.locator('[data-testid=notice]').first().textContent()), {
      message: 'the page says it rebuilt the simulation',
    });
    await setSpeed(page, 10);
    const before = await waitForRunningPods(page, 3);
    const all = await pods(page);
    const victimNode = all.find((p) => p.phase === 'Running').node;
    const onVictim = all.filter((p) => p.node === victimNode).map((p) => p.name);
    t.diagnostic(`killing ${victimNode} (pods ${onVictim})`);
    const node = page.locator(nodeByName(victimNode)).first();
    await clickInside(node, 'node-kill');

    const seen = new Set();
    await waitFor(
      async () => {
        await collectEventReasons(page, seen);
        return (await node.getAttribute('data-ready')) === 'unknown';
      },
      { timeout: 60_000, message: async () => `${victimNode} data-ready=unknown (now ${await node.getAttribute('data-ready')})` },
    );
    const taints = await node.locator('[data-testid=node-taint]').evaluateAll((els) => els.map((e) => e.getAttribute('data-taint')));
    assert.ok(taints.some((x) => x.includes('node.kubernetes.io/unreachable')), `unreachable taint shown: ${taints}`);
    await screenshot(page, 'node-unknown-tainted');

    await waitFor(
      async () => {
        await collectEventReasons(page, seen);
        const now = await pods(page);
        const old = now.filter((p) => onVictim.includes(p.name));
        return seen.has('NodeNotReady') && seen.has('TaintManagerEviction') && old.length > 0 && old.every((p) => p.terminating === 'true');
      },
      { timeout: 90_000, message: () => `NodeNotReady + TaintManagerEviction and the pods of ${victimNode} terminating (events seen: ${[...seen]})` },
    );
    let running = [];
    await waitFor(
      async () => {
        running = (await pods(page)).filter((p) => p.phase === 'Running' && p.terminating === 'false');
        return running.length === 3 && running.every((p) => p.node !== victimNode);
      },
      { timeout: 90_000, message: () => `3 Running replacements off ${victimNode} (now ${JSON.stringify(running)})` },
    );
    assert.ok(running.some((p) => !before.includes(p.name)), 'replacements have new names');
    await screenshot(page, 'node-killed-pods-replaced');

    await clickInside(node, 'node-revive');
    await waitFor(async () => (await node.getAttribute('data-ready')) === 'true', {
      timeout: 60_000,
      message: async () => `${victimNode} ready again (now ${await node.getAttribute('data-ready')})`,
    });
    await waitFor(async () => !(await pods(page)).some((p) => onVictim.includes(p.name)), {
      timeout: 60_000,
      message: 'the revived kubelet confirms the evicted pods gone',
    });
    for (const n of await nodes(page)) assert.equal(n.alive, 'true');
  });
});

test('control plane down: with both controller managers crashed a deleted pod is not replaced; one back and it is', { timeout: LONG }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    const before = await waitForRunningPods(page, 3);
    const proc = (name) => page.locator(`[data-testid=process][data-name=${JSON.stringify(name)}]`).first();
    const state = (name) => proc(name).getAttribute('data-state');
    await waitFor(async () => (await state('cp-1')) === 'leader', { timeout: 30_000, message: 'cp-1 leads' });
    assert.equal(await state('cp-2'), 'standby');
    assert.equal(await page.locator('[data-testid=lease-holder]').first().textContent(), 'cp-1');
    for (const name of ['cp-1', 'cp-2']) {
      await page.locator(`[data-testid=process-crash][data-name=${name}]`).first().click();
      await waitFor(async () => (await state(name)) === 'crashed', { timeout: 10_000, message: `${name} crashed` });
    }
    const victim = before[0];
    await deletePod(page, victim);
    await waitFor(async () => !(await pods(page)).some((p) => p.name === victim), { timeout: 60_000, message: `${victim} gone` });
    const t0 = await simTime(page);
    await waitSimTime(page, 60, { from: t0 });
    assert.equal((await runningPodNames(page)).length, 2, 'nothing replaced the pod while no controller manager runs');
    await screenshot(page, 'control-plane-down');

    await page.locator('[data-testid=process-restart][data-name=cp-1]').first().click();
    await waitForRunningPods(page, 3, 90_000);
    assert.equal(await state('cp-1'), 'leader', 'the restarted replica won the Lease');
    assert.equal(await page.locator('[data-testid=lease-holder]').first().textContent(), 'cp-1');
    t.diagnostic(`healed at sim-time ${await simTime(page)} s`);
    await screenshot(page, 'control-plane-back');
  });
});

test('every lesson preset builds its simulation and runs its script', { timeout: 600_000 }, async (t) => {
  await withPage(browser(), '', async (page) => {
    const ids = await page.$$eval('[data-testid=lesson]', (els) => els.map((e) => e.getAttribute('data-lesson')));
    t.diagnostic(`lessons: ${ids}`);
    assert.ok(ids.length >= 8, `the lessons menu (${ids})`);
    for (const id of ids) {
      await page.locator(`[data-testid=lesson][data-lesson=${JSON.stringify(id)}]`).first().click();
      const panel = page.locator(`[data-testid=lesson-panel][data-lesson=${JSON.stringify(id)}]`).first();
      await panel.waitFor({ state: 'visible', timeout: 10_000 });
      await setSpeed(page, 100);
      const steps = panel.locator('[data-testid=lesson-step]');
      const total = await steps.count();
      let done = 0;
      let asked = 0;
      await waitFor(
        async () => {
          // The lesson asks before some steps (the clock holds): predict, and it goes on.
          const ask = panel.locator('[data-testid=lesson-ask]');
          if ((await ask.count()) > 0) {
            await ask.locator('[data-testid=lesson-choice][data-choice="1"]').click();
            asked += 1;
          }
          done = await panel.locator('[data-testid=lesson-step][data-done=true]').count();
          return done === total;
        },
        { timeout: 240_000, interval: 250, message: async () => `${id}: all ${total} steps done (${done}; sim-time ${await simTime(page)})` },
      );
      // A little more time for the last step's consequences, and for every check to say what happened.
      const at = await simTime(page);
      await waitSimTime(page, 30, { from: at });
      const checks = panel.locator('[data-testid=lesson-check]');
      assert.ok(asked >= 1 && (await checks.count()) >= asked, `${id}: asked ${asked}`);
      let states = [];
      await waitFor(
        async () => {
          states = await checks.evaluateAll((els) => els.map((e) => e.dataset.state));
          return states.every((s) => s === 'passed' || s === 'failed');
        },
        { timeout: 120_000, interval: 250, message: async () => `${id}: checks done (${states})` },
      );
      assert.ok(states.every((s) => s === 'passed'), `${id}: every check finds what the lesson says (${states})`);
      const figures = await panel.locator('[data-testid=lesson-figures]').textContent();
      t.diagnostic(`${id}: ${total} steps done at ${at} s; ${figures.replace(/\s+/g, ' ').slice(0, 300)}`);
      await screenshot(page, `lesson-${id}`);
    }
  });
});

test('a lesson asks for a prediction first, holds the clock, then checks what happened', { timeout: LONG }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await page.locator('[data-testid=lesson][data-lesson=self-healing]').click();
    const panel = page.locator('[data-testid=lesson-panel][data-lesson=self-healing]');
    const ask = panel.locator('[data-testid=lesson-ask]');
    await ask.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await ask.getAttribute('data-step'), '0');
    // The clock holds at the step while the question waits.
    const held = await simTime(page);
    await page.waitForTimeout(1500);
    assert.equal(await simTime(page), held, 'the clock holds');
    assert.equal(await panel.locator('[data-testid=lesson-step][data-done=true]').count(), 0);
    assert.equal(await ask.locator('[data-testid=lesson-choice]').count(), 3);
    await screenshot(page, 'lesson-ask');
    // Keyboard: the choices are buttons; the right one is picked with Enter.
    await ask.locator('[data-testid=lesson-choice][data-choice="1"]').focus();
    await page.keyboard.press('Enter');
    const first = panel.locator('[data-testid=lesson-check]').first();
    await waitFor(async () => (await first.getAttribute('data-state')) === 'passed', { timeout: 60_000, message: 'the first check passes' });
    assert.equal(await first.getAttribute('data-right'), 'true');
    assert.match(await first.innerText(), /after \d+(\.\d+)? ?m?s: pods app=web: 3 running \(.*\), 1 created since the step/);
    // The next question: a wrong prediction is told what the control loop does instead.
    await ask.waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await ask.getAttribute('data-step'), '1');
    await ask.locator('[data-testid=lesson-choice][data-choice="1"]').click();
    await setSpeed(page, 100);
    const second = panel.locator('[data-testid=lesson-check]').nth(1);
    await waitFor(async () => (await second.getAttribute('data-state')) === 'passed', { timeout: 120_000, message: 'the node check passes' });
    assert.equal(await second.getAttribute('data-right'), 'false');
    const text = await second.innerText();
    t.diagnostic(text.replace(/\s+/g, ' '));
    assert.match(text, /0 on dead nodes, dead: node-\d/);
    assert.match(text, /What the control loop does: To the other nodes, once the node is Unknown/);
    await screenshot(page, 'lesson-check');
  });
});
