// One step of the decode view and one tile of the tiles view, at T = 128, d_model = 512,
// h = 8 (one causal sentence, seeded weights): the work a trusted ArrowRight leaves the
// page, over --steps steps after 5 warm-up steps.
//
//   node e2e/bench/decode.mjs [--dist dist] [--steps 40] [--block 16]
//
// Times (ms):
//   busy  = the main thread's time in tasks for one step (script, style, layout, paint and
//           the key's own dispatch), from a sampling profile (CDP Profiler, 0.1 ms) with the
//           steps 120 ms apart: each burst of samples is one step. Wall-clock samples: a
//           task the OS pauses to run another process on the core counts as busy.
//   cpu   = the same steps' CPU time of the renderer's main thread itself: the thread time
//           (`tdur`) of its top-level tasks in a Chrome trace, each burst one step. This is
//           the work, without what other processes on the machine take.
// From the keydown event's timeStamp:
//   to message = until the view shows the next position or tile and the task that handled the
//           key (with its microtasks, where Leptos updates the DOM) has ended: a message
//           posted from the keydown listener arrives after it
//   frame = until a message posted from the next requestAnimationFrame arrives (the
//           frame that shows it: style, layout and paint included)
// The engine's decode() and tiled() run once per scenario (and block) in a memo, not per
// step; their one-time cost is read from the marks al-decode-* and al-tiled-*.
import { serve, launch, stats, fmt, arg, sentences } from './lib.mjs';

const STEPS = Number(arg('steps', 40));
const BLOCK = Number(arg('block', 16));
const WARMUP = 5;
const S = encodeURIComponent(sentences(1, 128));
const QUERY = `?s=${S}&d=512&h=8&p=seeded&seed=1&causal=1&pad=keys`;

/** Installs the measuring listener for the next keydown; `sel` is the text that changes. */
const ARM = (sel) => {
  const before = document.querySelector(sel)?.textContent;
  window.__alStep = new Promise((resolve) => {
    document.addEventListener('keydown', (ev) => {
      const t0 = ev.timeStamp;
      const poll = () => {
        const mc = new MessageChannel();
        mc.port1.onmessage = () => {
          if (document.querySelector(sel)?.textContent === before && performance.now() - t0 < 5000) {
            poll();
            return;
          }
          const work = performance.now() - t0;
          requestAnimationFrame(() => {
            const mc2 = new MessageChannel();
            mc2.port1.onmessage = () => resolve({ work, frame: performance.now() - t0 });
            mc2.port2.postMessage(0);
          });
        };
        mc.port2.postMessage(0);
      };
      poll();
    }, { capture: true, once: true });
  });
};

async function measure(browser, base, view, sel, ready, markName) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}${QUERY}&view=${view}${view === 'tiles' ? `&block=${BLOCK}` : ''}`);
  await page.waitForSelector(ready, { timeout: 120000 });
  await page.waitForTimeout(300);
  const once = await page.evaluate((m) => {
    const s = performance.getEntriesByName(`${m}-start`).map((e) => e.startTime);
    const e = performance.getEntriesByName(`${m}-end`).map((e) => e.startTime);
    return e.map((x, i) => x - (s[i] ?? x));
  }, markName);
  await page.focus(`[data-testid="${view}-view"]`);
  const work = [];
  const frame = [];
  for (let i = 0; i < WARMUP + STEPS; i++) {
    await page.evaluate(ARM, sel);
    await page.keyboard.press('ArrowRight');
    const r = await page.evaluate(() => window.__alStep);
    if (i >= WARMUP) {
      work.push(r.work);
      frame.push(r.frame);
    }
  }
  // busy: the main thread's sampled CPU time of each step (script, style, layout, paint),
  // steps 120 ms apart, each burst of samples one step
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  for (let i = 0; i < STEPS; i++) {
    await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
    await page.waitForTimeout(120);
  }
  const { profile } = await cdp.send('Profiler.stop');
  const idle = new Set(profile.nodes.filter((n) => ['(idle)', '(root)'].includes(n.callFrame.functionName)).map((n) => n.id));
  const bursts = [];
  let now = 0;
  let last = -Infinity;
  profile.samples.forEach((id, k) => {
    const dt = (profile.timeDeltas[k] || 0) / 1000;
    now += dt;
    if (idle.has(id)) return;
    if (now - last > 60) bursts.push(0);
    bursts[bursts.length - 1] += dt;
    last = now;
  });
  // cpu: the renderer main thread's own CPU time of each step (tdur of its top-level tasks
  // in a Chrome trace), which a task loses while the OS runs something else on the core
  // is not counted in, unlike busy's wall-clock samples
  await browser.startTracing(page, { categories: ['disabled-by-default-devtools.timeline', 'devtools.timeline', 'toplevel'] });
  for (let i = 0; i < STEPS; i++) {
    await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
    await page.waitForTimeout(120);
  }
  const cpu = stepCpu(JSON.parse((await browser.stopTracing()).toString()));
  await context.close();
  return { work: stats(work), frame: stats(frame), busy: stats(bursts), cpu: stats(cpu), once, errors };
}

/** Per step, the main thread's CPU ms: its top-level tasks' `tdur`, in bursts 60 ms apart. */
function stepCpu(trace) {
  const events = trace.traceEvents || trace;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && mains.has(`${e.pid}:${e.tid}`) && e.tdur !== undefined);
  // the page's renderer: the main thread with the most task time
  const byThread = new Map();
  for (const e of tasks) byThread.set(`${e.pid}:${e.tid}`, (byThread.get(`${e.pid}:${e.tid}`) || 0) + e.tdur);
  const page = [...byThread.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mine = tasks.filter((e) => `${e.pid}:${e.tid}` === page).sort((a, b) => a.ts - b.ts);
  const bursts = [];
  let last = -Infinity;
  for (const e of mine) {
    if (e.ts - last > 60_000) bursts.push(0);
    bursts[bursts.length - 1] += e.tdur / 1000;
    last = e.ts + e.dur;
  }
  return bursts.filter((b) => b > 0.5);
}

const dist = arg('dist', 'dist');
const server = await serve(dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
try {
  const rows = [
    ['decode step', await measure(browser, base, 'decode', '[data-testid="decode-position"]',
      '[data-testid="decode-check"][data-diff]', 'al-decode')],
    [`tile step (block ${BLOCK})`, await measure(browser, base, 'tiles', '[data-testid="tiles-position"]',
      '[data-testid="tiles-check"][data-diff]', 'al-tiled')],
  ];
  console.log(`T = 128, d_model = 512, h = 8, B = 1, causal; ${STEPS} steps after ${WARMUP} warm-up (ms)`);
  console.log('what                  busy median  busy p95 (n)  cpu median  cpu p95 (n)  to message median  p95  frame median  p95  engine once');
  for (const [name, r] of rows) {
    console.log(`${name.padEnd(22)}${fmt(r.busy.median).padStart(11)}${fmt(r.busy.p95).padStart(10)} (${r.busy.n})`
      + `${fmt(r.cpu.median).padStart(12)}${fmt(r.cpu.p95).padStart(9)} (${r.cpu.n})`
      + `${fmt(r.work.median).padStart(19)}${fmt(r.work.p95).padStart(5)}`
      + `${fmt(r.frame.median).padStart(14)}${fmt(r.frame.p95).padStart(5)}  ${r.once.map((x) => fmt(x)).join(', ')}`);
    if (r.errors.length) console.log(`  page errors: ${r.errors.join('; ')}`);
  }
} finally {
  await browser.close();
  server.close();
}
