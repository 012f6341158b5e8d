// Services and the simulated applications behind them: [data-testid=service] shows a Service's ready endpoints
// (data-endpoints); a pod's detail panel makes its application fail readiness or liveness, or crash
// ([data-testid=pod-fail-readiness], [data-testid=pod-fail-liveness], [data-testid=pod-crash], kubeloop's own
// input); pods carry data-ready and data-restarts.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, ROOT, sharedBrowser, withPage, waitFor, setSpeed, podByName, runningPodNames, screenshot,
  setEditorText, clickApply, cssString, kubectl, deploymentYaml, serviceYaml,
} from './lib.mjs';

const browser = sharedBrowser();

const APP = [
  deploymentYaml(
    'shop',
    3,
    `        readinessProbe:
          httpGet: {path: /ready, port: 80}
          periodSeconds: 5
        livenessProbe:
          httpGet: {path: /healthz, port: 80}
        resources:
          requests: {cpu: 100m, memory: 64Mi}
`,
  ),
  serviceYaml('shop', '  - port: 80\n'),
].join('---\n');

const service = (page, name) => page.locator(`[data-testid=service][data-name=${cssString(name)}]`).first();

async function endpoints(page, name) {
  const v = await service(page, name).getAttribute('data-endpoints');
  return v === null ? null : Number(v);
}

async function podAttr(page, name, attr) {
  return page.locator(podByName(name)).first().getAttribute(attr);
}

test('a Service shows its ready pods; a pod that fails readiness leaves and comes back; a crash restarts it', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await setEditorText(page, APP);
    const result = await clickApply(page);
    assert.match(result, /service\/shop created/, result);
    await waitFor(async () => (await endpoints(page, 'shop')) === 3, {
      timeout: 90_000,
      message: async () => `3 ready endpoints (now ${await endpoints(page, 'shop')})`,
    });
    const names = (await runningPodNames(page)).filter((n) => n.startsWith('shop-'));
    assert.equal(names.length, 3, `three shop pods: ${names}`);
    const victim = names[0];
    assert.equal(await podAttr(page, victim, 'data-ready'), 'true');
    assert.equal(await podAttr(page, victim, 'data-restarts'), '0');
    await screenshot(page, 'apps-service');

    // Fail its readiness: after three failures 5 s apart it is not ready and leaves the Service.
    await page.locator(podByName(victim)).first().click();
    const failReady = page.locator('[data-testid=pod-fail-readiness]:visible').first();
    await failReady.waitFor({ state: 'visible', timeout: 10_000 });
    await failReady.click();
    await waitFor(async () => (await podAttr(page, victim, 'data-ready')) === 'false', {
      timeout: 60_000,
      message: 'the pod turns not ready',
    });
    await waitFor(async () => (await endpoints(page, 'shop')) === 2, {
      timeout: 60_000,
      message: async () => `2 ready endpoints (now ${await endpoints(page, 'shop')})`,
    });
    const listed = await service(page, 'shop').innerText();
    assert.ok(!listed.includes(victim), `the Service no longer lists ${victim}: ${listed}`);
    assert.equal(await failReady.getAttribute('aria-pressed'), 'true', 'the toggle says the check fails');
    await screenshot(page, 'apps-not-ready');

    // Pass again: back in the endpoints.
    await failReady.click();
    await waitFor(async () => (await endpoints(page, 'shop')) === 3, {
      timeout: 60_000,
      message: async () => `back to 3 ready endpoints (now ${await endpoints(page, 'shop')})`,
    });

    // Crash it: the kubelet restarts the container and the pod counts a restart.
    await page.locator('[data-testid=pod-crash]:visible').first().click();
    await waitFor(async () => (await podAttr(page, victim, 'data-restarts')) === '1', {
      timeout: 60_000,
      message: async () => `one restart (now ${await podAttr(page, victim, 'data-restarts')})`,
    });
    await waitFor(async () => (await podAttr(page, victim, 'data-ready')) === 'true', {
      timeout: 60_000,
      message: 'ready again after the restart',
    });

    // Fail liveness: killed after three failures and restarted, again and again.
    await page.locator('[data-testid=pod-fail-liveness]:visible').first().click();
    await waitFor(async () => Number(await podAttr(page, victim, 'data-restarts')) >= 2, {
      timeout: 90_000,
      message: async () => `restarted by its liveness check (now ${await podAttr(page, victim, 'data-restarts')})`,
    });
    const detail = await page.locator('[data-testid=pod-detail]').first().innerText();
    assert.match(detail, /failed liveness probe, will be restarted/, detail);
    await screenshot(page, 'apps-liveness');
  });
});

