// Where the explanation panel's time goes on the medium page: a V8 CPU profile over a few
// moves (arrow keys), close-and-open cycles (Escape, Enter) or floor keystrokes (a key
// whose only effect is one changed text node), summed by function; with --trace FILE
// also a Chromium performance trace (style, layout, paint, commit) summed by event.
//   node e2e/bench/profile-explain.mjs --dist dist --step q [--mode move|open|floor]
//        [--moves 30] [--top 25] [--trace /tmp/t.json]
// "busy" is JS and wasm time; the browser's own work (layout, paint) shows as (program)
// in the profile and by name in the trace. wasm functions have names only in a build
// that keeps them (target/wasm-bindgen/release/*_bg.wasm before wasm-opt).
import fs from 'node:fs';
import { serve, launch, arg, sentences, addFloorKey } from './lib.mjs';

const step = arg('step', 'weights');
const mode = arg('mode', 'move');
const n = Number(arg('moves', 30));
const url = `?s=${encodeURIComponent(sentences(2, 32))}&d=64&h=8&p=seeded&pad=keys&step=${step}`;
const server = await serve(arg('dist', 'dist'));
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/${url}`);
const sel = `canvas[data-testid="heatmap"][data-step="${step}"][data-head="0"][data-batch="0"]`;
await page.waitForSelector(sel);
await page.waitForTimeout(500);
await page.focus(sel);
await page.keyboard.press('Enter');
await page.waitForTimeout(200);
if (mode === 'floor') {
  await addFloorKey(page);
}
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
const trace = arg('trace', '');
if (trace) {
  await browser.startTracing(page, {
    path: trace,
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing'],
  });
}
await cdp.send('Profiler.start');
for (let i = 0; i < n; i++) {
  if (mode === 'floor') await page.keyboard.press('x');
  else if (mode === 'move') await page.keyboard.press(i % 2 ? 'ArrowRight' : 'ArrowDown');
  else {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(60);
    await page.keyboard.press('Enter');
  }
  await page.waitForTimeout(120);
}
const { profile } = await cdp.send('Profiler.stop');
if (trace) await browser.stopTracing();
await browser.close();
server.close();

const dt = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  dt.set(profile.samples[i], (dt.get(profile.samples[i]) || 0) + (profile.timeDeltas[i] || 0));
}
const self = new Map();
let busy = 0;
for (const node of profile.nodes) {
  const t = (dt.get(node.id) || 0) / 1000;
  const name = node.callFrame.functionName;
  if (t === 0 || name === '(idle)') continue;
  const key = name || `(anonymous ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber})`;
  self.set(key, (self.get(key) || 0) + t);
  if (!['(program)', '(garbage collector)'].includes(name)) busy += t;
}
const unit = { move: 'move', open: 'close-and-open cycle', floor: 'keystroke' }[mode];
console.log(`${step}: self time, ms per ${unit} (busy ${(busy / n).toFixed(2)})`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(arg('top', 25)))) {
  console.log(`${(v / n).toFixed(3).padStart(8)}  ${k.slice(0, 140)}`);
}
if (trace) {
  const events = JSON.parse(fs.readFileSync(trace, 'utf8'));
  const sum = new Map();
  for (const e of events.traceEvents || events) {
    // "Paint" is reported for #document and again, nested, for HTML: count it once
    if (e.ph !== 'X' || !e.dur || (e.name === 'Paint' && e.args?.data?.nodeName === 'HTML')) continue;
    sum.set(e.name, (sum.get(e.name) || 0) + e.dur / 1000);
  }
  console.log(`\ntrace, ms per ${unit}:`);
  for (const name of ['FunctionCall', 'RunMicrotasks', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'RasterTask']) {
    console.log(`${((sum.get(name) || 0) / n).toFixed(2).padStart(8)}  ${name}`);
  }
}
