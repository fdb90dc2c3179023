// Screenshots of a link's first paint, before the WebAssembly arrives (every .wasm
// request held back), on a phone and a laptop, to look at what a visitor sees first:
//   node e2e/bench/first-paint-shot.mjs --dist dist --out /tmp/shots/first-paint
import fs from 'node:fs';
import { serve, launch, arg } from './lib.mjs';

const PAGES = {
  lesson: '?lesson=masks&ls=2',
  presenter: '?lesson=masks&ls=1&present=1',
  'first-screen': '',
};

const out = arg('out', '/tmp/shots/first-paint');
fs.mkdirSync(out, { recursive: true });
const server = await serve(arg('dist', 'dist'));
const browser = await launch();
for (const [name, q] of Object.entries(PAGES)) {
  for (const [device, width, height] of [['phone', 412, 823], ['laptop', 1280, 800]]) {
    const ctx = await browser.newContext({ viewport: { width, height }, serviceWorkers: 'block' });
    const page = await ctx.newPage();
    await page.route(/\.wasm$/, () => {}); // never answered: the first paint stays
    await page.goto(`http://127.0.0.1:${server.address().port}/${q}`);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${out}/${name}-${device}.png` });
    await ctx.close();
  }
}
await browser.close();
server.close();
