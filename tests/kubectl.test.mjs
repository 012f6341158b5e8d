// The kubectl console: [data-testid=kubectl-input] (Enter runs) and [data-testid=kubectl-output] (the last
// command's output, as kubectl prints it), driven by keyboard only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, sharedBrowser, withPage, waitFor, setSpeed, nodes, runningPodNames, waitForRunningPods, screenshot,
  kubectlInput, kubectlOutput, kubectl, setEditorText, clickApply, deploymentYaml, serviceYaml,
} from './lib.mjs';

const browser = sharedBrowser();

test('kubectl console: the shell mechanics (help, unknown commands, history, Tab, clear, focus)', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    const input = kubectlInput(page);
    assert.equal(await input.count(), 1, 'a [data-testid=kubectl-input]');
    assert.equal(await input.evaluate((e) => e.tagName.toLowerCase()), 'input', 'kubectl-input is an <input>');
    await input.focus();

    const help = await kubectl(page, 'kubectl help', (o) => /Commands:/.test(o));
    assert.match(help, /^\s+get\s+/m, 'help lists get');
    assert.equal(await input.evaluate((e) => e === document.activeElement), true, 'focus stays in the input after Enter');
    assert.equal(await input.inputValue(), '', 'the input is emptied after Enter');

    const unknown = await kubectl(page, 'kubectl gte pods', (o) => /unknown command/.test(o));
    assert.match(unknown, /^error: unknown command "gte" for "kubectl"\n\nDid you mean this\?\n\tget\n?$/, 'cobra message');
    const logs = await kubectl(page, 'logs web', (o) => /not simulated/.test(o));
    assert.match(logs, /^error: "kubectl logs" is not simulated by kubeloop/);
    await kubectl(page, 'kubectl get pods --bogus', (o) => /unknown flag/.test(o));

    // Up recalls the previous command, twice goes further back, Down comes back to the line being typed.
    await input.fill('half typed');
    await input.press('ArrowUp');
    assert.equal(await input.inputValue(), 'kubectl get pods --bogus');
    await input.press('ArrowUp');
    assert.equal(await input.inputValue(), 'logs web');
    await input.press('ArrowDown');
    await input.press('ArrowDown');
    assert.equal(await input.inputValue(), 'half typed', 'the draft comes back');

    // Tab: one candidate completes the word; several extend the common prefix and are listed.
    await input.fill('kubectl get pods');
    await input.press('Tab');
    assert.match(await input.inputValue(), /^kubectl get pods\s+$/, 'Tab completes a whole word with a space');
    await input.fill('kubectl get po');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'kubectl get pod', 'po: poddisruptionbudgets and pods share "pod"');
    await input.fill('kubectl get dep');
    await input.press('Tab');
    assert.match(await input.inputValue(), /^kubectl get deployments\s*$/, 'Tab completes dep -> deployments');
    assert.equal(await input.evaluate((e) => e === document.activeElement), true, 'Tab keeps focus in the input');
    await input.fill('kubectl ro');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'kubectl rollout ');
    // Several candidates (kube-node-lease, kube-public, kube-system): their common prefix, and they are listed in the
    // console (see the screenshot; the list is no contract hook).
    await input.fill('kubectl get ns ku');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'kubectl get ns kube-');
    await input.fill('kubectl rollout ');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'kubectl rollout ', 'four subcommands: nothing in common to add');
    await screenshot(page, 'kubectl-console-completion');
    await input.fill('');

    // Ctrl+C with nothing running just drops the line; `clear` and Ctrl+L empty the output.
    await input.fill('something');
    await input.press('Control+c');
    assert.equal(await input.inputValue(), '');
    await kubectl(page, 'clear', (o) => o === '');
    await kubectl(page, 'help', (o) => /Commands:/.test(o));
    await input.press('Control+l');
    await waitFor(async () => (await kubectlOutput(page)) === '', { message: 'Ctrl+L empties the output' });
  });
});

