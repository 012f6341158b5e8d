// The loop diagram (issue 16, part 1): the ReplicaSet controller's loop by default, its queue's keys as chips
// (queue-item) with their state, retries and collapsed adds; a backoff after rejected creates; the layout at the two
// common laptop sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, sharedBrowser, withPage, waitFor, screenshot, waitForRunningPods, setControl, setSpeed, kubectlInput } from './lib.mjs';

const browser = sharedBrowser();

const items = (page) =>
  page.locator('[data-testid=queue-item]').evaluateAll((els) =>
    els.map((e) => ({
      key: e.dataset.key,
      state: e.dataset.state,
      retries: Number(e.dataset.retries),
      adds: Number(e.dataset.adds),
    })),
  );

async function kubectl(page, line) {
  const input = kubectlInput(page);
  await input.fill(line);
  await input.press('Enter');
}

test('the default view shows the cluster and the ReplicaSet controller\'s loop without scrolling', { timeout: TEST_TIMEOUT }, async () => {
  for (const [width, height] of [
    [1440, 900],
    [1366, 768],
  ]) {
    await withPage(browser(), '', async (page) => {
      await page.setViewportSize({ width, height });
      await waitForRunningPods(page, 3);
      const diagram = page.locator('[data-testid=loop-diagram]');
      assert.equal(await diagram.getAttribute('data-controller'), 'replicaset');
      // The loop, its charts, the first node and the queue depths of the first controllers are in view.
      const inView = [
        diagram,
        page.locator('[data-testid=chart][data-metric=pods_by_phase]'),
        page.locator('[data-testid=node]').first(),
        page.locator('[data-testid=queue-depth][data-controller=deployment]'),
        page.locator('[data-testid=queue-depth][data-controller=replicaset]'),
      ];
      for (const el of inView) {
        const box = await el.boundingBox();
        assert.ok(box && box.y >= 0 && box.y + 40 <= height, `in view at ${width}x${height}: ${JSON.stringify(box)}`);
      }
      await screenshot(page, `default-${width}x${height}`);
    });
  }
});

test('rejected creates: the ReplicaSet key waits out its backoff with its retries counted', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await waitForRunningPods(page, 3);
    await page.locator('[data-testid=reject-pod-creates]').check();
    await kubectl(page, 'kubectl scale deployment web --replicas=6');
    let seen = [];
    await waitFor(
      async () => {
        seen = await items(page);
        return seen.some((i) => i.state === 'backoff' && i.retries >= 2 && i.key.startsWith('default/web-'));
      },
      { timeout: 60_000, interval: 50, message: async () => `a ReplicaSet key in backoff: ${JSON.stringify(seen)}` },
    );
    await screenshot(page, 'loop-backoff');
    // The charts: client-go's workqueue metrics of the shown controller, one sample a simulated second; the
    // retries show, and hovering a chart says the values at that second.
    const metrics = await page.locator('[data-testid=chart]').evaluateAll((els) => els.map((e) => e.dataset.metric));
    assert.deepEqual(metrics, [
      'workqueue_depth',
      'workqueue_adds',
      'workqueue_retries',
      'watch_events',
      'apiserver_requests',
      'apiserver_requests_by_client',
      'pods_by_phase',
      'drift',
    ]);
    const retries = page.locator('[data-testid=chart][data-metric=workqueue_retries]');
    await waitFor(async () => Number(await retries.getAttribute('data-peak')) >= 1, { message: 'retries charted' });
    const svg = retries.locator('svg');
    // The hover reads the second under the pointer, near the right end: the chart must hold a few seconds by then
    // (with 3, the last 3 pixels are past its first sample's slot), whatever the simulated time the backoff came at.
    const seconds = async () => Number(/last (\d+) simulated/.exec(await svg.getAttribute('aria-label'))?.[1] ?? 0);
    await waitFor(async () => (await seconds()) >= 5, { message: async () => `5 seconds charted (now ${await seconds()})` });
    const box = await svg.boundingBox();
    await page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
    await waitFor(async () => /^at \d+(\.\d)? s: \d+$/.test(await retries.locator('.chart-now').innerText()), {
      message: async () => `hover shows the values: ${await retries.locator('figcaption').innerText()}`,
    });
    // The keyboard does the same: the chart takes focus, Left goes a second back.
    await page.mouse.move(0, 0);
    await svg.focus();
    await page.keyboard.press('ArrowLeft');
    await waitFor(async () => /^at \d+(\.\d)? s: \d+$/.test(await retries.locator('.chart-now').innerText()), {
      message: async () => `the keyboard shows a second: ${await retries.locator('figcaption').innerText()}`,
    });
    // The handlers stage says how they queue; the writes stage names the last reconcile.
    const flow = await page.locator('[data-testid=loop-diagram] .loop-flow').innerText();
    assert.match(flow, /HANDLERS\s+level\s+queue the key/i);
    assert.match(flow, /last: default\/web-\S+ · \d+ calls? · (ok|error|requeued)/);
    // The queue's chips are what the queue holds: each key once.
    const keys = seen.map((i) => i.key);
    assert.equal(new Set(keys).size, keys.length, JSON.stringify(seen));
  });
});

