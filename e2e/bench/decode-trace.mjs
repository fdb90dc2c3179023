// Where a step of the decode view (or the tiles view) spends its main-thread time, for
// several builds (and stylesheets) compared step by step: each variant's page is open in
// its own renderer, and the steps go round the pages in turn (variant 1's step k, then
// variant 2's step k, …, 100 ms apart), all in one Chrome trace. A slow stretch of the
// machine then falls on neighbouring steps of every variant alike, and the paired
// differences (step k of a variant minus step k of the first) show a change of a few
// tenths of a millisecond that run-to-run noise hides. The page is decode.mjs's: T = 128,
// d_model = 512, h = 8, one causal sentence, at 1440 × 900.
//
// A step is a burst of tasks (60 ms apart from the next) that dispatches a keydown.
//
//   node e2e/bench/decode-trace.mjs [--dist dist[,dist2…]] [--view decode|tiles]
//        [--steps 60] [--css 'rule' [--css2 'rule' …]] [--tail]
//
// --css adds a stylesheet to the page (an experiment without a build): each build runs
// plainly and with each of --css, --css2, --css3, --css4. --tail prints each variant's
// three slowest steps part by part (is the tail a collection, or everything slower?).
//
// Per variant: the median and p95 of a step's thread time (`tdur`) over the page's
// top-level tasks (RunTask: decode.mjs's cpu column), the median paired difference from
// the first variant with the share of steps where it is lower, and the median per step of
//   script   event dispatch, function calls, timers and microtasks (our wasm and Leptos)
//   style    UpdateLayoutTree (style recalculation)
//   layout   Layout
//   prepaint PrePaint
//   paint    Paint
//   layerize Layerize (PaintArtifactCompositor::Update)
//   commit   the main thread's part of the compositor commit
//   gc       V8 major and minor collections
// An event inside another of the same part counts once (Paint inside Paint). The parts
// may still nest (a layout forced inside a script counts under both): they are where to
// look, not parts that add up to the total.
import { serve, launch, stats, fmt, arg, sentences } from './lib.mjs';

const STEPS = Number(arg('steps', 60));
const VIEW = arg('view', 'decode');
const DISTS = arg('dist', 'dist').split(',');
const S = encodeURIComponent(sentences(1, 128));
const QUERY = `?s=${S}&d=512&h=8&p=seeded&seed=1&causal=1&pad=keys&view=${VIEW}${VIEW === 'tiles' ? '&block=16' : ''}`;
const GAP = 100;

const PARTS = {
  script: ['EventDispatch', 'FunctionCall', 'TimerFire', 'RunMicrotasks', 'V8.Execute', 'FireAnimationFrame'],
  style: ['UpdateLayoutTree'],
  layout: ['Layout'],
  prepaint: ['PrePaint'],
  paint: ['Paint'],
  layerize: ['Layerize'],
  commit: ['Commit'],
  gc: ['MajorGC', 'MinorGC', 'V8.GC_MARK_COMPACTOR', 'V8.GC_SCAVENGER'],
};

