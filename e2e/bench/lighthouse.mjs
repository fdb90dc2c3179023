// Lighthouse (pinned in package-lock.json) on the built app, served with gzip as a static
// host serves it: the four category scores and the load metrics, for the mobile preset
// (Lighthouse's default: a slow 4G link and a 4× slower CPU, simulated) and the desktop
// preset, on the first screen, lesson steps, presenter mode, embed modes, a challenge and an
// explorer link.
//   node e2e/bench/lighthouse.mjs [--dist dist] [--runs 3] [--throttling simulate|devtools] [--json out.json]
//     [--dist before,after]   (two builds, their runs interleaved page by page: a before/after
//                              on a shared machine sees the same load)
//     [--only lesson,embed] [--preset mobile]   (a subset: pages whose name contains a word, one preset)
//     [--brotli]   (served as a host serving the build's precompressed NAME.br files)
//     [--detail]   (a line per run: its LCP, the observed LCP and its element, and when the
//                   wasm, the lesson words and the lesson picture ended downloading)
// Each row is the median of --runs runs (by performance score), with every run's LCP and
// their median and p95 (nearest rank). --throttling simulate
// (Lighthouse's default, as PageSpeed Insights runs it) loads the page at full speed and
// computes the slow-network times from that trace; on 127.0.0.1 the wasm can arrive
// before the first paint, and the simulation then charges its download to the paint.
// --throttling devtools slows the browser's own network and CPU instead, so what is
// measured is what a phone on slow 4G would see. Not a test: the targets
// (performance ≥ 95 mobile and 100 desktop; the other three 100) are printed beside the
// figures, and the exit code is 0 whatever they are.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serveGzip, arg, fmt, stats } from './lib.mjs';

// LIGHTHOUSE_DIR=tools/lighthouse13 takes Lighthouse and chrome-launcher from that folder's
// node_modules (`make lighthouse` installs 13.x there, with the Node 22 it needs, from npm);
// unset, the version pinned in package-lock.json.
const lhRoot = process.env.LIGHTHOUSE_DIR
  ? path.resolve(process.env.LIGHTHOUSE_DIR, 'node_modules')
  : new URL('../../node_modules', import.meta.url).pathname;
const lhModule = (rel) => import(pathToFileURL(path.join(lhRoot, rel)).href);
const { default: lighthouse } = await lhModule('lighthouse/core/index.js');
const { default: desktopConfig } = await lhModule('lighthouse/core/config/desktop-config.js');
const chromeLauncher = await lhModule('chrome-launcher/dist/index.js');

const dists = arg('dist', 'dist').split(',').filter(Boolean);
const runs = Number(arg('runs', 3));
const jsonOut = arg('json', '');
const throttlingMethod = arg('throttling', 'simulate');
const only = arg('only', '').split(',').filter(Boolean);
const onlyPreset = arg('preset', '');
const detail = process.argv.includes('--detail');

const PAGES = [
  ['first screen', ''],
  ['lesson step', '?lesson=baseball-bat&ls=2'],
  ['lesson step masks 1', '?lesson=masks&ls=1'],
  ['presenter', '?lesson=masks&ls=1&present=1'],
  ['embed', '?s=the%20cat%20sat%20on%20the%20mat&step=weights&embed=1'],
  ['lesson embed', '?lesson=masks&ls=1&embed=1'],
  ['challenge', '?challenge=cat-mat'],
  ['explorer link', '?s=the%20cat%20sat%20on%20the%20mat&d=8&h=2&causal=1&step=weights'],
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
const servers = await Promise.all(dists.map((d) => serveGzip(d, { brotli })));
const bases = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  chromeFlags: [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-quic', '--no-first-run', '--disable-sync',
  ],
});

