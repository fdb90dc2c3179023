// Cold load: the bytes of dist/ as shipped (raw, gzip -9, brotli q11) and the time from
// navigation start to the first heatmap drawn, in a fresh browser context each time,
// served from 127.0.0.1 without compression or caching.
//   node e2e/bench/load.mjs [--dist dist] [--loads 20] [--budget KB] [--first-budget KB] [--size-only]
// Two budgets (kB = 1000 bytes, gzip -9), by default those of budgets.mjs, which
// `make test` holds: everything shipped (wasm, js, css, html, icons) ≤ --budget, and the
// first screen ≤ --first-budget: what index.html makes the browser load before the first
// heatmap (the page, its stylesheets, the module it preloads and imports and the wasm it
// preloads; not the worker, fetched after the first heatmap). Over either, the line says
// OVER and, with --size-only, the exit code is 1.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, stats, fmt, arg } from './lib.mjs';
import { SHIPPED_KB, FIRST_SCREEN_KB, LESSON_PICTURE_KB, FIRST_PAINT_KB } from './budgets.mjs';

const dist = arg('dist', 'dist');
const loads = Number(arg('loads', 20));
const budgetKb = Number(arg('budget', SHIPPED_KB));
const firstBudgetKb = Number(arg('first-budget', FIRST_SCREEN_KB));

const kinds = {
  wasm: /\.wasm$/, js: /\.js$/, css: /\.css$/, html: /\.html$/, icons: /\.(png|svg|ico)$/,
  manifest: /\.webmanifest$/, other: /./,
};
const totals = {};
for (const f of fs.readdirSync(dist)) {
  const file = path.join(dist, f);
  // NAME.gz and NAME.br (scripts/precompress.mjs) are NAME as a host may send it, not more
  // bytes: NAME is counted, compressed here
  if (!fs.statSync(file).isFile() || /\.(gz|br)$/.test(f)) continue;
  const data = fs.readFileSync(file);
  const kind = Object.keys(kinds).find((k) => kinds[k].test(f));
  const t = (totals[kind] ??= { raw: 0, gzip: 0, br: 0 });
  t.raw += data.length;
  t.gzip += zlib.gzipSync(data, { level: 9 }).length;
  t.br += zlib.brotliCompressSync(data, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  }).length;
}
const kb = (n) => (n / 1024).toFixed(1);
console.log(`${dist}: bytes as shipped, KiB`);
console.log('| file | raw | gzip -9 | brotli 11 |');
console.log('|---|---|---|---|');
const sum = { raw: 0, gzip: 0, br: 0 };
for (const [k, t] of Object.entries(totals)) {
  console.log(`| ${k} | ${kb(t.raw)} | ${kb(t.gzip)} | ${kb(t.br)} |`);
  for (const c of Object.keys(sum)) sum[c] += t[c];
}
console.log(`| **total** | ${kb(sum.raw)} | ${kb(sum.gzip)} | ${kb(sum.br)} |`);
const over = sum.gzip > budgetKb * 1000;
console.log(`\ntotal gzip -9: ${(sum.gzip / 1000).toFixed(1)} kB (${kb(sum.gzip)} KiB), budget ${budgetKb} kB: ${over ? 'OVER' : 'within'}`
  + ` (${over ? '+' : ''}${((sum.gzip - budgetKb * 1000) / 1000).toFixed(1)} kB)`);

