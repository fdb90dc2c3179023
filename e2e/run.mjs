// Minimal end-to-end test runner for Attention Lens.
// Usage: node e2e/run.mjs [--dist dist] [--filter substring] [--tests dir]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCREENSHOTS = path.join(HERE, 'screenshots');
const SUBPATH = '/attention-lens/';
const TEST_TIMEOUT_MS = Number(process.env.E2E_TIMEOUT_MS) || 60_000;
const READY_TIMEOUT_MS = 20_000;
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-quic', '--no-first-run', '--disable-sync',
];
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

function parseArgs(argv) {
  const opts = {
    dist: 'dist',
    filter: '',
    tests: process.env.E2E_TESTS_DIR || path.join(HERE, 'tests'),
  };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts) || i + 1 >= argv.length) {
      console.error(`usage: node e2e/run.mjs [--dist dir] [--filter substring] [--tests dir]`);
      process.exit(2);
    }
    opts[key] = argv[++i];
  }
  return opts;
}

// Static server: `/x` and `/attention-lens/x` both serve `<dist>/x`.
function startServer(root) {
  root = path.resolve(root);
  const server = http.createServer((req, res) => {
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (urlPath === SUBPATH.slice(0, -1)) urlPath = SUBPATH;
    if (urlPath.startsWith(SUBPATH)) urlPath = urlPath.slice(SUBPATH.length - 1);
    if (urlPath.endsWith('/')) urlPath += 'index.html';
    const file = path.join(root, path.normalize(urlPath));
    if (!file.startsWith(root + path.sep)) {
      res.writeHead(404).end('not found');
      return;
    }
    fs.readFile(file, (err, data) => {
      if (err && path.basename(file) === 'favicon.ico') {
        res.writeHead(204).end(); // browsers request it implicitly; not an app error
        return;
      }
      if (err) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const type = MIME[path.extname(file).toLowerCase()] || 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : data);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function loadTests(dir, filter) {
  if (!fs.existsSync(dir)) return [];
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort();
  const all = [];
  for (const f of files) {
    const mod = await import(pathToFileURL(path.resolve(dir, f)).href);
    for (const test of mod.tests ?? []) all.push({ ...test, file: f });
  }
  return all.filter((test) => test.name.includes(filter));
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function runTest(browser, baseUrl, test) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const errors = [];
  try {
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const where = msg.location()?.url;
      errors.push(`console: ${msg.text()}${where ? ` (${where})` : ''}`);
    });
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    page.on('requestfailed', (req) => {
      const why = req.failure()?.errorText ?? 'unknown';
      // a navigation may cut the previous page's favicon request short: not the app's error
      if (/favicon/.test(req.url()) && why === 'net::ERR_ABORTED') return;
      errors.push(`requestfailed: ${req.url()} (${why})`);
    });
    page.on('response', (res) => {
      if (res.status() >= 400) errors.push(`http ${res.status()}: ${res.url()}`);
    });

    const url = (p = '/') => new URL(p, baseUrl).href;
    const t = {
      page,
      context,
      baseUrl,
      url,
      assert,
      errors: () => [...errors],
      // e2e/screenshots/<name>.png, the whole page unless `fullPage` is false (the viewport)
      screenshot: async (name, { fullPage = true } = {}) => {
        fs.mkdirSync(SCREENSHOTS, { recursive: true });
        const file = path.join(SCREENSHOTS, `${name}.png`);
        await page.screenshot({ path: file, fullPage });
        return file;
      },
      gotoApp: async (query = '') => {
        const q = String(query).replace(/^\?/, '');
        await page.goto(url(q ? `/?${q}` : '/'));
        await page.waitForSelector('[data-testid="app-ready"]', {
          state: 'attached',
          timeout: READY_TIMEOUT_MS,
        });
        return page;
      },
      // the app at `query`, once `selector` is on the page (with waitForSelector's options)
      open: async (query, selector, options) => {
        await t.gotoApp(query);
        await page.waitForSelector(selector, options);
        return page;
      },
      // `open` in a viewport of `size` ({ width, height })
      openAt: async (size, query, selector, options) => {
        await page.setViewportSize(size);
        return t.open(query, selector, options);
      },
    };
    // a test may ask for more time than the default (the random walk does)
    const ms = Math.max(TEST_TIMEOUT_MS, Number(test.timeoutMs) || 0);
    await withTimeout(Promise.resolve().then(() => test.run(t)), ms, `test "${test.name}"`);
  } finally {
    await context.close().catch(() => {});
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(opts.dist, 'index.html'))) {
    console.error(`warning: ${path.resolve(opts.dist)}/index.html not found`);
  }
  const tests = await loadTests(opts.tests, opts.filter);
  let passed = 0;
  let failed = 0;
  let server;
  let browser;
  try {
    server = await startServer(opts.dist);
    const baseUrl = `http://127.0.0.1:${server.address().port}/`;
    // launch() always uses a fresh temporary profile directory.
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    });
    for (const test of tests) {
      try {
        await runTest(browser, baseUrl, test);
        passed++;
        console.log(`ok - ${test.name}`);
      } catch (err) {
        failed++;
        console.log(`not ok - ${test.name}`);
        const msg = String(err?.message ?? err).replace(/\x1b\[[0-9;]*m/g, '').trimEnd().split('\n').map((l) => `  # ${l}`).join('\n');
        console.log(msg);
      }
    }
  } catch (err) {
    failed++;
    console.log(`not ok - runner setup`);
    console.log(`  # ${err?.message ?? err}`);
  } finally {
    await browser?.close().catch(() => {});
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r()));
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

main();