test('kubectl console: get pods, scale, delete pod, and the cluster view follows', { timeout: TEST_TIMEOUT }, async (t) => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    const running = await waitForRunningPods(page, 3);

    const podsOut = await kubectl(page, 'kubectl get pods', (o) => /NAME/.test(o));
    t.diagnostic(`kubectl get pods:\n${podsOut}`);
    assert.match(podsOut, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m, 'kubectl get pods header');
    for (const name of running) assert.match(podsOut, new RegExp(`^${name}\\s+1/1\\s+Running\\s`, 'm'), `row for ${name}`);
    // Columns are aligned: every row's STATUS starts where the header's does.
    const lines = podsOut.trimEnd().split('\n');
    const col = lines[0].indexOf('STATUS');
    for (const l of lines.slice(1)) assert.equal(l.indexOf('Running'), col, `aligned: ${JSON.stringify(l)}`);

    const nodesOut = await kubectl(page, 'kubectl get nodes', (o) => /NAME/.test(o));
    assert.match(nodesOut, /NAME\s+STATUS/, 'kubectl get nodes header');
    for (const n of await nodes(page)) assert.match(nodesOut, new RegExp(`^${n.name}\\s+Ready`, 'm'), `row for ${n.name}`);

    const scaled = await kubectl(page, 'kubectl scale deploy web --replicas=5', (o) => o.trim() !== '');
    assert.equal(scaled.trim(), 'deployment.apps/web scaled');
    const five = await waitForRunningPods(page, 5);

    const victim = five[0];
    const deleted = await kubectl(page, `kubectl delete pod ${victim}`, (o) => o.trim() !== '');
    assert.match(deleted, new RegExp(`^pod "${victim}" deleted`), 'kubectl delete output');
    await waitFor(
      async () => {
        const now = await runningPodNames(page);
        return now.length === 5 && !now.includes(victim) && now.some((n) => !five.includes(n));
      },
      { timeout: 90_000, message: async () => `a replacement for ${victim} (running: ${await runningPodNames(page)})` },
    );

    await kubectl(page, 'kubectl get pods -o wide', (o) => /NAME/.test(o));
    await screenshot(page, 'kubectl-console');

    // -f NAME reads an example of the menu; an unknown one gets kubectl's message. -f - reads the editor.
    const missing = await kubectl(page, 'kubectl apply -f nothing-here.yaml', (o) => o.trim() !== '');
    assert.match(missing, /^error: the path "nothing-here.yaml" does not exist/);
    const applied = await kubectl(page, 'kubectl apply -f -', (o) => o.trim() !== '');
    assert.match(applied, /^deployment\.apps\/web configured/, 'the editor has the 3-replica web Deployment');
    await waitForRunningPods(page, 3);
  });
});

// A real-looking application (ServiceAccount, ConfigMap, Secret, Deployment, Service in one text) applies from the
// editor; the Service gets a cluster IP and its EndpointSlice lists the pods once they are ready.
const APP = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
data:
  LOG_LEVEL: info
---
apiVersion: v1
kind: Secret
metadata:
  name: shop-secret
stringData:
  password: hunter2
