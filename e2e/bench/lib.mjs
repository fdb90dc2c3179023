// Shared by the benchmark scripts (not tests): a static server for dist/ on 127.0.0.1,
// headless Chromium, and the statistics BENCHMARKS.md quotes.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
};

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-quic', '--no-first-run', '--disable-sync',
];

/**
 * A static server for `root` on 127.0.0.1: `respond(req, res, file, data, headers)` sends
 * a file that exists (with its content type in `headers`); anything else is a 404.
 */
function staticServer(root, respond) {
  root = path.resolve(root);
  const server = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p.endsWith('/')) p += 'index.html';
    const file = path.join(root, path.normalize(p));
    if (!file.startsWith(root + path.sep)) return res.writeHead(404).end();
    fs.readFile(file, (err, data) => {
      if (err) return res.writeHead(404).end();
      respond(req, res, file, data, { 'content-type': MIME[path.extname(file)] || 'application/octet-stream' });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Serves `root` on 127.0.0.1 (uncompressed, no-store, like run.mjs). */
export function serve(root) {
  return staticServer(root, (req, res, file, data, headers) => {
    res.writeHead(200, { ...headers, 'cache-control': 'no-store' });
    res.end(data);
  });
}

/**
 * Serves `root` on 127.0.0.1 as a static host does: gzip for text and wasm when the
 * browser asks for it (compressed once per file, at level 9), and `no-cache`, so every
 * load asks again, as a first visit does. With `brotli`, as a host that serves the
 * build's precompressed files does (scripts/precompress.mjs): NAME.br where the browser
 * accepts br and the file exists, else gzip as above.
 */
export function serveGzip(root, { brotli = false } = {}) {
  const cache = new Map();
  const compressible = /\.(html|js|css|wasm|svg|webmanifest|json)$/;
  return staticServer(root, (req, res, file, data, headers) => {
    headers['cache-control'] = 'no-cache';
    const accepts = String(req.headers['accept-encoding'] || '');
    if (brotli && /\bbr\b/.test(accepts) && fs.existsSync(`${file}.br`)) {
      data = fs.readFileSync(`${file}.br`);
      headers['content-encoding'] = 'br';
      headers.vary = 'accept-encoding';
    } else if (compressible.test(file) && /\bgzip\b/.test(accepts)) {
      if (!cache.has(file)) cache.set(file, zlib.gzipSync(data, { level: 9 }));
      data = cache.get(file);
      headers['content-encoding'] = 'gzip';
      headers.vary = 'accept-encoding';
    }
    headers['content-length'] = data.length;
    res.writeHead(200, headers);
    res.end(data);
  });
}

/** Headless Chromium; `extra` are more command-line switches. */
export async function launch(extra = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, ...extra],
  });
}

/** Median, p95 (nearest rank) and max of a list of numbers. */
export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return { n: 0, median: NaN, p95: NaN, max: NaN };
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { n: s.length, median, p95: q(0.95), max: s[s.length - 1] };
}

export const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');

export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

/** `n` sentences of `t` distinct-ish words each ("w0 w1 …"), newline-separated. */
export function sentences(n, t) {
  return Array.from({ length: n }, (_, b) =>
    Array.from({ length: t }, (_, i) => `w${(i * 7 + b * 13) % 101}`).join(' ')).join('\n');
}

/** The keystroke floor: key `x`, which the page ignores, now changes one text node (a
 *  counter in the corner), so a press costs the least a keystroke can. */
export function addFloorKey(page) {
  return page.evaluate(() => {
    const el = document.createElement('div');
    el.style.cssText = 'position:fixed;left:0;bottom:0;font-size:10px';
    document.body.append(el);
    let n = 0;
    document.addEventListener('keydown', (ev) => { if (ev.key === 'x') el.textContent = String(++n); });
  });
}
