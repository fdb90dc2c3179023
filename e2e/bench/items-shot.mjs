// Full-page screenshots of given app queries at given viewports:
//   node e2e/bench/items-shot.mjs --dist dist --out /tmp/shots 'name|?lesson=local&ls=1|1440x900' ...
import fs from 'node:fs';
import { serve, launch, arg } from './lib.mjs';

const out = arg('out', '/tmp/shots');
fs.mkdirSync(out, { recursive: true });
const server = await serve(arg('dist', 'dist'));
const browser = await launch();
for (const spec of process.argv.slice(2).filter((a) => a.includes('|'))) {
  const [name, q, size, action] = spec.split('|');
  const [w, h] = size.split('x').map(Number);
  const ctx = await browser.newContext({ viewport: { width: w, height: h } });
  const page = await ctx.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/${q}`);
  await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
  await page.waitForTimeout(600);
  if (action) { await page.evaluate(action); await page.waitForTimeout(600); }
  await page.screenshot({ path: `${out}/${name}.png`, fullPage: !q.includes('present=1') });
  await ctx.close();
}
await browser.close();
server.close();
