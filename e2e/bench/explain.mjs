// Explanation panel latency: from a trusted keystroke on a focused heatmap (Enter opens
// the panel, an arrow key moves it) to the next frame, on the medium page.
//
//   node e2e/bench/explain.mjs [--dist dist] [--moves 40] [--opens 10] [--rounds 2] [--no-vsync]
//
// --no-vsync runs Chromium with --disable-frame-rate-limit: frames are produced as soon
// as there is something to draw instead of at the next 60 Hz tick, so "frame" is the
// page's own cost without the wait for the display (see the floor below).
//
// Several builds (--dist a,b) are measured interleaved: step by step, in `--rounds`
// rounds each taking its share of the opens and moves from every build in turn.
//
// Times (ms, from the keydown event's timeStamp):
//   work  = until a task posted from the keydown listener runs: the handlers and the
//           microtasks in which Leptos updates the panel are done (script work only)
//   raf   = until the next requestAnimationFrame callback starts (the panel's DOM has
//           been updated: Leptos runs its effects in microtasks before it)
//   frame = until a message posted from that callback arrives, i.e. after the frame that
//           shows the new panel was produced (style, layout, paint included)
// Each step of the medium page (B=2, T=32, d_model=64, h=8) is measured on its own:
// weights (32 exps), scores (8 products), q (65 terms: 16 largest and the rest), output.
// The floor is the same measure for a keystroke whose only effect is one changed text
// node (a listener the benchmark adds; the panel is open and ignores the key): what any
// keystroke costs on this page, the wait for the next frame included (Chromium draws at
// the display's rate, 60 Hz headless: a change waits up to 16.7 ms for its frame, so
// "frame" cannot be below that wait; "the frame itself" (frame − raf) leaves it out).
import { serve, launch, stats, fmt, arg, sentences, addFloorKey } from './lib.mjs';

const MOVES = Number(arg('moves', 40));
const OPENS = Number(arg('opens', 10));
const WARMUP = 3;
const medium = (step) => `?s=${encodeURIComponent(sentences(2, 32))}&d=64&h=8&p=seeded&pad=keys&step=${step}`;
const STEPS = ['weights', 'scores', 'q', 'output'];

const ARM = () => {
  window.__alResult = new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 10000);
    document.addEventListener('keydown', (ev) => {
      clearTimeout(timer);
      const t0 = ev.timeStamp;
      // a task queued now runs after the keydown's handlers and Leptos's microtasks
      let work = NaN;
      const done = new MessageChannel();
      done.port1.onmessage = () => { work = performance.now() - t0; };
      done.port2.postMessage(0);
      requestAnimationFrame(() => {
        const raf = performance.now() - t0;
        const mc = new MessageChannel();
        mc.port1.onmessage = () => resolve({
          work,
          raf,
          frame: performance.now() - t0,
          title: document.querySelector('[data-testid="explain"] .al-ex-title')?.textContent ?? null,
        });
        mc.port2.postMessage(0);
      });
    }, { capture: true, once: true });
  });
};

async function press(page, key) {
  await page.evaluate(ARM);
  await page.keyboard.press(key);
  const r = await page.evaluate(() => window.__alResult);
  if (r === null) throw new Error(`${key}: no keydown`);
  return r;
}