const results = [];
try {
  console.log(`Lighthouse ${lighthouseVersion()} on ${dists.map((d) => `${d}/`).join(' and ')}, served with ${brotli ? 'the precompressed brotli files' : 'gzip'}, throttling ${throttlingMethod}; median of ${runs} run(s) each`);
  console.log('| page | build | preset | perf | a11y | best pr. | SEO | FCP s | LCP s | LCP median / p95 s (runs) | TBT ms | CLS | SI s | LCP element |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, query] of PAGES.filter(([n]) => only.length === 0 || only.some((w) => n.includes(w)))) {
    for (const [preset, config] of PRESETS.filter(([p]) => !onlyPreset || p === onlyPreset)) {
      const byDist = dists.map(() => []);
      for (let i = 0; i < runs; i++) {
        for (const [d, base] of bases.entries()) {
          const { lhr } = await lighthouse(
            base + query,
            { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES, throttlingMethod },
            config,
          );
          byDist[d].push(lhr);
          if (detail) console.log(`  ${name} ${dists[d]} ${preset} run ${i + 1}: ${runDetail(lhr)}`);
        }
      }
      for (const [d, all] of byDist.entries()) {
        const lcps = all.map((r) => r.audits['largest-contentful-paint']?.numericValue ?? NaN);
        const lcpStats = stats(lcps);
        all.sort((a, b) => (a.categories.performance.score ?? 0) - (b.categories.performance.score ?? 0));
        const lhr = all[Math.floor(all.length / 2)];
        const score = (c) => Math.round((lhr.categories[c]?.score ?? NaN) * 100);
        const metric = (id) => lhr.audits[id]?.numericValue ?? NaN;
        const lcpNode = lcpNodeOf(lhr);
        const lcpElement = lcpNode ? `${lcpNode.nodeLabel ?? ''} (${lcpNode.selector ?? ''})`.replace(/\|/g, '/') : '—';
        const row = {
          page: name, dist: dists[d], preset, url: query || '/',
          scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])),
          metrics: Object.fromEntries(METRICS.map(([k, id]) => [k, metric(id)])),
          perfRuns: all.map((r) => Math.round((r.categories.performance.score ?? NaN) * 100)),
          lcpRuns: lcps,
          lcpElement,
        };
        results.push(row);
        const m = row.metrics;
        console.log(`| ${name} | ${dists[d]} | ${preset} | ${row.scores.performance} (${row.perfRuns.join('/')}) | ${row.scores.accessibility} | ${row.scores['best-practices']} | ${row.scores.seo}`
          + ` | ${fmt(m.FCP / 1000, 2)} | ${fmt(m.LCP / 1000, 2)} | ${fmt(lcpStats.median / 1000, 2)} / ${fmt(lcpStats.p95 / 1000, 2)} (${lcps.map((x) => fmt(x / 1000, 1)).join('/')})`
          + ` | ${fmt(m.TBT, 0)} | ${fmt(m.CLS, 3)} | ${fmt(m.SI / 1000, 2)} | ${lcpElement.slice(0, 60)} |`);
      }
    }
  }
  const short = results.filter((r) => r.scores.performance < (r.preset === 'mobile' ? 95 : 100)
    || ['accessibility', 'best-practices', 'seo'].some((c) => r.scores[c] < 100));
  console.log(short.length === 0
    ? '\nevery target met (performance ≥ 95 mobile, 100 desktop; a11y, best practices, SEO 100)'
    : `\nshort of a target: ${short.map((r) => `${r.page} (${r.dist}, ${r.preset})`).join(', ')}`);
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(results, null, 2));
} finally {
  await chrome.kill();
  for (const s of servers) s.close();
}

// One run's LCP as Lighthouse computed it, beside what it observed: the observed LCP, its
// element, and when the main wasm, lesson-words.json and a lesson picture finished
// downloading (ms, the observed load; anything that ended before the observed LCP is
// counted in the simulated one), the TBT and the time to interactive.
function runDetail(lhr) {
  const observed = lhr.audits.metrics?.details?.items?.[0] ?? {};
  const requests = lhr.audits['network-requests']?.details?.items ?? [];
  const end = (re) => requests.find((r) => re.test(r.url))?.networkEndTime;
  const node = lcpNodeOf(lhr);
  return `LCP ${fmt((lhr.audits['largest-contentful-paint']?.numericValue ?? NaN) / 1000, 2)} s (observed ${fmt(observed.observedLargestContentfulPaint, 0)} ms:`
    + ` ${(node?.selector ?? '—').slice(-50)}); ended: wasm ${fmt(end(/attention-lens-[^/]*_bg\.wasm$/), 0)},`
    + ` words ${fmt(end(/lesson-words\.json$/), 0)}, picture ${fmt(end(/lesson-pictures\//), 0)} ms; TBT ${fmt(lhr.audits['total-blocking-time']?.numericValue, 0)} ms;`
    + ` TTI ${fmt((lhr.audits.interactive?.numericValue ?? NaN) / 1000, 2)} s;`
    + ` long tasks (start+duration ms, as simulated): ${longTasks(lhr)}`;
}

// The `long-tasks` audit's tasks, `start+duration` in ms as the throttling computed them
// (simulated: 4× the observed), with the script each is attributed to when it is not the
// page itself: where the TBT comes from.
function longTasks(lhr) {
  const items = lhr.audits['long-tasks']?.details?.items ?? [];
  return items.length === 0 ? 'none' : items
    .map((t) => `${fmt(t.startTime, 0)}+${fmt(t.duration, 0)}${/\.js$/.test(t.url ?? '') ? ` (${t.url.split('/').pop().replace(/-[0-9a-f]{16}/, '')})` : ''}`)
    .join(', ');
}

// The LCP element: 12.x names it in the audit `largest-contentful-paint-element`, 13.x in the
// insight `lcp-breakdown-insight`; either holds it as the first detail of type `node`.
function lcpNodeOf(lhr) {
  const find = (x) => {
    if (!x || typeof x !== 'object') return undefined;
    if (x.type === 'node' && (x.selector || x.nodeLabel)) return x;
    for (const v of Array.isArray(x) ? x : Object.values(x)) {
      const hit = find(v);
      if (hit) return hit;
    }
    return undefined;
  };
  return find(lhr.audits['largest-contentful-paint-element']?.details)
    ?? find(lhr.audits['lcp-breakdown-insight']?.details);
}

function lighthouseVersion() {
  return JSON.parse(fs.readFileSync(path.join(lhRoot, 'lighthouse/package.json'))).version;
}