/** A variant's page, loaded, focused and stepped to t = 60. */
async function open(browser, base, css, name) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}${QUERY}`);
  await page.waitForSelector(`[data-testid="${VIEW}-check"][data-diff]`, { timeout: 120000 });
  if (css) await page.addStyleTag({ content: css });
  await page.waitForTimeout(300);
  await page.focus(`[data-testid="${VIEW}-view"]`);
  // to t = 60, where decode.mjs steps too: more keys than the weights table lists
  for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(300);
  return { name, context, page };
}

/** Per renderer main thread: its steps (bursts of tasks 60 ms apart), part by part. */
function stepsByThread(events) {
  const key = (e) => `${e.pid}:${e.tid}`;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map(key));
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !mains.has(key(e))) continue;
    if (!byThread.has(key(e))) byThread.set(key(e), []);
    byThread.get(key(e)).push(e);
  }
  const out = new Map();
  for (const [thread, evs] of byThread) {
    evs.sort((a, b) => a.ts - b.ts);
    const steps = [];
    let last = -Infinity;
    for (const e of evs) {
      if (e.name !== 'RunTask' || e.tdur === undefined) continue;
      if (e.ts - last > 60_000) steps.push({ from: e.ts, to: e.ts + e.dur, all: 0 });
      const s = steps[steps.length - 1];
      s.all += e.tdur / 1000;
      s.to = Math.max(s.to, e.ts + e.dur);
      last = e.ts + e.dur;
    }
    // a step is a burst with the key's dispatch in it (not a timer's burst)
    const keys = evs.filter((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'keydown');
    const real = steps.filter((s) => keys.some((e) => e.ts >= s.from && e.ts <= s.to));
    for (const s of real) for (const p of Object.keys(PARTS)) s[p] = 0;
    const open = {};
    let k = 0;
    for (const e of evs) {
      const part = Object.keys(PARTS).find((p) => PARTS[p].includes(e.name));
      if (!part) continue;
      // inside an event of the same part: already counted
      if (open[part] !== undefined && e.ts < open[part]) continue;
      open[part] = e.ts + e.dur;
      while (k < real.length && real[k].to < e.ts) k++;
      const s = real[k];
      if (s && e.ts >= s.from) s[part] += (e.tdur ?? e.dur) / 1000;
    }
    out.set(thread, { steps: real, marks: evs });
  }
  return out;
}

const CSS = [undefined];
for (const name of ['css', 'css2', 'css3', 'css4']) if (arg(name)) CSS.push(arg(name));
const browser = await launch();
const servers = await Promise.all(DISTS.map((d) => serve(d)));
try {
  const variants = [];
  for (let i = 0; i < DISTS.length; i++) {
    for (let c = 0; c < CSS.length; c++) {
      const base = `http://127.0.0.1:${servers[i].address().port}/`;
      variants.push(await open(browser, base, CSS[c], DISTS[i] + (c ? ` +css${c}` : '')));
    }
  }
  await browser.startTracing(variants[0].page, {
    categories: ['disabled-by-default-devtools.timeline', 'devtools.timeline', 'toplevel', 'blink.user_timing'],
  });
  // each page names its renderer in the trace
  for (let v = 0; v < variants.length; v++) {
    await variants[v].page.evaluate((v) => performance.mark(`al-variant-${v}`), v);
  }
  await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < STEPS; i++) {
    for (const { page } of variants) {
      await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
      await page.waitForTimeout(GAP);
    }
  }
  const trace = JSON.parse((await browser.stopTracing()).toString());
  const events = trace.traceEvents || trace;
  const threads = stepsByThread(events);
  // the variant of each renderer: the one whose mark its main thread carries
  const ofVariant = variants.map((_, v) => {
    const mark = events.find((e) => e.name === `al-variant-${v}`);
    if (!mark) return undefined;
    const t = [...threads.keys()].find((k) => k.startsWith(`${mark.pid}:`));
    // the mark's own task is not a step
    return t && threads.get(t).steps.filter((s) => s.from > mark.ts + 100_000);
  });
  const cols = ['script', 'style', 'layout', 'prepaint', 'paint', 'layerize', 'commit', 'gc'];
  console.log(`${VIEW} step, T = 128, d_model = 512, h = 8; ${STEPS} steps per variant, taken in turn; ms of main-thread time per step`);
  console.log(`${'variant'.padEnd(28)}median   p95 (n)  vs first: median Δ, lower in  ${cols.map((c) => c.padStart(8)).join('')}`);
  const first = ofVariant[0] || [];
  ofVariant.forEach((steps, v) => {
    if (!steps) {
      console.log(`${variants[v].name}: its renderer was not found in the trace`);
      return;
    }
    const all = stats(steps.map((s) => s.all));
    const n = Math.min(steps.length, first.length);
    const diffs = Array.from({ length: n }, (_, k) => steps[k].all - first[k].all);
    const lower = diffs.filter((d) => d < 0).length;
    const parts = cols.map((c) => fmt(stats(steps.map((s) => s[c])).median, 2).padStart(8)).join('');
    const vs = v === 0 ? ''.padEnd(28) : `${fmt(stats(diffs).median, 2).padStart(8)} ms, ${String(lower).padStart(3)}/${n}`.padEnd(28);
    console.log(`${variants[v].name.slice(-27).padEnd(28)}${fmt(all.median, 2).padStart(6)}${fmt(all.p95, 2).padStart(6)} (${steps.length})  ${vs}${parts}`);
    if (process.argv.includes('--tail')) {
      for (const s of [...steps].sort((a, b) => b.all - a.all).slice(0, 3)) {
        console.log(`${'  a slow step'.padEnd(28)}${fmt(s.all, 2).padStart(6)}${''.padEnd(42)}${cols.map((c) => fmt(s[c], 2).padStart(8)).join('')}`);
      }
    }
  });
} finally {
  await browser.close();
  for (const s of servers) s.close();
}
