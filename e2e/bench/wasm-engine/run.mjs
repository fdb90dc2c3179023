// Loads the harness page(s) in headless Chromium and prints the engine's times in wasm.
//   node run.mjs DIR[,DIR2...] [RUNS_T16 RUNS_T128 RUNS_T512]
// Several builds (e.g. with and without simd128) run interleaved: each size's runs are
// split into chunks that alternate between the builds, so that their ratio comes from
// the same seconds of a noisy machine.
import path from 'node:path';
import { serve, launch, stats, fmt } from '../lib.mjs';

const [dirList, ...counts] = process.argv.slice(2);
const dirs = dirList.split(',');
const sizes = [16, 128, 512];
const runs = sizes.map((_, i) => Number(counts[i] ?? [30, 20, 10][i]));
const CHUNKS = 5;
const servers = await Promise.all(dirs.map((d) => serve(d)));
const browser = await launch();
const pages = [];
for (const s of servers) {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${s.address().port}/`);
  await page.waitForFunction(() => window.ready === true);
  pages.push(page);
}
const times = dirs.map(() => sizes.map(() => []));
for (let i = 0; i < sizes.length; i++) {
  const chunk = Math.max(1, Math.ceil(runs[i] / CHUNKS));
  for (let done = 0; done < runs[i]; done += chunk) {
    const n = Math.min(chunk, runs[i] - done);
    // alternate which build goes first in each chunk
    const order = pages.map((_, j) => j);
    if ((done / chunk) % 2) order.reverse();
    for (const j of order) {
      times[j][i].push(...await pages[j].evaluate(([t, k]) => window.engineTimes(t, k), [sizes[i], n]));
    }
  }
}
console.log('engine::run in wasm (Chromium), B=1, d_model=512, h=8, seeded: ms, median / p95');
console.log(`| T | runs | ${dirs.map((d) => path.basename(d)).join(' | ')} |${dirs.length > 1 ? ' ratio of medians (2nd / 1st) |' : ''}`);
console.log(`|---|---|${dirs.map(() => '---|').join('')}${dirs.length > 1 ? '---|' : ''}`);
for (let i = 0; i < sizes.length; i++) {
  const s = times.map((t) => stats(t[i]));
  const cells = s.map((x) => `${fmt(x.median, 2)} / ${fmt(x.p95, 2)}`);
  const ratio = dirs.length > 1 ? ` ${fmt(s[1].median / s[0].median, 2)} |` : '';
  console.log(`| ${sizes[i]} | ${s[0].n} | ${cells.join(' | ')} |${ratio}`);
}
await browser.close();
servers.forEach((s) => s.close());
