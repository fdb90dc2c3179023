// Training steps per second in wasm (headless Chromium, the page's thread), for
// BENCHMARKS.md: the previous-token model of `train_bench speed` and the induction run of
// `train_bench induction`. Needs the harness built as the worker ships the engine:
// `PROFILE=release-worker SIMD=0 e2e/bench/wasm-engine/run.sh` (pkg/).
//   node e2e/bench/wasm-engine/train.mjs [DIR] [RUNS]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, stats, fmt } from '../lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] ?? path.join(here, 'pkg');
const runs = Number(process.argv[3] ?? 15);
const speed = JSON.stringify({
  task: 'previous-token', vocab: 16, T: 8, batch: 32, seed: 1, steps: 1000000, d_model: 16, n_heads: 2,
  n_layers: 1, positions: 'learned', causal: true, optimizer: { kind: 'adam', lr: 0.01 },
});
const induction = JSON.stringify({
  task: 'induction', vocab: 32, T: 20, batch: 16, seed: 7, steps: 1000000, d_model: 16, n_heads: 1,
  n_layers: 2, positions: 'learned', causal: true, optimizer: { kind: 'adam', lr: 0.01 },
});
const server = await serve(dir);
const browser = await launch();
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.waitForFunction(() => window.ready === true);
for (const [name, config] of [['previous-token (vocab 16, T 8, batch 32, d 16, h 2, 1 layer, Adam)', speed],
  ['induction (vocab 32, T 20, batch 16, d 16, h 1, 2 layers, Adam)', induction]]) {
  const rates = await page.evaluate(([c, r]) => Array.from(window.trainRates(c, 500, r)), [config, runs]);
  const s = stats(rates);
  // the p95 step time is the 5th percentile of the rate
  const sorted = [...rates].sort((a, b) => a - b);
  const p5 = sorted[Math.round((sorted.length - 1) * 0.05)];
  console.log(`${name}: ${runs} runs of 500 steps in wasm: median ${fmt(s.median, 0)} steps/s, ` +
    `p95 step time ${fmt(1000 / p5, 3)} ms (${fmt(p5, 0)} steps/s)`);
}
await browser.close();
server.close();
