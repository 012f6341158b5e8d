// Nodes: kill and revive a node's kubelet, add a node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, sel, sharedBrowser, withPage, waitFor, setSpeed, nodes, nodeByName, intHook, waitForRunningPods,
  screenshot, waitSimTime,
} from './lib.mjs';

const browser = sharedBrowser();

async function clickInside(page, container, testid) {
  await container.hover();
  const button = container.locator(`[data-testid=${testid}]`).first();
  await button.waitFor({ state: 'visible', timeout: 10_000 });
  await button.click();
}

test('kill a node (data-alive=false), revive it (data-alive=true)', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await waitForRunningPods(page, 3);
    const all = await nodes(page);
    assert.ok(all.length >= 1, 'no [data-testid=node]');
    for (const n of all) assert.equal(n.alive, 'true', `node ${n.name} alive at start`);
    const name = all[0].name;
    const node = page.locator(nodeByName(name)).first();

    await clickInside(page, node, 'node-kill');
    await waitFor(async () => (await node.getAttribute('data-alive')) === 'false', {
      timeout: 10_000,
      message: async () => `node ${name} data-alive=false (now ${await node.getAttribute('data-alive')})`,
    });
    // A few simulated seconds, so that the screenshot shows what follows a kill.
    await waitSimTime(page, 15);
    t.diagnostic(`killed ${name}: data-ready=${await node.getAttribute('data-ready')}`);
    assert.match((await node.getAttribute('data-ready')) ?? '', /^(true|false|unknown)$/, 'data-ready value');
    for (const n of await nodes(page)) if (n.name !== name) assert.equal(n.alive, 'true', `other node ${n.name} stays alive`);
    await screenshot(page, '02-node-killed');

    await clickInside(page, node, 'node-revive');
    await waitFor(async () => (await node.getAttribute('data-alive')) === 'true', {
      timeout: 10_000,
      message: async () => `node ${name} data-alive=true after revive (now ${await node.getAttribute('data-alive')})`,
    });
    await waitFor(async () => (await node.getAttribute('data-ready')) === 'true', {
      timeout: 60_000,
      message: async () => `revived node ${name} data-ready=true (now ${await node.getAttribute('data-ready')})`,
    });
  });
});

test('add-node adds one more node, which becomes Ready', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    const before = await waitFor(async () => {
      const n = await nodes(page);
      return n.length > 0 && n.every((x) => x.ready === 'true') ? n : null;
    }, { timeout: 60_000, message: 'the initial nodes to be Ready' });
    assert.equal(await intHook(page, 'summary-nodes-ready'), before.length, 'summary-nodes-ready at start');
    await page.locator(sel.addNode).first().click();
    let now = [];
    await waitFor(
      async () => {
        now = await nodes(page);
        return now.length === before.length + 1;
      },
      { timeout: 10_000, message: () => `${before.length + 1} nodes (now ${now.length})` },
    );
    const added = now.find((n) => !before.some((b) => b.name === n.name));
    assert.ok(added, 'the new node has a new name');
    t.diagnostic(`added ${added.name}`);
    await waitFor(
      async () => {
        const n = (await nodes(page)).find((x) => x.name === added.name);
        return n && n.alive === 'true' && n.ready === 'true';
      },
      { timeout: 60_000, message: `new node ${added.name} alive and Ready` },
    );
    let ready;
    await waitFor(
      async () => {
        ready = await intHook(page, 'summary-nodes-ready');
        return ready === before.length + 1;
      },
      { timeout: 30_000, message: () => `summary-nodes-ready == ${before.length + 1} (now ${ready})` },
    );
  });
});
