// An object's history (issue 31): every write of a node the engine kept (object-version, with data-rv, data-client
// and data-verb), each version made again from the run's checkpoints, and the diff of two (object-diff), as
// `kubectl get -o yaml` prints them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedBrowser, withPage, waitFor, nodeByName, waitForRunningPods, runClockPast, SCREENSHOT_DIR } from './lib.mjs';
import path from 'node:path';

const browser = sharedBrowser();

test("a node's history lists its writes and diffs the cordon against the version before it", { timeout: 180_000 }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await waitForRunningPods(page, 3);
    const node = page.locator(nodeByName('node-2')).first();
    await node.hover();
    await node.locator('[data-testid=node-cordon]').first().click();
    await runClockPast(page, 20);
    await node.locator('header.node-head').first().click();
    const detail = page.locator('[data-testid=node-detail]');
    await detail.waitFor({ state: 'visible' });
    await detail.locator('[data-testid=history]').click();
    const history = detail.locator('[data-testid=object-history]');
    await history.waitFor({ state: 'visible' });
    const versions = await history.locator('[data-testid=object-version]').evaluateAll((els) =>
      els.map((e) => ({ rv: Number(e.dataset.rv), client: e.dataset.client, verb: e.dataset.verb })),
    );
    t.diagnostic(JSON.stringify(versions));
    assert.equal(versions[0].verb, 'created');
    assert.equal(versions[0].client, 'kubelet/node-2');
    const cordon = versions.find((v) => /kubectl|page/.test(v.client) && v.verb === 'updated');
    assert.ok(cordon, `the cordon among ${JSON.stringify(versions)}`);
    assert.ok(versions.every((v, i) => i === 0 || v.rv > versions[i - 1].rv), 'in resourceVersion order');
    await history.locator(`[data-testid=object-version][data-rv="${cordon.rv}"] button.cause-go`).click();
    await waitFor(async () => /\+\s+unschedulable: true/.test(await history.locator('[data-testid=object-diff]').innerText()), {
      message: 'the diff of the cordon: unschedulable: true added',
    });
    // The entry's own "why": the chain of that write, back to the person's cordon.
    await history.locator(`[data-testid=object-version][data-rv="${cordon.rv}"] [data-testid=why]`).click();
    const chain = detail.locator('[data-testid=cause-chain]');
    await chain.waitFor({ state: 'visible' });
    const kinds = await chain.locator('[data-testid=cause]').evaluateAll((els) => els.map((e) => e.dataset.kind));
    assert.equal(kinds[0], 'write');
    assert.equal(kinds[kinds.length - 1], 'intervention', JSON.stringify(kinds));
    assert.match(await chain.innerText(), new RegExp(`resourceVersion ${cordon.rv}`));
    await page.setViewportSize({ width: 1440, height: 1400 });
    await history.scrollIntoViewIfNeeded();
    await detail.screenshot({ path: path.join(SCREENSHOT_DIR, 'object-history.png') });
  });
});
