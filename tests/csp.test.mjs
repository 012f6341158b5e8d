// The page ships a strict Content-Security-Policy (scripts/csp.mjs writes it into index.html at build time): its own
// files, the compilation of its wasm, trunk's bootstrap by its hash, nothing inline. Every browser test fails on a
// violation (tests/lib.mjs); this one checks the policy itself and that it is enforced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, sharedBrowser, withPage, waitFor } from './lib.mjs';

const browser = sharedBrowser();

test('the page carries its Content-Security-Policy and the browser enforces it', { timeout: TEST_TIMEOUT }, async () => {
  await withPage(browser(), '', async (page, problems) => {
    const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    for (const directive of [
      "default-src 'self'",
      "style-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ]) {
      assert.ok(policy.split('; ').includes(directive), `${directive} in ${policy}`);
    }
    assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/]{43}='(;|$)/, policy);
    assert.doesNotMatch(policy, /'unsafe-inline'|'unsafe-eval'|\*/, policy);
    assert.match(await page.locator('link[rel=modulepreload]').getAttribute('integrity'), /^sha384-/);
    // An inline script does not run, an inline style does not apply; both are reported.
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true;';
      document.head.appendChild(s);
      const d = document.createElement('div');
      d.setAttribute('style', 'width: 123px');
      document.body.appendChild(d);
      await new Promise((r) => setTimeout(r, 100));
      return { script: window.__inlineRan === true, style: getComputedStyle(d).width === '123px' };
    });
    assert.deepEqual(ran, { script: false, style: false });
    await waitFor(() => problems.csp.length >= 2, { message: 'the violations are reported' });
    assert.ok(problems.csp.some((v) => /script-src/.test(v)), problems.csp.join('\n'));
    assert.ok(problems.csp.some((v) => /style-src/.test(v)), problems.csp.join('\n'));
    problems.csp.length = 0;
    problems.consoleErrors.length = 0;
  });
});
