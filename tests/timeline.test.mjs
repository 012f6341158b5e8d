// The timeline (issue 31): a person kills a node, follows the replacement pod's "why" to the kill, scrubs back
// before it and sees the old pods Running on that node, read-only (body[data-scrubbed], sim-time the scrubbed time),
// then goes back to live. A cause step scrubs to its moment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sharedBrowser, withPage, waitFor, killForReplacement, pods, podByName, SCREENSHOT_DIR,
} from './lib.mjs';
import path from 'node:path';

const LONG = 300_000;
const browser = sharedBrowser();

/** Scrubs the timeline to `ms`, as a drag ends: the slider's value, then `input` and `change`. */
const scrubTo = (page, ms) =>
  page.locator('[data-testid=timeline]').evaluate((el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, ms);

const scrubbed = (page) => page.evaluate(() => document.body.dataset.scrubbed);
const simSeconds = async (page) => Number((await page.locator('[data-testid=sim-time]').innerText()).replace(' s', ''));

test('scrubbing back before a node was killed shows its pods Running on it, then back to live', { timeout: LONG }, async (t) => {
  await withPage(browser(), '', async (page) => {
    const { before, victim, node, replacement } = await killForReplacement(page);
    const onVictim = before.filter((p) => p.node === victim).map((p) => p.name).sort();
    assert.equal(await scrubbed(page), 'false');
    // The replacement's why reaches the kill, at the moment it was made.
    await page.locator(podByName(replacement.name)).first().click();
    const detail = page.locator('[data-testid=pod-detail]');
    await detail.locator('[data-testid=why]').click();
    const kill = detail.locator('[data-testid=cause][data-kind=intervention]').last();
    await kill.waitFor({ state: 'visible' });
    assert.match(await kill.innerText(), new RegExp(`kill node ${victim}`));
    const killedAt = Number(await kill.getAttribute('data-time'));
    const slider = page.locator('[data-testid=timeline]');
    const max = Number(await slider.getAttribute('data-max'));
    assert.equal(Number(await slider.getAttribute('data-min')), 0);
    assert.ok(max > killedAt, `the timeline reaches now (${max} ms), past the kill (${killedAt} ms)`);
    t.diagnostic(`killed ${victim} at ${killedAt} ms; replacement ${replacement.name}; timeline 0..${max} ms`);

    // Back before the kill: the node alive, the old pods Running on it; read-only, and the page says so.
    const then = killedAt - 1000;
    await scrubTo(page, then);
    await waitFor(async () => (await scrubbed(page)) === 'true', { message: 'body[data-scrubbed=true]' });
    assert.equal(await simSeconds(page), Math.floor(then / 100) / 10, 'sim-time shows the scrubbed time');
    t.diagnostic(`scrubbed: ${await page.locator('.timeline-said').innerText()}`);
    await waitFor(async () => (await node.getAttribute('data-alive')) === 'true', { message: `${victim} alive then` });
    const past = await pods(page);
    assert.deepEqual(past.filter((p) => p.node === victim).map((p) => p.name).sort(), onVictim);
    assert.ok(past.filter((p) => p.node === victim).every((p) => p.phase === 'Running'), JSON.stringify(past));
    assert.ok(!past.some((p) => p.name === replacement.name), 'the replacement did not exist yet');
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'timeline-scrubbed.png') });
    await page.setViewportSize({ width: 1440, height: 900 });

    // Back to live: the present again, and the clock plays on.
    await page.locator('[data-testid=timeline-live]').click();
    await waitFor(async () => (await scrubbed(page)) === 'false', { message: 'live again' });
    await waitFor(async () => (await simSeconds(page)) * 1000 > max, { message: 'the clock goes on past where it was' });

    // A cause step scrubs to its moment: the kill. (The replacement's detail stayed open, scrubbed and back.)
    if (!(await detail.isVisible())) await page.locator(podByName(replacement.name)).first().click();
    await detail.locator('[data-testid=why]').click();
    await detail.locator('[data-testid=cause][data-kind=intervention] button').last().click();
    await waitFor(async () => (await scrubbed(page)) === 'true', { message: 'the step scrubbed' });
    assert.equal(await simSeconds(page), Math.floor(killedAt / 100) / 10);
    assert.equal(await node.getAttribute('data-alive'), 'false', 'killed at that moment');

    // Forked just before the kill, the run goes on without it: the node stays alive, and the fork's comparison
    // with the run it was forked from shows where they first diverge (after the kill) and what differs.
    await scrubTo(page, killedAt - 1);
    await waitFor(async () => (await node.getAttribute('data-alive')) === 'true', { message: 'alive just before' });
    await page.locator('[data-testid=fork]').click();
    await waitFor(async () => (await scrubbed(page)) === 'false', { message: 'the fork goes on live' });
    const diff = page.locator('[data-testid=fork-diff]');
    await diff.waitFor({ state: 'visible' });
    await waitFor(async () => (await diff.getAttribute('data-first-divergence')) !== null, {
      timeout: 60_000,
      message: 'a first divergence',
    });
    const diverged = Number(await diff.getAttribute('data-first-divergence'));
    t.diagnostic(`the fork first diverged at ${diverged} ms: ${(await diff.innerText()).split('\n').slice(0, 4).join(' | ')}`);
    assert.ok(diverged >= killedAt, `after the kill (${killedAt} ms): ${diverged} ms`);
    // The fork's kubelet renews the Lease the other run's dead one no longer does.
    assert.match(await diff.innerText(), new RegExp(`this fork: kubelet/${victim} updated Lease kube-node-lease/${victim}`));
    assert.equal(await node.getAttribute('data-alive'), 'true', 'the node kept alive in the fork');
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'fork-diff.png') });
  });
});