---
${deploymentYaml('shop', 2, '        ports:\n        - name: http\n          containerPort: 8080\n')}---
${serviceYaml('shop', '  - name: http\n    port: 80\n    targetPort: http\n')}`;

test("kubectl explain and -h: their documentation comes from the site once the page runs, and a line typed before it arrives waits for it (or stops at Ctrl+C)", { timeout: TEST_TIMEOUT }, async () => {
  // The documentation (explain.tsv) is held back until the line has been typed: it is fetched once, relative to the
  // page, and the waiting line then prints what the runner prints.
  let release;
  const gate = new Promise((r) => {
    release = r;
  });
  const requested = [];
  const setup = (context) =>
    context.route('**/explain.tsv', async (route) => {
      requested.push(route.request().url());
      await gate;
      await route.continue();
    });
  await withPage(
    browser(),
    '',
    async (page) => {
      await waitFor(async () => requested.length === 1 || null, { message: () => 'the page fetches explain.tsv once it runs' });
      assert.equal(new URL('explain.tsv', page.url()).toString(), requested[0], 'fetched relative to the page');
      const input = kubectlInput(page);
      // A command's help is documentation too (its flags' lines): it waits for it, and Ctrl+C stops a line that
      // waits for the documentation: it ends with ^C and never prints.
      await input.fill('kubectl get -h');
      await input.press('Enter');
      await page.locator('.console-running').first().waitFor({ timeout: 10_000 });
      await input.press('Control+c');
      await waitFor(async () => ((await page.locator('.console-running').count()) === 0 && /\^C/.test(await kubectlOutput(page))) || null, {
        message: async () => `Ctrl+C stops the waiting help (now ${JSON.stringify(await kubectlOutput(page))})`,
      });
      await input.fill('kubectl explain deployment.spec.replicas');
      await input.press('Enter');
      await page.locator('.console-running').first().waitFor({ timeout: 10_000 });
      assert.doesNotMatch(await kubectlOutput(page), /FIELD:|Usage:/, 'nothing printed before the documentation arrives');
      release();
      let out = '';
      await waitFor(
        async () => {
          out = await kubectlOutput(page);
          return /FIELD: replicas <integer>/.test(out) || null;
        },
        { message: () => `the waiting explain prints once the documentation arrives (now ${JSON.stringify(out)})` },
      );
      assert.match(out, /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/, out);
      const scrollback = await page.locator('.console-panel').textContent();
      assert.doesNotMatch(scrollback, /Usage:/, 'the stopped line printed nothing when the documentation came');
      const help = await kubectl(page, 'kubectl get -h', (o) => /Usage:/.test(o));
      assert.match(help, /-w, --watch=false:\s+After listing\/getting the requested object, watch for changes\./, help);
      const pod = await kubectl(page, 'kubectl explain pod.spec.containers.name', (o) => /FIELD: name <string>/.test(o));
      assert.match(pod, /DESCRIPTION:\n\s+Name of the container specified as a DNS_LABEL/, pod);
      assert.equal(requested.length, 1, 'fetched once');
    },
    { setup },
  );
});

test('a real application applies: its Service has a cluster IP and its ready pods as endpoints', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page) => {
    await setSpeed(page, 10);
    await setEditorText(page, APP);
    const result = await clickApply(page);
    for (const created of ['serviceaccount/shop', 'configmap/shop-config', 'secret/shop-secret', 'deployment.apps/shop', 'service/shop']) {
      assert.match(result, new RegExp(`${created} created`), `${created} in ${JSON.stringify(result)}`);
    }
    assert.match(result, /Warning: ConfigMap \(line 7\)/, 'apply says once what kubeloop does not simulate about a kind');
    const svc = await kubectl(page, 'kubectl get svc shop', (o) => /shop/.test(o));
    assert.match(svc, /^shop\s+ClusterIP\s+10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+\s+<none>\s+80\/TCP\s+/m, svc);
    // The slice lists the pods once they have addresses (not ready ones with ready: false); describe shows the
    // ready ones with the resolved port.
    let slices = '';
    await waitFor(
      async () => {
        slices = await kubectl(page, 'kubectl get endpointslices -l kubernetes.io/service-name=shop', (o) => /NAME|No resources/.test(o));
        return /\s8080\s+10\.244\.\d+\.\d+,10\.244\.\d+\.\d+\s/.test(slices);
      },
      { timeout: 60_000, message: () => `two endpoints on 8080 (now ${JSON.stringify(slices)})` },
    );
    let described = '';
    await waitFor(
      async () => {
        described = await kubectl(page, 'kubectl describe svc shop', (o) => /Endpoints:/.test(o));
        return /^Endpoints:\s+10\.244\.\d+\.\d+:8080,10\.244\.\d+\.\d+:8080$/m.test(described);
      },
      { timeout: 60_000, message: () => `two ready endpoints in describe (now ${JSON.stringify(described)})` },
    );
    await screenshot(page, 'kubectl-real-app');
  });
});
