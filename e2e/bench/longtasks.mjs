// The long tasks of a page's start, unthrottled, as the page's own
// PerformanceObserver('longtask') sees them: per load, every task over 50 ms
// ([start, duration] in ms); then the longest task's and Σ max(0, 4t − 50)'s median and
// p95 over the loads (4t: Lighthouse's simulated 4× slower CPU). `--flags` passes
// Chromium flags, e.g. `--js-flags=--no-wasm-lazy-compilation` to see what V8's
// compiling of each wasm function at its first call costs the start (BENCHMARKS.md,
// "what the start task is made of"). Not a test: it prints, and exits 0.
//   node e2e/bench/longtasks.mjs [--dist dist] [--page '?lesson=masks&ls=2'] [--runs 5] [--width 412] [--flags '...']
import { serveGzip, launch, stats, arg } from './lib.mjs';

const dist = arg('dist', 'dist');
const query = arg('page', '');
const runs = Number(arg('runs', 5));
const width = Number(arg('width', 412));
const flags = arg('flags', '');
const server = await serveGzip(dist);
const browser = await launch(flags ? flags.split(' ') : []);
const longest = [];
const blocking = [];
try {
  for (let r = 0; r < runs; r++) {
    const ctx = await browser.newContext({ viewport: { width, height: 823 }, serviceWorkers: 'block' });
    await ctx.addInitScript(() => {
      window.alLongTasks = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) window.alLongTasks.push([Math.round(e.startTime), Math.round(e.duration)]);
      }).observe({ type: 'longtask', buffered: true });
    });
    const page = await ctx.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/${query}`);
    await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached', timeout: 60000 });
    await page.waitForTimeout(1500);
    const tasks = await page.evaluate(() => window.alLongTasks);
    console.log(`load ${r + 1}: ${JSON.stringify(tasks)}`);
    longest.push(Math.max(0, ...tasks.map((t) => t[1])));
    blocking.push(tasks.reduce((s, t) => s + Math.max(0, 4 * t[1] - 50), 0));
    await ctx.close();
  }
} finally {
  await browser.close();
  server.close();
}
const f = (xs) => { const s = stats(xs); return `${s.median.toFixed(0)} / ${s.p95.toFixed(0)} ms`; };
console.log(`${dist}/${query} at ${width} px${flags ? `, ${flags}` : ''}: longest task ${f(longest)}; Σ max(0, 4t − 50) ${f(blocking)} (median / p95, ${runs} loads)`);
