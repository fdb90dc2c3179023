// Every largest-contentful-paint entry a link's load gives, with its element, size and
// time, beside the times the main wasm, lesson-words.json and the step's picture finished
// downloading and the time the app removed the first paint. Lighthouse's simulated
// throttling charges every request that ended before the observed LCP to the LCP, so an
// LCP painted after the wasm's download ended costs the whole download on a slow phone;
// and an element the app paints later, larger than the first paint's, is a later LCP.
// Not a test: it prints, run by run, what decides a link's LCP.
//   node e2e/bench/lcp-entries.mjs --dist dist [--runs 5] [--cpu 1] [--width 412 --height 823]
//     [--pages '?lesson=masks&ls=1,?lesson=masks&ls=1&present=1'] [--every-step] [--hold]
// --every-step: every step of every lesson in the build's lesson-words.json, as a lesson
// link (and with --present as presenter links). --hold: the wasm is never answered, so
// what is listed is what the first paint alone gives.
// --cpu N slows the page's CPU N× (CDP Emulation.setCPUThrottlingRate); the default, 1,
// is what Lighthouse's simulated runs observe (an unthrottled load on 127.0.0.1).
import fs from 'node:fs';
import path from 'node:path';
import { serveGzip, launch, arg, stats, fmt } from './lib.mjs';

const dist = arg('dist', 'dist');
const runs = Number(arg('runs', 5));
const cpu = Number(arg('cpu', 1));
const width = Number(arg('width', 412));
const height = Number(arg('height', 823));
const hold = process.argv.includes('--hold');
let pages = arg('pages', '?lesson=masks&ls=1,?lesson=masks&ls=2,?lesson=masks&ls=1&present=1,?lesson=baseball-bat&ls=2')
  .split(',').filter(Boolean);
if (process.argv.includes('--every-step')) {
  const words = JSON.parse(fs.readFileSync(path.join(dist, 'lesson-words.json'), 'utf8'));
  const present = process.argv.includes('--present') ? '&present=1' : '';
  pages = words.lessons.flatMap((l) => l.steps.map((_, s) => `?lesson=${l.id}&ls=${s}${present}`));
}

// Runs in the page before its own scripts: records each LCP entry as it comes (the
// element may be gone by the end) and when the first paint's <main> leaves the page.
const PROBE = () => {
  window.__lcp = [];
  const describe = (e) => {
    if (!e) return '(removed)';
    const cls = e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : '';
    const shell = e.closest && e.closest('#al-shell') ? 'shell ' : 'app ';
    const text = (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${shell}${e.tagName.toLowerCase()}${cls}${text ? ` “${text}”` : ''}`;
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__lcp.push({ t: e.startTime, size: e.size, el: describe(e.element), url: e.url ? e.url.split('/').pop() : '' });
    }
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  window.__shellGone = null;
  const watch = new MutationObserver(() => {
    if (window.__shellGone === null && document.readyState !== 'loading' && !document.getElementById('al-shell')) {
      window.__shellGone = performance.now();
      watch.disconnect();
    }
  });
  document.addEventListener('DOMContentLoaded', () => watch.observe(document.body, { childList: true }));
};

const server = await serveGzip(dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
const summary = [];
try {
  console.log(`${dist}/ at ${width}×${height}, CPU ${cpu}×, ${runs} run(s) per page${hold ? ', the wasm held back' : ''}; times in ms from navigation`);
  for (const q of pages) {
    const lasts = [];
    let afterWasm = 0;
    for (let i = 0; i < runs; i++) {
      const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true, serviceWorkers: 'block' });
      const page = await ctx.newPage();
      await page.addInitScript(PROBE);
      if (cpu !== 1) {
        const cdp = await ctx.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
      }
      if (hold) await page.route(/\.wasm$/, () => {});
      await page.goto(base + q);
      if (hold) await page.waitForTimeout(2500);
      else await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached', timeout: 60000 });
      await page.waitForTimeout(1500);
      const r = await page.evaluate(() => {
        const res = performance.getEntriesByType('resource');
        const end = (re) => {
          const x = res.find((e) => re.test(e.name));
          return x ? x.responseEnd : NaN;
        };
        return {
          lcp: window.__lcp,
          shellGone: window.__shellGone,
          wasm: end(/attention-lens-[^/]*_bg\.wasm$/),
          words: end(/lesson-words\.json$/),
          picture: end(/lesson-pictures\//),
          fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        };
      });
      await ctx.close();
      const last = r.lcp[r.lcp.length - 1];
      lasts.push(last?.t ?? NaN);
      if (last && last.t > r.wasm) afterWasm++;
      console.log(`${q} run ${i + 1}: FCP ${fmt(r.fcp, 0)}, words ${fmt(r.words, 0)}, picture ${fmt(r.picture, 0)}, wasm ${fmt(r.wasm, 0)}, shell removed ${fmt(r.shellGone ?? NaN, 0)}`);
      for (const e of r.lcp) {
        console.log(`    LCP ${fmt(e.t, 0)} ms size ${e.size}${e.t > r.wasm ? ' (after the wasm)' : ''}: ${e.el}${e.url ? ` [${e.url}]` : ''}`);
      }
    }
    const s = stats(lasts);
    summary.push(`${q}: last LCP entry median ${fmt(s.median, 0)} ms, p95 ${fmt(s.p95, 0)} ms; after the wasm's download ended in ${afterWasm} of ${runs}`);
  }
  console.log(`\n${summary.join('\n')}`);
} finally {
  await browser.close();
  server.close();
}
