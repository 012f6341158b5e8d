// The page never eats a click (issue 28, part 7): using the kubectl console and then clicking elsewhere must not move
// what is under the pointer between mousedown and click (the console used to shrink when it lost focus, and the
// click landed on another element), and while a person types kubectl at a laptop size the cluster stays in sight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT,
  sel,
  sharedBrowser,
  withPage,
  waitFor,
  nodes,
  nodeByName,
  kubectl,
  kubectlInput,
  editorText,
  setEditorText,
  withReplicas,
  applyResultText,
  waitForRunningPods,
  screenshot,
} from './lib.mjs';

const browser = sharedBrowser();
const SIZES = [
  [1366, 768],
  [1440, 900],
];

/** Types a command in the console (which keeps the focus and now has output to show). */
async function typeInConsole(page) {
  await kubectl(page, 'kubectl get nodes', (o) => /NAME\s+STATUS/.test(o));
  assert.equal(await kubectlInput(page).evaluate((e) => e === document.activeElement), true, 'the console has the focus');
}

/** Where an element is on the page (its box), recorded on mousedown and on click. */
async function recordPointerTargets(page) {
  await page.evaluate(() => {
    window.__downs = [];
    window.__clicks = [];
    const where = (e) => {
      const t = e.target.closest('[data-testid]');
      return { testid: t?.dataset.testid ?? null, y: Math.round(e.target.getBoundingClientRect().top) };
    };
    document.addEventListener('mousedown', (e) => window.__downs.push(where(e)), true);
    document.addEventListener('click', (e) => window.__clicks.push(where(e)), true);
  });
}

test('a node\'s Kill clicked right after typing in the console kills that node, at both laptop sizes', { timeout: TEST_TIMEOUT }, async () => {
  for (const [width, height] of SIZES) {
    await withPage(browser(), '', async (page) => {
      await page.setViewportSize({ width, height });
      await waitFor(async () => (await nodes(page)).every((n) => n.ready === 'true'), { message: 'the nodes are Ready' });
      const name = (await nodes(page))[0].name;
      const node = page.locator(nodeByName(name)).first();
      await typeInConsole(page);
      await recordPointerTargets(page);
      await node.locator('[data-testid=node-kill]').click();
      const downs = await page.evaluate(() => window.__downs);
      const clicks = await page.evaluate(() => window.__clicks);
      assert.deepEqual(clicks.map((c) => c.testid), ['node-kill'], `${width}x${height}: the click reached Kill (mousedown ${JSON.stringify(downs)}, click ${JSON.stringify(clicks)})`);
      assert.equal(clicks[0].y, downs[0].y, `${width}x${height}: Kill did not move between mousedown and click`);
      await waitFor(async () => (await node.getAttribute('data-alive')) === 'false', {
        message: async () => `${width}x${height}: ${name} killed (data-alive=${await node.getAttribute('data-alive')})`,
      });
      for (const n of await nodes(page)) if (n.name !== name) assert.equal(n.alive, 'true', `${n.name} stays alive`);
      // And Revive, the same way.
      await typeInConsole(page);
      await node.locator('[data-testid=node-revive]').click();
      await waitFor(async () => (await node.getAttribute('data-alive')) === 'true', { message: `${width}x${height}: ${name} revived` });
    });
  }
});

test('Apply clicked right after typing in the console applies the editor', { timeout: TEST_TIMEOUT }, async () => {
  for (const [width, height] of SIZES) {
    await withPage(browser(), '', async (page) => {
      await page.setViewportSize({ width, height });
      await waitForRunningPods(page, 3);
      await setEditorText(page, withReplicas(await editorText(page), 3, 4));
      await typeInConsole(page);
      const before = await page.locator(sel.applyResult).getAttribute('data-seq');
      await recordPointerTargets(page);
      await page.locator(sel.apply).click();
      const clicks = await page.evaluate(() => window.__clicks);
      assert.deepEqual(clicks.map((c) => c.testid), ['apply'], `${width}x${height}: the click reached Apply: ${JSON.stringify(clicks)}`);
      await waitFor(async () => (await page.locator(sel.applyResult).getAttribute('data-seq')) !== before, {
        message: `${width}x${height}: an apply outcome`,
      });
      assert.match(await applyResultText(page), /deployment\.apps\/web configured/);
      await waitForRunningPods(page, 4);
    });
  }
});

test('while the console has the focus, the cluster keeps a row of node cards in sight', { timeout: TEST_TIMEOUT }, async (t) => {
  for (const [width, height] of SIZES) {
    await withPage(browser(), '', async (page) => {
      await page.setViewportSize({ width, height });
      await waitForRunningPods(page, 3);
      await typeInConsole(page);
      const cluster = await page.locator('.cluster-panel').boundingBox();
      const consoleTop = (await page.locator('.console-panel').boundingBox()).y;
      const card = await page.locator(sel.node).first().boundingBox();
      const kill = await page.locator('[data-testid=node-kill]').first().boundingBox();
      t.diagnostic(`${width}x${height}, console focused: cluster panel ${Math.round(cluster.height)} px tall, first node card ${Math.round(card.height)} px`);
      assert.ok(cluster.y + cluster.height <= consoleTop, `${width}x${height}: the cluster panel ends above the console (panel ${JSON.stringify(cluster)}, console at ${consoleTop})`);
      assert.ok(card.y + card.height <= cluster.y + cluster.height, `${width}x${height}: the first node card is whole in the cluster panel (card ${JSON.stringify(card)}, panel ${JSON.stringify(cluster)})`);
      assert.ok(kill.y >= cluster.y && kill.y + kill.height <= cluster.y + cluster.height, `${width}x${height}: its Kill is in sight`);
      // The same layout without the focus: nothing moves when the console loses it.
      const box = async (s) => page.locator(s).first().boundingBox();
      const focused = { console: await box('.console-panel'), apply: await box(sel.apply), card };
      await kubectlInput(page).evaluate((e) => e.blur());
      const blurred = { console: await box('.console-panel'), apply: await box(sel.apply), card: await box(sel.node) };
      assert.deepEqual(blurred, focused, `${width}x${height}: the layout does not change with the console's focus`);
      await kubectlInput(page).focus();
      await screenshot(page, `console-focused-${width}x${height}`);
    });
  }
});
