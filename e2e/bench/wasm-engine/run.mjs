// Loads the harness page in headless Chromium and prints the engine's times in wasm.
import { serve, launch, stats, fmt } from '../lib.mjs';

const [dir, ...counts] = process.argv.slice(2);
const sizes = [16, 128, 512];
const runs = sizes.map((_, i) => Number(counts[i] ?? [30, 20, 10][i]));
const server = await serve(dir);
const browser = await launch();
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.waitForFunction(() => window.ready === true);
console.log('engine::run in wasm (Chromium), B=1, d_model=512, h=8, seeded: ms');
console.log('| T | runs | median | p95 |');
console.log('|---|---|---|---|');
for (let i = 0; i < sizes.length; i++) {
  const times = await page.evaluate(([t, n]) => window.engineTimes(t, n), [sizes[i], runs[i]]);
  const s = stats(times);
  console.log(`| ${sizes[i]} | ${s.n} | ${fmt(s.median, 2)} | ${fmt(s.p95, 2)} |`);
}
await browser.close();
server.close();