async function measure(browser, base, step, opens, moves) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base + medium(step));
  const sel = `canvas[data-testid="heatmap"][data-step="${step}"][data-head="0"][data-batch="0"]`;
  await page.waitForSelector(sel);
  await page.waitForTimeout(300);
  await page.focus(sel);
  const open = [];
  for (let i = 0; i < WARMUP + opens; i++) {
    const r = await press(page, 'Enter');
    if (!r.title) throw new Error(`${step}: Enter did not open the panel`);
    if (i >= WARMUP) open.push(r);
    await press(page, 'Escape');
    await page.waitForTimeout(20);
  }
  await press(page, 'Enter');
  const move = [];
  let last = null;
  for (let i = 0; i < WARMUP + moves; i++) {
    // a staircase: down, right, down, … (stays inside a 32 × 32 matrix)
    const r = await press(page, i % 2 === 0 ? 'ArrowDown' : 'ArrowRight');
    if (r.title === last) throw new Error(`${step}: the panel did not move (${r.title})`);
    last = r.title;
    if (i >= WARMUP) move.push(r);
    await page.waitForTimeout(20);
  }
  // the floor: a key the page ignores, whose listener changes one text node
  await addFloorKey(page);
  const floor = [];
  for (let i = 0; i < WARMUP + moves; i++) {
    const r = await press(page, 'x');
    if (i >= WARMUP) floor.push(r);
    await page.waitForTimeout(20);
  }
  await context.close();
  if (errors.length) throw new Error(`${step}: page errors: ${errors.join('; ')}`);
  return { step, open, move, floor };
}

async function main() {
  const dists = arg('dist', 'dist').split(',');
  const rounds = Math.max(1, Number(arg('rounds', 2)));
  const servers = await Promise.all(dists.map((d) => serve(d)));
  const bases = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
  const noVsync = process.argv.includes('--no-vsync');
  const browser = await launch(noVsync ? ['--disable-frame-rate-limit'] : []);
  const out = dists.map(() => []);
  try {
    for (const step of STEPS) {
      const acc = dists.map(() => ({ step, open: [], move: [], floor: [] }));
      for (let r = 0; r < rounds; r++) {
        // each round takes its share; the first gets the remainder
        const share = (n) => Math.floor(n / rounds) + (r === 0 ? n % rounds : 0);
        for (let i = 0; i < dists.length; i++) {
          const m = await measure(browser, bases[i], step, share(OPENS), share(MOVES));
          for (const k of ['open', 'move', 'floor']) acc[i][k].push(...m[k]);
        }
      }
      for (let i = 0; i < dists.length; i++) out[i].push(acc[i]);
    }
  } finally {
    await browser.close();
    for (const s of servers) s.close();
  }
  const cell = (rows, k) => { const s = stats(rows.map((r) => r[k])); return `${fmt(s.median)} / ${fmt(s.p95)} (${fmt(s.max)})`; };
  for (let i = 0; i < dists.length; i++) {
    console.log(`\n${dists[i]}: explanation panel on the medium page (B=2, T=32, d_model=64, h=8)${noVsync ? ', no vsync (--disable-frame-rate-limit)' : ''}, ms: median / p95 (max)`);
    console.log('| step | open: work | open: frame | move: work | move: raf | move: frame | floor: frame |');
    console.log('|---|---|---|---|---|---|---|');
    for (const { step, open, move, floor } of out[i]) {
      console.log(`| ${step} | ${cell(open, 'work')} | ${cell(open, 'frame')} | ${cell(move, 'work')} | ${cell(move, 'raf')} | ${cell(move, 'frame')} | ${cell(floor, 'frame')} |`);
    }
    const all = out[i].flatMap((o) => [...o.open, ...o.move]);
    const s = stats(all.map((r) => r.frame));
    const w = stats(all.map((r) => r.work));
    const floor = out[i].flatMap((o) => o.floor);
    const f = stats(floor.map((r) => r.frame));
    // the frame itself: from its requestAnimationFrame to its end (style, layout, paint)
    const own = (rows) => stats(rows.map((r) => r.frame - r.raf));
    const [a, b] = [own(all), own(floor)];
    console.log(`\nall ${s.n} interactions: to the next frame median ${fmt(s.median)}, p95 ${fmt(s.p95)} ms (target p95 ≤ 16 ms); script work median ${fmt(w.median)}, p95 ${fmt(w.p95)} ms; the frame itself (frame − raf) median ${fmt(a.median)}, p95 ${fmt(a.p95)} ms`);
    console.log(`floor, ${f.n} keystrokes that change one text node: to the next frame median ${fmt(f.median)}, p95 ${fmt(f.p95)} ms; the frame itself median ${fmt(b.median)}, p95 ${fmt(b.p95)} ms`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
