// Training steps per second in the Learn view's worker, as the page sees them: the
// issue-39 configuration (previous-token, vocab 16, T 8, batch 32, d_model 16, h 2,
// 1 layer, learned positions, causal, Adam: the view's preset), played at each speed.
//
//   node e2e/bench/learn-rate.mjs [--dist dist[,dist2…]] [--runs 5] [--seconds 4] [--speeds watch,fast]
//
// Each run: Reset, pick the speed, Play, and after a one-second warm-up count the steps
// the page shows over --seconds (steps shown / wall time between two readings of the
// counter). Runs of every speed and every --dist folder alternate (one page per folder,
// each served on its own port), so all see the same minutes of the machine.
import { serve, launch, stats, fmt, arg } from './lib.mjs';

const RUNS = Number(arg('runs', 5));
const SECONDS = Number(arg('seconds', 4));
const DISTS = String(arg('dist', 'dist')).split(',');
const SPEEDS = String(arg('speeds', 'watch,fast')).split(',');
const STEPS = '[data-testid="learn-steps"]';

async function run(page, speed) {
  await page.click('[data-testid="learn-reset"]');
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '0', STEPS);
  await page.selectOption('[data-testid="learn-speed"]', speed);
  await page.click('[data-testid="learn-play"]');
  await page.waitForTimeout(1000);
  const read = () => page.evaluate((sel) => [Number(document.querySelector(sel).textContent), performance.now()], STEPS);
  const [s0, t0] = await read();
  await page.waitForTimeout(SECONDS * 1000);
  const [s1, t1] = await read();
  // A run that reached its step budget has stopped by itself (Pause is disabled then).
  if (s1 >= 5000) throw new Error(`${speed}: the run reached its 5000-step budget; use fewer --seconds`);
  await page.click('[data-testid="learn-pause"]');
  await page.waitForSelector('[data-testid="learn-status"][data-busy="false"]');
  return (s1 - s0) * 1000 / (t1 - t0);
}

async function main() {
  const servers = await Promise.all(DISTS.map((d) => serve(d)));
  const browser = await launch();
  const rates = DISTS.map(() => Object.fromEntries(SPEEDS.map((s) => [s, []])));
  try {
    const pages = [];
    for (const server of servers) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      await page.goto(`http://127.0.0.1:${server.address().port}/?learn=previous-token`);
      await page.waitForSelector('[data-testid="learn-head"] canvas');
      pages.push(page);
    }
    for (let i = 0; i < RUNS; i++) {
      for (const [d, page] of pages.entries()) {
        // only the page being measured is in front (a hidden page's timers are throttled)
        await page.bringToFront();
        for (const speed of SPEEDS) rates[d][speed].push(await run(page, speed));
      }
    }
  } finally {
    await browser.close();
    for (const server of servers) server.close();
  }
  console.log(`Learn view, previous-token preset, ${RUNS} runs of ${SECONDS} s per speed, steps/s as the page counts them`);
  console.log('| build | speed | median | 5th percentile (the slow end) | every run |');
  console.log('|---|---|---|---|---|');
  for (const [d, byspeed] of rates.entries()) {
    for (const [speed, xs] of Object.entries(byspeed)) {
      const s = stats(xs);
      const sorted = [...xs].sort((a, b) => a - b);
      const p5 = sorted[Math.floor(0.05 * (sorted.length - 1))];
      console.log(`| ${DISTS[d]} | ${speed} | ${fmt(s.median, 0)} | ${fmt(p5, 0)} | ${xs.map((x) => fmt(x, 0)).join(', ')} |`);
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
