// Where the engine worker starts to pay (issue 14): for a range of sizes, the engine's
// time on the main thread when it runs there (`?engine=sync`) against what the main
// thread pays for the worker's answer (`?engine=worker`: reading the trace back, the
// `al-engine` marks around `attention_worker::join`), and the worker's whole round trip
// (keystroke → trace on the page). Edits as in latency.mjs.
//
//   node e2e/bench/crossover.mjs --dist dist --edits 12
import { serve, launch, stats, fmt, arg, sentences } from './lib.mjs';

const EDITS = Number(arg('edits', 12));
const SIZES = [ // [B, T, d_model, h]
  [2, 32, 64, 8], [2, 64, 64, 8], [2, 64, 128, 8], [4, 64, 128, 8], [2, 128, 128, 8],
  [4, 32, 256, 8], [4, 128, 128, 8], [1, 128, 256, 8], [2, 128, 256, 8], [4, 128, 256, 8],
];
const work = ([b, t, d, h]) => b * 4 * t * d * d + 2 * b * h * t * t * (d / h) + 16 * b * h * t * t;

async function measure(browser, base, size, engine) {
  const [b, t, d, h] = size;
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}?s=${encodeURIComponent(sentences(b, t))}&d=${d}&h=${h}&p=seeded&pad=keys&step=weights&engine=${engine}`);
  await page.waitForSelector('canvas[data-testid="heatmap"]');
  const ta = page.locator('[data-testid="sentences"]');
  const rows = [];
  for (let i = 0; i < EDITS + 2; i++) {
    await ta.evaluate((el, pos) => { el.focus(); el.setSelectionRange(pos, pos); }, i % 2 ? 3 : 2);
    await page.evaluate(() => { performance.clearMarks(); window.__t0 = null;
      document.addEventListener('input', (e) => { window.__t0 = e.timeStamp; }, { capture: true, once: true }); });
    await page.keyboard.press(i % 2 ? 'Backspace' : 'x');
    await page.waitForFunction(() => performance.getEntriesByName('al-engine-end').length > 0, null, { timeout: 20000 });
    const r = await page.evaluate(() => {
      const s = performance.getEntriesByName('al-engine-start')[0].startTime;
      const e = performance.getEntriesByName('al-engine-end')[0].startTime;
      return { main: e - s, total: e - window.__t0 };
    });
    if (i >= 2) rows.push(r);
    await page.waitForTimeout(150);
  }
  await context.close();
  return rows;
}

const server = await serve(arg('dist', 'dist'));
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
// each edit changes one sentence of B: the engine copies the others (state::work_to_do)
console.log('| B, T, d_model, h | work (M multiply-adds) | to do per edit (1 of B sentences) | engine on the page | worker: main thread | worker: round trip |');
console.log('|---|---|---|---|---|---|');
try {
  for (const size of SIZES) {
    const sync = await measure(browser, base, size, 'sync');
    const wk = await measure(browser, base, size, 'worker');
    const m = (rows, k) => { const s = stats(rows.map((r) => r[k])); return `${fmt(s.median)} / ${fmt(s.p95)}`; };
    console.log(`| ${size.join(', ')} | ${fmt(work(size) / 1e6)} | ${fmt(work(size) / size[0] / 1e6)} | ${m(sync, 'main')} | ${m(wk, 'main')} | ${m(wk, 'total')} |`);
  }
} finally {
  await browser.close();
  server.close();
}
