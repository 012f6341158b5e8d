// The page at scale (issue 29): the cluster size control starts a run of N nodes and P pods of kubeloop's own demo
// Deployments; #cluster=NxP opens one; a large cluster is drawn on a canvas that zooms, says what is hovered, and a
// node or pod is found by name (selected, its details opened, its node scrolled into view).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, sharedBrowser, withPage, waitFor, setSpeed, setPlaying, intHook, screenshot, simTime, openClusterTools } from './lib.mjs';

const browser = sharedBrowser();

/** The node count the summary shows ("ready/N"). */
const nodeCount = (page) =>
  page.evaluate(() => {
    const t = document.querySelector('[data-testid=summary-nodes-ready]')?.parentElement?.textContent ?? '';
    return Number(t.split('/')[1]);
  });

const notice = async (page) => (await page.locator('[data-testid=notice]').count()) ? page.locator('[data-testid=notice]').innerText() : '';

test('the size control starts a run of N nodes and P demo pods, which converges', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    // A few nodes drawn as cards: the search and the size control wait behind their toggle, so a row of cards stays
    // in sight on a small screen.
    const toggle = page.locator('[data-testid=cluster-tools-toggle]');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator('[data-testid=cluster-size-nodes]').count(), 0, 'the size control waits behind its toggle');
    await openClusterTools(page);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await page.locator('[data-testid=cluster-search]').count(), 1, 'search opens with it');
    await page.locator('[data-testid=cluster-size-nodes]').fill('250');
    await page.locator('[data-testid=cluster-size-pods]').fill('600');
    await page.locator('[data-testid=cluster-size-start]').click();
    await waitFor(async () => (await nodeCount(page)) === 250, { message: '250 nodes' });
    assert.match(await notice(page), /250 nodes and 600 pods in 6 of kubeloop's own demo Deployments/);
    assert.equal(await page.locator('[data-testid=cluster-canvas]').count(), 1, 'more than 200 nodes: a canvas');
    assert.equal(await page.locator('[data-testid=node]').count(), 0, 'no element per node');
    const editor = await page.locator('[data-testid=yaml-editor]').inputValue();
    assert.match(editor, /^# kubeloop's own demo Deployments: 600 pods in 6 Deployment\(s\)/);
    await setSpeed(page, 100);
    await waitFor(async () => (await intHook(page, 'summary-pods-running')) === 600 && (await intHook(page, 'summary-pods-pending')) === 0, {
      timeout: 150_000,
      message: '600 pods Running',
    });
    await screenshot(page, 'scale-250-nodes');
    // A size kubeloop does not run says why and keeps the run.
    await page.locator('[data-testid=cluster-size-nodes]').fill('1');
    await page.locator('[data-testid=cluster-size-pods]').fill('111');
    await page.locator('[data-testid=cluster-size-start]').click();
    await waitFor(async () => /No new run: 111 pods do not fit on 1 nodes of 110 pods each/.test(await notice(page)), { message: 'the refusal' });
    assert.equal(await nodeCount(page), 250);
  });
});

test('#cluster=NxP opens that size paused; search, hover and zoom on the canvas', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '#cluster=300x900', async (page) => {
    await waitFor(async () => (await nodeCount(page)) === 300, { message: '300 nodes from the link' });
    assert.equal(await page.locator('[data-testid=cluster-tools-toggle]').getAttribute('aria-expanded'), 'true', 'open by default on the canvas');
    assert.match(await notice(page), /300 nodes and 900 pods .* ▶ Play runs it\./);
    assert.equal(await simTime(page), 0, 'paused at its start');
    await setSpeed(page, 100);
    await setPlaying(page, true);
    await waitFor(async () => (await intHook(page, 'summary-pods-running')) === 900, { timeout: 150_000, message: '900 pods Running' });
    await setPlaying(page, false);

    // A node by its exact name: selected, its details open.
    const search = page.locator('[data-testid=cluster-search]');
    await search.fill('node-287');
    await search.press('Enter');
    await waitFor(async () => (await page.locator('[data-testid=node-detail]').count()) === 1, { message: 'the node detail' });
    assert.equal(await page.locator('[data-testid=node-detail] h3').innerText(), 'node/node-287');
    // Part of a name: the matches, the first 8 listed; picking one opens the pod.
    await search.fill('app-4-');
    await search.press('Enter');
    const result = page.locator('[data-testid=cluster-search-result]');
    await waitFor(async () => (await result.getAttribute('data-total')) === '100', { message: "app-4's 100 pods" });
    const matches = page.locator('[data-testid=cluster-search-match]');
    assert.equal(await matches.count(), 8);
    const pod = await matches.nth(2).getAttribute('data-name');
    assert.match(pod, /^app-4-/);
    await matches.nth(2).click();
    await waitFor(async () => (await page.locator('[data-testid=pod-detail]').count()) === 1, { message: 'the pod detail' });
    assert.equal(await page.locator('[data-testid=pod-detail] h3').innerText(), `pod/${pod}`);
    await search.fill('no-such-thing');
    await search.press('Enter');
    await waitFor(async () => (await result.getAttribute('data-total')) === '0', { message: 'no match' });
    assert.match(await result.innerText(), /no node or pod named or containing "no-such-thing"/);

    // Hover says what a node holds; zoom makes the cells larger.
    const canvas = page.locator('[data-testid=cluster-canvas]');
    await canvas.hover({ position: { x: 5, y: 5 } });
    await waitFor(async () => /^node-1 · Ready · \d+ running, 0 pending · \d+\/110 pods$/.test(await page.locator('[data-testid=cluster-hover]').innerText()), {
      message: 'the hovered node',
    });
    const before = await canvas.evaluate((c) => c.clientHeight);
    await page.locator('[data-testid=cluster-zoom-in]').click();
    await waitFor(async () => (await canvas.getAttribute('data-zoom')) === '1.5', { message: 'zoomed in' });
    await waitFor(async () => (await canvas.evaluate((c) => c.clientHeight)) > before, { message: 'taller cells' });
    await screenshot(page, 'scale-search-zoom');
  });
});
