// Gives the built page its Content-Security-Policy (a <meta> tag, as a static site can) and a subresource-integrity
// digest for its JavaScript. Run by trunk's post_build hook (Trunk.toml) on the staging directory, after wasm-opt:
//
//   node scripts/csp.mjs DIR
//
// The policy allows the page's own files and the compilation of its wasm, and nothing inline but trunk's bootstrap
// <script>, by the SHA-256 of its exact text (not 'unsafe-inline'). docs/web-tests.md says how to send the same
// policy as an HTTP header.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/csp.mjs DIR');
  process.exit(2);
}
const file = path.join(dir, 'index.html');
let html = readFileSync(file, 'utf8');
if (html.includes('http-equiv="Content-Security-Policy"')) {
  console.error('kubeloop: csp: index.html has a policy already');
  process.exit(1);
}

const scripts = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)];
if (scripts.length !== 1) {
  console.error(`kubeloop: csp: expected trunk's one inline bootstrap script, found ${scripts.length}`);
  process.exit(1);
}
if (/<script(?![^>]*type="module">)[^>]*>/.test(html.replace(scripts[0][0], ''))) {
  console.error('kubeloop: csp: another <script> is in index.html; the policy allows only the bootstrap');
  process.exit(1);
}
const digest = (algo, data) => `${algo}-${createHash(algo).update(data).digest('base64')}`;
const bootstrap = digest('sha256', scripts[0][1]);

const POLICY = [
  "default-src 'self'",
  `script-src 'self' 'wasm-unsafe-eval' '${bootstrap}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

// Before anything it governs: right after the charset.
const meta = `<meta http-equiv="Content-Security-Policy" content="${POLICY}" />`;
html = html.replace(/(<meta charset="utf-8" \/>)/, `$1\n    ${meta}`);
if (!html.includes(meta)) {
  console.error('kubeloop: csp: no <meta charset="utf-8" /> to put the policy after');
  process.exit(1);
}

// The JavaScript module, preloaded with its digest (wasm-opt rewrote only the wasm, after trunk hashed the files).
html = html.replace(/<link rel="modulepreload" href="\.\/([^"]+\.js)" crossorigin="anonymous">/, (whole, js) => {
  const sri = digest('sha384', readFileSync(path.join(dir, js)));
  return `<link rel="modulepreload" href="./${js}" crossorigin="anonymous" integrity="${sri}">`;
});
writeFileSync(file, html);
console.log(`kubeloop: Content-Security-Policy set (bootstrap ${bootstrap})`);
