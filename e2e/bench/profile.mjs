// Where an edit's time goes: a V8 CPU profile (Chrome DevTools Protocol) over a few
// edits, summed by function (self time). wasm functions show as wasm-function[N] unless
// the build keeps names; the wasm-bindgen glue (__wbg_…) names the browser call.
//   node e2e/bench/profile.mjs --dist dist --page medium [--edits 10] [--top 25]
import { serve, launch, arg, sentences } from './lib.mjs';

const q = (s, rest) => `?s=${encodeURIComponent(s)}&${rest}`;
const PAGES = {
  default: '',
  medium: q(sentences(2, 32), 'd=64&h=8&p=seeded&pad=keys&step=weights'),
  stress: q(sentences(4, 128), 'd=256&h=8&p=seeded&pad=keys&step=weights'),
};
const server = await serve(arg('dist', 'dist'));
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/${PAGES[arg('page', 'medium')]}`);
await page.waitForSelector('canvas[data-testid="heatmap"]');
await page.waitForTimeout(300);
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
const ta = page.locator('[data-testid="sentences"]');
const caret = await ta.evaluate((el) => el.value.split('\n')[0].indexOf(' '));
await cdp.send('Profiler.start');
const edits = Number(arg('edits', 10));
for (let i = 0; i < edits; i++) {
  await ta.evaluate((el, pos) => { el.focus(); el.setSelectionRange(pos, pos); }, i % 2 ? caret + 1 : caret);
  await page.keyboard.press(i % 2 ? 'Backspace' : 'x');
  await page.waitForTimeout(150);
}
const { profile } = await cdp.send('Profiler.stop');
const self = new Map();
const dt = new Map();
for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) || 0) + (profile.timeDeltas[i] || 0));
let total = 0;
for (const n of profile.nodes) {
  const t = (dt.get(n.id) || 0) / 1000;
  if (['(idle)', '(program)', '(garbage collector)'].includes(n.callFrame.functionName) || t === 0) {
    if (n.callFrame.functionName === '(garbage collector)') self.set('(gc)', (self.get('(gc)') || 0) + t);
    continue;
  }
  const key = n.callFrame.functionName || `(anonymous ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber})`;
  self.set(key, (self.get(key) || 0) + t);
  total += t;
}
console.log(`self time over ${edits} edits, ms per edit (busy total ${(total / edits).toFixed(1)})`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(arg('top', 25)))) {
  console.log(`${(v / edits).toFixed(2).padStart(8)}  ${k}`);
}
await browser.close();
server.close();