// the first screen: index.html and what it names in link and import
const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
const named = new Set(['index.html']);
for (const m of html.matchAll(/<link\b[^>]*\brel="(stylesheet|modulepreload|preload)"[^>]*\bhref="([^"]+)"/g)) named.add(m[2]);
for (const m of html.matchAll(/\bimport\b[^'"]*['"]([^'"]+\.js)['"]/g)) named.add(m[1]);
// the main wasm, which the loader requests once the first paint is reported (Trunk.toml)
for (const m of html.matchAll(/\bmodule_or_path:\s*['"]([^'"]+)['"]/g)) named.add(m[1]);
let first = 0;
const firstFiles = [];
for (const name of named) {
  const file = path.join(dist, name.replace(/^\.\//, ''));
  if (!fs.existsSync(file)) continue;
  const gz = zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
  first += gz;
  firstFiles.push(`${path.basename(file)} ${(gz / 1000).toFixed(1)}`);
}
const firstOver = first > firstBudgetKb * 1000;
console.log(`first screen gzip -9: ${(first / 1000).toFixed(1)} kB, budget ${firstBudgetKb} kB: ${firstOver ? 'OVER' : 'within'}`
  + ` (${firstOver ? '+' : ''}${((first - firstBudgetKb * 1000) / 1000).toFixed(1)} kB): ${firstFiles.join(', ')}`);

// the lesson steps' pictures: a link fetches its own step's only, so the largest is held
const picDir = path.join(dist, 'lesson-pictures');
const pics = fs.existsSync(picDir) ? fs.readdirSync(picDir).filter((f) => f.endsWith('.svg')) : [];
let picTotal = 0;
let picMax = [0, ''];
for (const f of pics) {
  const gz = zlib.gzipSync(fs.readFileSync(path.join(picDir, f)), { level: 9 }).length;
  picTotal += gz;
  if (gz > picMax[0]) picMax = [gz, f];
}
const picOver = picMax[0] > LESSON_PICTURE_KB * 1000;
console.log(`lesson pictures: ${pics.length}, ${(picTotal / 1000).toFixed(1)} kB gzip -9 in all, the largest ${picMax[1]} `
  + `${(picMax[0] / 1000).toFixed(1)} kB, budget ${LESSON_PICTURE_KB} kB each: ${picOver ? 'OVER' : 'within'}`);
// the first-paint worker (src/bin/first_paint.rs): what an explorer link loads, beside
// the page, before its caption is painted
const fpFiles = fs.readdirSync(dist).filter((f) => /^first_paint.*\.(js|wasm)$/.test(f));
let fp = 0;
for (const f of fpFiles) fp += zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length;
const fpOver = fpFiles.length === 0 || fp > FIRST_PAINT_KB * 1000;
console.log(`first-paint worker gzip -9: ${(fp / 1000).toFixed(1)} kB (${fpFiles.join(', ') || 'missing'}), `
  + `budget ${FIRST_PAINT_KB} kB: ${fpOver ? 'OVER' : 'within'}`);
if (process.argv.includes('--size-only')) process.exit(over || firstOver || picOver || fpOver ? 1 : 0);

const server = await serve(dist);
const browser = await launch();
const rows = [];
for (let i = 0; i < loads; i++) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForSelector('canvas[data-testid="heatmap"]');
  await page.waitForFunction(() => performance.getEntriesByName('al-draw-end').length > 0);
  rows.push(await page.evaluate(() => {
    const wasm = performance.getEntriesByType('resource').find((r) => r.name.endsWith('.wasm'));
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return {
      first: performance.getEntriesByName('al-draw-end')[0].startTime,
      wasm: wasm ? wasm.responseEnd : NaN,
      engine: performance.getEntriesByName('al-engine-start')[0]?.startTime ?? NaN,
      fcp: fcp ? fcp.startTime : NaN,
    };
  }));
  await context.close();
}
await browser.close();
server.close();
const col = (k) => { const s = stats(rows.map((r) => r[k])); return `${fmt(s.median, 0)} / ${fmt(s.p95, 0)}`; };
console.log(`\ncold load, ${loads} loads, ms from navigation start: median / p95`);
console.log('| wasm downloaded | engine starts (wasm compiled, app mounted) | first heatmap drawn | first contentful paint |');
console.log('|---|---|---|---|');
console.log(`| ${col('wasm')} | ${col('engine')} | ${col('first')} | ${col('fcp')} |`);