const REAL_APP = readFileSync(path.join(ROOT, 'examples', 'manifests', 'shop.yaml'), 'utf8');

test('a real application (namespace, account, config, secret, probes, service, budget) applies and serves', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await setEditorText(page, REAL_APP);
    const result = await clickApply(page);
    for (const created of [
      'namespace/shop',
      'serviceaccount/shop',
      'configmap/shop-config',
      'secret/shop-db',
      'deployment.apps/shop',
      'service/shop',
      'poddisruptionbudget.policy/shop',
    ]) {
      assert.match(result, new RegExp(`${created} created`), `${created} in ${JSON.stringify(result)}`);
    }
    await waitFor(async () => (await endpoints(page, 'shop')) === 3, {
      timeout: 90_000,
      message: async () => `3 ready endpoints (now ${await endpoints(page, 'shop')})`,
    });
    let pdb = '';
    await waitFor(
      async () => {
        pdb = await kubectl(page, 'kubectl get pdb -n shop', (o) => /NAME|No resources/.test(o));
        return /^shop\s+N\/A\s+1\s+1\s+/m.test(pdb);
      },
      { timeout: 30_000, message: () => `the budget allows one disruption (now ${JSON.stringify(pdb)})` },
    );
    await screenshot(page, 'apps-real-app');
  });
});

test('a deleted pod whose application ignores SIGTERM counts its grace period down and goes at SIGKILL', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await setEditorText(page, APP);
    await clickApply(page);
    await waitFor(async () => (await endpoints(page, 'shop')) === 3, {
      timeout: 90_000,
      message: async () => `3 ready endpoints (now ${await endpoints(page, 'shop')})`,
    });
    const victim = (await runningPodNames(page)).filter((n) => n.startsWith('shop-'))[0];
    await page.locator(podByName(victim)).first().click();
    const ignore = page.locator('[data-testid=pod-ignore-sigterm]:visible').first();
    await ignore.waitFor({ state: 'visible', timeout: 10_000 });
    await ignore.click();
    await waitFor(async () => (await ignore.getAttribute('aria-pressed')) === 'true', { message: 'the toggle is on' });
    const del = page.locator('[data-testid=pod-delete]:visible').first();
    assert.match(await del.getAttribute('title'), /30 s/, 'the delete says the pod\'s grace period');
    await del.click();
    // The countdown: grace period left, SIGTERM sent, SIGKILL due; the pod stays while it runs down.
    const countdown = page.locator('[data-testid=pod-countdown]:visible').first();
    await countdown.waitFor({ state: 'visible', timeout: 20_000 });
    let text = '';
    await waitFor(
      async () => {
        text = await countdown.innerText();
        return /grace period 30 s: .* left/.test(text) && /SIGTERM sent .* ago; SIGKILL in/.test(text);
      },
      { timeout: 20_000, message: () => `the countdown (now ${JSON.stringify(text)})` },
    );
    await countdown.scrollIntoViewIfNeeded();
    await screenshot(page, 'apps-terminating');
    const first = text.match(/grace period 30 s: ([\d.]+) s left/);
    assert.ok(first && Number(first[1]) > 10, `well before the end: ${text}`);
    assert.equal(await podAttr(page, victim, 'data-terminating'), 'true');
    // SIGKILL at 30 s: the pod goes (exit 137 in its last status), and its replacement serves.
    await waitFor(async () => (await page.locator(podByName(victim)).count()) === 0, {
      timeout: 90_000,
      message: 'the pod is gone after its grace period',
    });
    const events = await kubectl(page, 'kubectl get events', (o) => /LAST SEEN|No resources/.test(o));
    assert.match(events, new RegExp(`Killing\\s+pod/${victim}\\s+Stopping container shop`), events);
  });
});
