// Main-thread blocking while a page starts, as a phone would see it: Chromium at a 4×
// slower CPU (CDP Emulation.setCPUThrottlingRate) and a 412 × 823 mobile viewport, each
// page loaded fresh from `dist` served with gzip; the `longtask` entries after the first
// contentful paint, and their total blocking time Σ(duration − 50 ms), as Lighthouse
// counts it. Several builds are measured in turn, run by run, so that the machine's
// noise falls on all of them alike. Not a test: it prints, and exits 0.
//   node e2e/bench/blocking.mjs --dist dist[,other-dist] [--page '?lesson=baseball-bat&ls=2'] [--runs 5]
import { chromium } from 'playwright-core';
import { serveGzip, arg, CHROMIUM_ARGS } from './lib.mjs';

const dists = arg('dist', 'dist').split(',');
const query = arg('page', '');
const runs = Number(arg('runs', 5));
const servers = await Promise.all(dists.map((d) => serveGzip(d)));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const results = dists.map(() => []);
try {
  for (let r = 0; r < runs; r++) {
    for (let i = 0; i < dists.length; i++) {
      const context = await browser.newContext({ viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await page.addInitScript(() => {
        window.__longTasks = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
        }).observe({ type: 'longtask', buffered: true });
      });
      await page.goto(`http://127.0.0.1:${servers[i].address().port}/${query}`);
      await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached', timeout: 60000 });
      await page.waitForTimeout(1500);
      const { tasks, fcp } = await page.evaluate(() => ({
        tasks: window.__longTasks,
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0,
      }));
      const after = tasks.filter(([start]) => start >= fcp).map(([, d]) => d);
      results[i].push({ tbt: after.reduce((a, d) => a + Math.max(0, d - 50), 0), tasks: after });
      await context.close();
    }
  }
  console.log(`page ${query || '/'}: blocking after the first paint at 4× CPU, ms (${runs} runs each)`);
  console.log('| build | TBT median | each run: TBT (long tasks) |');
  console.log('|---|---|---|');
  dists.forEach((d, i) => {
    const tbts = results[i].map((x) => x.tbt).sort((a, b) => a - b);
    const each = results[i].map((x) => `${Math.round(x.tbt)} (${x.tasks.map(Math.round).join(' + ')})`).join(', ');
    console.log(`| ${d} | ${Math.round(tbts[Math.floor(tbts.length / 2)])} | ${each} |`);
  });
} finally {
  await browser.close();
  servers.forEach((s) => s.close());
}
