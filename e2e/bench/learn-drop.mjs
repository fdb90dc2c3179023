// Time to the induction drop in the Learn view's worker, as the page shows it: the
// `?learn=induction` preset (BENCHMARKS.md's fixed run: vocab 32, T 20, batch 16, seed 7,
// d_model 16, 1 head, 2 layers, learned positions, causal, Adam 0.01) played at fast speed.
//
//   node e2e/bench/learn-drop.mjs [--dist dist] [--runs 3] [--limit 60]
//
// Each run: Reset, pick fast, Play, then read the page every 50 ms. "The drop" here is the
// first reading whose probe loss (the number the page shows, on the 16 probe sequences) is
// below 0.5 nats; the figure is the wall time from the click on Play to that reading, with
// the step the page showed then. A run that has not dropped after --limit seconds fails.
import { serve, launch, stats, fmt, arg } from './lib.mjs';

const RUNS = Number(arg('runs', 3));
const LIMIT = Number(arg('limit', 60));
const sel = (id) => `[data-testid="${id}"]`;

async function run(page) {
  await page.click(sel('learn-reset'));
  await page.waitForFunction((s) => document.querySelector(s)?.textContent === '0', sel('learn-steps'));
  await page.selectOption(sel('learn-speed'), 'fast');
  const t0 = await page.evaluate(() => performance.now());
  await page.click(sel('learn-play'));
  const found = await page.waitForFunction(
    ([steps, loss, t0]) => {
      const l = Number(document.querySelector(loss)?.textContent);
      if (!(l < 0.5)) return false;
      return [Number(document.querySelector(steps).textContent), l, (performance.now() - t0) / 1000];
    },
    [sel('learn-steps'), sel('learn-loss'), t0],
    { polling: 50, timeout: LIMIT * 1000 },
  );
  const [step, loss, seconds] = await found.jsonValue();
  await page.click(sel('learn-pause'));
  await page.waitForSelector(`${sel('learn-status')}[data-busy="false"]`);
  return { step, loss, seconds };
}

async function main() {
  const server = await serve(arg('dist', 'dist'));
  const browser = await launch();
  const runs = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`http://127.0.0.1:${server.address().port}/?learn=induction`);
    await page.waitForSelector(`${sel('learn-head')} canvas`);
    for (let i = 0; i < RUNS; i++) runs.push(await run(page));
  } finally {
    await browser.close();
    server.close();
  }
  console.log(`Learn view, induction preset at fast speed, ${RUNS} runs: seconds from Play to probe loss < 0.5`);
  console.log('| run | seconds | step shown | probe loss shown |');
  console.log('|---|---|---|---|');
  runs.forEach((r, i) => console.log(`| ${i + 1} | ${fmt(r.seconds, 2)} | ${r.step} | ${fmt(r.loss, 3)} |`));
  console.log(`median ${fmt(stats(runs.map((r) => r.seconds)).median, 2)} s`);
}

main().catch((e) => { console.error(e); process.exit(1); });
