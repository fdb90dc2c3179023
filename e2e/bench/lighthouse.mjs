// Lighthouse (pinned in package-lock.json) on the built app, served with gzip as a static
// host serves it: the four category scores and the load metrics, for the mobile preset
// (Lighthouse's default: a slow 4G link and a 4× slower CPU, simulated) and the desktop
// preset, on four pages: the first screen, a lesson step, presenter mode and embed mode.
//   node e2e/bench/lighthouse.mjs [--dist dist] [--runs 3] [--throttling simulate|devtools] [--json out.json]
//     [--only lesson,embed] [--preset mobile]   (a subset: pages whose name contains a word, one preset)
//     [--brotli]   (served as a host serving the build's precompressed NAME.br files)
// Each row is the median of --runs runs (by performance score). --throttling simulate
// (Lighthouse's default, as PageSpeed Insights runs it) loads the page at full speed and
// computes the slow-network times from that trace; on 127.0.0.1 the wasm can arrive
// before the first paint, and the simulation then charges its download to the paint.
// --throttling devtools slows the browser's own network and CPU instead, so what is
// measured is what a phone on slow 4G would see. Not a test: the targets
// (performance ≥ 95 mobile and 100 desktop; the other three 100) are printed beside the
// figures, and the exit code is 0 whatever they are.
import fs from 'node:fs';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import * as chromeLauncher from 'chrome-launcher';
import { serveGzip, arg, fmt } from './lib.mjs';

const dist = arg('dist', 'dist');
const runs = Number(arg('runs', 3));
const jsonOut = arg('json', '');
const throttlingMethod = arg('throttling', 'simulate');
const only = arg('only', '').split(',').filter(Boolean);
const onlyPreset = arg('preset', '');

const PAGES = [
  ['first screen', ''],
  ['lesson step', '?lesson=baseball-bat&ls=2'],
  ['presenter', '?lesson=masks&ls=1&present=1'],
  ['embed', '?s=the%20cat%20sat%20on%20the%20mat&step=weights&embed=1'],
];
const PRESETS = [
  ['mobile', undefined],
  ['desktop', desktopConfig],
];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const METRICS = [
  ['FCP', 'first-contentful-paint'],
  ['LCP', 'largest-contentful-paint'],
  ['TBT', 'total-blocking-time'],
  ['CLS', 'cumulative-layout-shift'],
  ['SI', 'speed-index'],
];

const brotli = process.argv.includes('--brotli');
const server = await serveGzip(dist, { brotli });
const base = `http://127.0.0.1:${server.address().port}/`;
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  chromeFlags: [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-quic', '--no-first-run', '--disable-sync',
  ],
});

const results = [];
try {
  console.log(`Lighthouse ${lighthouseVersion()} on ${dist}/, served with ${brotli ? 'the precompressed brotli files' : 'gzip'}, throttling ${throttlingMethod}; median of ${runs} run(s) each`);
  console.log('| page | preset | perf | a11y | best pr. | SEO | FCP s | LCP s | TBT ms | CLS | SI s | LCP element |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, query] of PAGES.filter(([n]) => only.length === 0 || only.some((w) => n.includes(w)))) {
    for (const [preset, config] of PRESETS.filter(([p]) => !onlyPreset || p === onlyPreset)) {
      const all = [];
      for (let i = 0; i < runs; i++) {
        const { lhr } = await lighthouse(
          base + query,
          { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES, throttlingMethod },
          config,
        );
        all.push(lhr);
      }
      all.sort((a, b) => (a.categories.performance.score ?? 0) - (b.categories.performance.score ?? 0));
      const lhr = all[Math.floor(all.length / 2)];
      const score = (c) => Math.round((lhr.categories[c]?.score ?? NaN) * 100);
      const metric = (id) => lhr.audits[id]?.numericValue ?? NaN;
      const lcpItem = lhr.audits['largest-contentful-paint-element']?.details?.items?.[0];
      const lcpNode = lcpItem?.items?.[0]?.node ?? lcpItem?.node;
      const lcpElement = lcpNode ? `${lcpNode.nodeLabel ?? ''} (${lcpNode.selector ?? ''})`.replace(/\|/g, '/') : '—';
      const row = {
        page: name, preset, url: query || '/',
        scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])),
        metrics: Object.fromEntries(METRICS.map(([k, id]) => [k, metric(id)])),
        perfRuns: all.map((r) => Math.round((r.categories.performance.score ?? NaN) * 100)),
        lcpElement,
      };
      results.push(row);
      const m = row.metrics;
      console.log(`| ${name} | ${preset} | ${row.scores.performance} (${row.perfRuns.join('/')}) | ${row.scores.accessibility} | ${row.scores['best-practices']} | ${row.scores.seo}`
        + ` | ${fmt(m.FCP / 1000, 2)} | ${fmt(m.LCP / 1000, 2)} | ${fmt(m.TBT, 0)} | ${fmt(m.CLS, 3)} | ${fmt(m.SI / 1000, 2)} | ${lcpElement.slice(0, 60)} |`);
    }
  }
  const short = results.filter((r) => r.scores.performance < (r.preset === 'mobile' ? 95 : 100)
    || ['accessibility', 'best-practices', 'seo'].some((c) => r.scores[c] < 100));
  console.log(short.length === 0
    ? '\nevery target met (performance ≥ 95 mobile, 100 desktop; a11y, best practices, SEO 100)'
    : `\nshort of a target: ${short.map((r) => `${r.page} (${r.preset})`).join(', ')}`);
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 2));
} finally {
  await chrome.kill();
  server.close();
}

function lighthouseVersion() {
  return JSON.parse(fs.readFileSync(new URL('../../node_modules/lighthouse/package.json', import.meta.url))).version;
}
