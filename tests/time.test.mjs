// The clock (pause, step, speed) and seeds (?seed=N replays, a bad seed does not kill the page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT,
  sel,
  sharedBrowser,
  withPage,
  waitFor,
  sleep,
  setSpeed,
  simTime,
  clockRate,
  pods,
  nodes,
  waitForRunningPods,
} from './lib.mjs';

const browser = sharedBrowser();

test('pause stops the clock, step advances it while paused, speed 10 runs faster than speed 1', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 1);
    await sleep(300);
    const running = await clockRate(page, 1500);
    assert.ok(running.dSim > 0, `the clock runs once the page is ready (sim-time ${running.t0} -> ${running.t1})`);

    // Pause: the clock stops.
    await page.locator(sel.playPause).first().click();
    await sleep(300);
    const a = await simTime(page);
    await sleep(1000);
    const b = await simTime(page);
    assert.equal(b, a, `paused: sim-time must not move over 1 s wall (${a} -> ${b})`);

    // Step: advances while paused, then stays.
    await page.locator(sel.step).first().click();
    const c = await waitFor(async () => {
      const v = await simTime(page);
      return v > b ? v : null;
    }, { timeout: 5000, message: `step to advance sim-time past ${b}` });
    await sleep(300);
    const c2 = await simTime(page);
    await sleep(1000);
    const c3 = await simTime(page);
    assert.equal(c3, c2, `still paused after a step (${c2} -> ${c3})`);
    t.diagnostic(`step: ${b} -> ${c} (settled ${c2})`);

    // Play at speed 1, then at speed 10, over the same wall interval.
    await page.locator(sel.playPause).first().click();
    await sleep(300);
    const r1 = await clockRate(page, 2000);
    await setSpeed(page, 10);
    await sleep(300);
    const r10 = await clockRate(page, 2000);
    await setSpeed(page, 100);
    await sleep(300);
    const r100 = await clockRate(page, 2000);
    const rate = (r) => r.dSim / r.dWall;
    t.diagnostic(
      `sim seconds per wall second: speed 1 ${rate(r1).toFixed(2)}, speed 10 ${rate(r10).toFixed(2)}, speed 100 ${rate(r100).toFixed(2)}`,
    );
    assert.ok(rate(r1) > 0.3 && rate(r1) < 3, `speed 1 runs at about real time (${rate(r1).toFixed(2)} sim s per wall s)`);
    assert.ok(rate(r10) > 3 * rate(r1), `speed 10 runs > 3x faster than speed 1 (${rate(r10).toFixed(2)} vs ${rate(r1).toFixed(2)})`);
    assert.ok(rate(r100) > 1.5 * rate(r10), `speed 100 runs faster than speed 10 (${rate(r100).toFixed(2)} vs ${rate(r10).toFixed(2)})`);
  });
});

test('?seed=garbage shows the page with a message and keeps running', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '?seed=garbage', async (page) => {
    const text = await page.evaluate(() => document.body.innerText);
    const hit = text.match(/[^\n]*(garbage|invalid|ignor|not a (valid )?(number|seed|integer))[^\n]*/i);
    assert.ok(hit, `the page says something about the bad seed; page text:\n${text.slice(0, 2000)}`);
    t.diagnostic(`message: ${hit[0].trim()}`);
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
  });
});

/** Loads ?seed=N, runs at speed 100 until sim-time >= minTime with 3 Running pods, pauses, returns the names. */
async function namesAfter(seed, minTime) {
  return withPage(browser(), `?seed=${seed}`, async (page) => {
    await setSpeed(page, 100);
    await waitForRunningPods(page, 3);
    await waitFor(async () => (await simTime(page)) >= minTime, { timeout: 60_000, message: `sim-time >= ${minTime}` });
    await page.locator(sel.playPause).first().click();
    await sleep(300);
    const at = await simTime(page);
    await sleep(500);
    assert.equal(await simTime(page), at, 'paused');
    return {
      at,
      pods: (await pods(page)).map((p) => `${p.name} ${p.phase} on ${p.node}`).sort(),
      nodes: (await nodes(page)).map((n) => n.name).sort(),
    };
  });
}

test('the same ?seed=7 twice gives the same pods after the same simulated time', { timeout: TEST_TIMEOUT }, async (t) => {
  const first = await namesAfter(7, 60);
  const second = await namesAfter(7, 60);
  t.diagnostic(`seed 7 at ${first.at} s and ${second.at} s: ${first.pods.join(', ')}`);
  assert.deepEqual(second.nodes, first.nodes, 'same node names');
  assert.deepEqual(second.pods, first.pods, 'same pods (names, phases, nodes)');
  const other = await namesAfter(8, 60);
  t.diagnostic(`seed 8 (for comparison, not asserted): ${other.pods.join(', ')}`);
});
