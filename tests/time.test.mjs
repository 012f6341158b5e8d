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
  waitSimTime,
  setPlaying,
  pods,
  nodes,
  waitForRunningPods,
} from './lib.mjs';

const browser = sharedBrowser();

/** The simulated seconds the page runs while its (fake) clock moves `ms`. */
async function simSecondsOver(page, ms) {
  const t0 = await simTime(page);
  await page.clock.runFor(ms);
  return (await simTime(page)) - t0;
}

// The page's own clock is Playwright's fake clock (lib.mjs, openPage): paused, it moves only when the test says, so
// what is checked is what the page does with the time it is given, however busy the machine is.
test('pause stops the clock, step advances it while paused, speed N runs N simulated seconds a second', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(
    browser(),
    '',
    async (page) => {
      await setSpeed(page, 1);
      await waitSimTime(page, 0.5);
      await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 100);

      // Pause: the clock stops.
      await page.locator(sel.playPause).first().click();
      await page.clock.runFor(500);
      assert.equal(await page.locator(sel.playPause).first().getAttribute('aria-pressed'), 'false', 'paused');
      assert.equal(await simSecondsOver(page, 2000), 0, 'paused: sim-time does not move');

      // Step: advances while paused, then stays.
      const b = await simTime(page);
      await page.locator(sel.step).first().click();
      await page.clock.runFor(500);
      const c = await simTime(page);
      assert.ok(c > b, `step advances sim-time past ${b} (now ${c})`);
      assert.equal(await simSecondsOver(page, 2000), 0, 'still paused after a step');
      t.diagnostic(`step: ${b} -> ${c}`);

      // Play at speed 1, 10 and 100: each runs that many simulated seconds per second of the page's clock. The shown
      // time is redrawn every 150 ms of it, so over 3.2 s it may be off by up to 0.16 s (times the speed) at each end.
      await page.locator(sel.playPause).first().click();
      const rates = {};
      for (const speed of [1, 10, 100]) {
        await setSpeed(page, speed);
        await page.clock.runFor(500);
        rates[speed] = (await simSecondsOver(page, 3200)) / 3.2;
      }
      t.diagnostic(`simulated seconds per second: ${JSON.stringify(rates)}`);
      for (const [speed, rate] of Object.entries(rates)) {
        assert.ok(Math.abs(rate / speed - 1) < 0.1, `speed ${speed} runs ${speed} simulated seconds a second (${rate.toFixed(2)})`);
      }

      // Given back the wall clock, the page runs on.
      await page.clock.resume();
      await waitSimTime(page, 1);
    },
    { clock: true },
  );
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
    const at = await setPlaying(page, false);
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
