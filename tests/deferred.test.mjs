// The page's second module (docs/size.md): kubectl's commands and the scenario reader are not in the first
// download; the page loads them once it runs, from the file its <meta name="kubeloop-deferred"> names, relative to
// the page. What needs them before they arrive waits for them: a console line (shown running), a button that is a
// kubectl command (cordon), a kept session's run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, sharedBrowser, withPage, waitFor, nodeByName, kubectl, kubectlInput, kubectlOutput, sel, screenshot,
  runClockPast, simTime, historyHash, waitForKeptSession,
} from './lib.mjs';

const browser = sharedBrowser();
const notice = async (page) => ((await page.locator('[data-testid=notice]').count()) ? page.locator('[data-testid=notice]').innerText() : '');

// Holds the second module back while `held()` says so, and lists its requests.
function holdModule() {
  const state = { requested: [], hold: true, release: null };
  let gate = new Promise((r) => {
    state.release = r;
  });
  state.rearm = () => {
    gate = new Promise((r) => {
      state.release = r;
    });
  };
  state.setup = (context) =>
    context.route(/\/deferred-[0-9a-f]+\.wasm$/, async (route) => {
      state.requested.push(route.request().url());
      if (state.hold) await gate;
      await route.continue();
    });
  return state;
}

test("kubectl's commands load once the page runs, in a module of their own: a line or a cordon before it arrives waits for it", { timeout: TEST_TIMEOUT }, async () => {
  const held = holdModule();
  await withPage(
    browser(),
    '?seed=5',
    async (page) => {
      await waitFor(async () => held.requested.length === 1 || null, { message: 'the page fetches its second module once it runs' });
      const named = await page.locator('meta[name=kubeloop-deferred]').getAttribute('content');
      assert.match(named, /^deferred-[0-9a-f]{16}\.wasm$/, 'the build names the module');
      assert.equal(new URL(named, page.url()).toString(), held.requested[0], 'fetched relative to the page');
      // The cluster runs meanwhile: the first module is the whole simulation.
      await runClockPast(page, 3);
      const input = kubectlInput(page);
      await input.fill('kubectl get nodes');
      await input.press('Enter');
      await page.locator('.console-running').first().waitFor({ timeout: 10_000 });
      assert.doesNotMatch(await kubectlOutput(page), /STATUS/, 'nothing printed before the module arrives');
      await page.locator(`${nodeByName('node-1')} [data-testid=node-cordon]`).click();
      await page.waitForTimeout(300);
      assert.equal(await page.locator(nodeByName('node-1')).getAttribute('data-unschedulable'), 'false', 'the cordon waits');
      await screenshot(page, 'deferred-waiting');
      held.release();
      let out = '';
      await waitFor(
        async () => {
          out = await kubectlOutput(page);
          return /NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/.test(out) || null;
        },
        { message: () => `the waiting line prints once the module arrives (now ${JSON.stringify(out)})` },
      );
      const scrollback = await page.locator('.console-panel').innerText();
      assert.equal((scrollback.match(/kubectl get nodes/g) ?? []).length, 1, `the line shows once: ${JSON.stringify(scrollback)}`);
      await waitFor(async () => (await page.locator(nodeByName('node-1')).getAttribute('data-unschedulable')) === 'true' || null, {
        message: 'the cordon happens once the module arrives',
      });
      const pods = await kubectl(page, 'kubectl get pods -o name', (o) => /pod\//.test(o));
      assert.match(pods, /^pod\/web-/m, pods);
      assert.equal(held.requested.length, 1, 'fetched once');
    },
    { setup: held.setup },
  );
});

test('a kept session whose run needs the scenario reader is restored once the module arrives, the clock held meanwhile', { timeout: TEST_TIMEOUT }, async () => {
  const held = holdModule();
  held.hold = false;
  await withPage(
    browser(),
    '?seed=6',
    async (page) => {
      await runClockPast(page, 3);
      await kubectl(page, 'kubectl scale deployment web --replicas=4', (o) => /scaled/.test(o));
      await runClockPast(page, 8);
      await page.locator(sel.playPause).click();
      const t = await simTime(page);
      const hash = await historyHash(page);
      await waitForKeptSession(page, (s) => s?.playing === false && /replicas=4/.test(s.run ?? ''), 'the session kept with the paused run');
      held.hold = true;
      held.rearm();
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector(sel.ready, { state: 'attached' });
      await waitFor(async () => /Restoring your last session/.test(await notice(page)) || null, { message: 'the notice says it waits' });
      await page.waitForTimeout(500);
      assert.equal(await simTime(page), 0, 'the clock is held while the run waits');
      held.release();
      await waitFor(async () => /Restored your last session/.test(await notice(page)) || null, { message: 'then restored' });
      assert.equal(await simTime(page), t, 'the run, where it was');
      assert.equal(await historyHash(page), hash);
    },
    { setup: held.setup },
  );
});