test('slow API calls: adds of a key being processed collapse into one queued key', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await waitForRunningPods(page, 3);
    await setControl(page, 'api-latency', 3000);
    await kubectl(page, 'kubectl scale deployment web --replicas=8');
    let seen = [];
    await waitFor(
      async () => {
        seen = await items(page);
        return seen.some((i) => i.adds > 1);
      },
      { timeout: 60_000, interval: 50, message: async () => `a key with collapsed adds: ${JSON.stringify(seen)}` },
    );
    await screenshot(page, 'loop-dedup');
    // Edge mode: the diagram says so, and each delta is its own numbered item (one pod more for the ReplicaSet).
    await setControl(page, 'trigger-mode', 'edge');
    await waitFor(async () => /edge-triggered/.test(await page.locator('[data-testid=loop-diagram]').innerText()), {
      message: 'edge mode shown',
    });
    await kubectl(page, 'kubectl scale deployment web --replicas=12');
    await waitFor(
      async () => {
        seen = await items(page);
        return seen.filter((i) => /\+1#\d+$/.test(i.key)).length >= 2;
      },
      { timeout: 60_000, interval: 50, message: async () => `numbered delta items: ${JSON.stringify(seen)}` },
    );
    const delta = page.locator('[data-testid=queue-item][data-delta="+1"]').first();
    assert.match(await delta.innerText(), /^(▶ )?#\d+ \+1 pod · web-/);
    // Lost watch events show in the stream, struck through.
    await setControl(page, 'drop-watch-events', 50);
    await kubectl(page, 'kubectl scale deployment web --replicas=4');
    await waitFor(async () => (await page.locator('[data-testid=watch-event][data-dropped=true]').count()) >= 1, {
      timeout: 60_000,
      message: 'a lost watch event shown',
    });
    await screenshot(page, 'loop-edge-drops');
    // At 100x single items blur: the diagram shows rates.
    await setSpeed(page, 100);
    const diagram = page.locator('[data-testid=loop-diagram]');
    await waitFor(async () => (await diagram.getAttribute('data-mode')) === 'rates', { message: 'rates at 100x' });
    assert.match(await diagram.innerText(), /\d+\/s events/);
    await setSpeed(page, 1);
    await waitFor(async () => (await diagram.getAttribute('data-mode')) === 'items', { message: 'items again at 1x' });
  });
});

test('the cluster over time: API requests by verb and client, pods by phase, drift', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await waitForRunningPods(page, 3);
    const chart = (metric) => page.locator(`[data-testid=chart][data-metric=${metric}]`);
    const peak = async (metric) => Number(await chart(metric).getAttribute('data-peak'));
    const hover = async (metric) => {
      const box = await chart(metric).locator('svg').boundingBox();
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
      const caption = await chart(metric).locator('figcaption').getAttribute('title');
      await page.mouse.move(0, 0);
      return caption;
    };
    await kubectl(page, 'kubectl scale deployment web --replicas=6');
    await waitForRunningPods(page, 6);
    // Pods by phase: the running line reaches 6 and the newest second says so.
    await waitFor(async () => (await peak('pods_by_phase')) >= 6, { message: 'six running pods charted' });
    await waitFor(async () => /running 6/.test(await hover('pods_by_phase')), {
      message: async () => `hover names the phases: ${await hover('pods_by_phase')}`,
    });
    // API requests: the scale-up's creates, by verb; the controller manager's and the kubelets' requests by client.
    assert.ok((await peak('apiserver_requests')) >= 1);
    assert.ok((await peak('apiserver_requests_by_client')) >= 1);
    assert.match(await chart('apiserver_requests').locator('svg').getAttribute('aria-label'), /^API requests\/s over the last \d+ simulated seconds, peak \d+$/);
    // Drift: with every watch event lost, the deleted pods stay in the caches as they were: the chart's newest
    // second says so, as the page's drift figure does.
    await setControl(page, 'drop-watch-events', 100);
    await kubectl(page, 'kubectl delete pods -l app=web --wait=false');
    const drift = async () => Number((await chart('drift').locator('figcaption').getAttribute('title')).replace(/^drift: /, ''));
    await waitFor(async () => (await drift()) >= 6 && Number(await page.locator('[data-testid=drift]').innerText()) >= 6, {
      timeout: 30_000,
      message: async () => `drift charted: ${await drift()}`,
    });
    await screenshot(page, 'loop-cluster-charts');
  });
});
