// Screenshots of heatmaps (for comparing the look before and after a drawing change):
//   node e2e/bench/shot.mjs --dist dist --out /tmp/shots/new
import fs from 'node:fs';
import { serve, launch, arg } from './lib.mjs';

const PAGES = {
  masked: '?s=' + encodeURIComponent('the cat sat on the mat\nthe dog ran') + '&d=8&h=2&p=seeded&causal=1&pad=keys_and_queries&fill=neg_inf&step=weights',
  scores: '?s=' + encodeURIComponent('w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20 w21 w22 w23 w24 w25 w26 w27 w28 w29 w30 w31 w32') + '&d=64&h=8&p=seeded&causal=1&step=masked',
};

const out = arg('out', '/tmp/shots');
fs.mkdirSync(out, { recursive: true });
const server = await serve(arg('dist', 'dist'));
const browser = await launch();
for (const [name, q] of Object.entries(PAGES)) {
  for (const dpr of [1, 2]) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: dpr });
    const page = await ctx.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/${q}`);
    const c = page.locator('canvas[data-testid="heatmap"]').first();
    await c.waitFor();
    await page.waitForTimeout(200);
    await c.screenshot({ path: `${out}/${name}-dpr${dpr}.png` });
    await ctx.close();
  }
}
await browser.close();
server.close();
