// Interaction latency: from a trusted keystroke in the sentences box to the frame in
// which every heatmap has been redrawn, split into engine, drawing and the rest.
//
//   node e2e/bench/latency.mjs [--dist dist] [--edits 60] [--only default|medium|stress|stress-sync] [--train]
//
// --train: a second tab of the same browser trains previous-token in the Learn view's
// worker at full speed (Reset and Play again whenever it reaches its step budget) while
// the edits are typed, to see the explorer's latency with training running beside it.
//
// Each edit types "x" into (or deletes it from) the first word of the first sentence,
// so T stays the same. The page's performance marks al-engine-start/end (the engine
// Memo) and al-draw-start/end (each HeatmapCard's drawing Effect) are read in the page.
// Times (ms, from the input event's timeStamp):
//   work   = until the last al-draw-end (all script work of the edit done)
//   frame  = until a message posted from the next requestAnimationFrame arrives, i.e.
//            after the frame that shows the redraw was produced (includes the wait for
//            the frame boundary and style/layout/paint)
//   engine = Σ al-engine-*, draw = Σ al-draw-*, framework = work - engine - draw
//            (input dispatch, Leptos, building the DOM of the cards and tables).
import { serve, launch, stats, fmt, arg, sentences } from './lib.mjs';

const EDITS = Number(arg('edits', 60));
const WARMUP = 5;
const q = (s, rest) => `?s=${encodeURIComponent(s)}&${rest}`;
const SCENARIOS = {
  default: '',
  medium: q(sentences(2, 32), 'd=64&h=8&p=seeded&pad=keys&step=weights'),
  stress: q(sentences(4, 128), 'd=256&h=8&p=seeded&pad=keys&step=weights'),
  // only with --only: the stress page with the engine forced onto the page (no worker),
  // to see the engine's own time per edit
  'stress-sync': q(sentences(4, 128), 'd=256&h=8&p=seeded&pad=keys&step=weights&engine=sync'),
};
const OPTIONAL = ['stress-sync'];
const TRAIN = process.argv.includes('--train');

/** A tab training previous-token at full speed, restarted whenever it stops. */
async function startTraining(context, base) {
  const page = await context.newPage();
  await page.goto(`${base}?learn=previous-token`);
  await page.waitForSelector('[data-testid="learn-head"] canvas');
  await page.selectOption('[data-testid="learn-speed"]', 'fast');
  await page.evaluate(() => setInterval(() => {
    const play = document.querySelector('[data-testid="learn-play"]');
    if (play && !play.disabled) {
      document.querySelector('[data-testid="learn-reset"]').click();
      setTimeout(() => play.click(), 50);
    }
  }, 250));
  await page.click('[data-testid="learn-play"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="learn-steps"]')?.textContent) > 100);
  return page;
}

const ARM = () => {
  performance.clearMarks();
  performance.clearMeasures();
  window.__alResult = new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 30000); // no input event: report, don't hang
    document.addEventListener('input', (ev) => {
      clearTimeout(timer);
      const t0 = ev.timeStamp;
      const check = () => requestAnimationFrame(() => {
        const mc = new MessageChannel();
        mc.port1.onmessage = () => {
          const tFrame = performance.now();
          const marks = performance.getEntriesByType('mark').filter((m) => m.startTime >= t0);
          const by = (n) => marks.filter((m) => m.name === n).map((m) => m.startTime);
          const [es, ee, ds, de] = ['al-engine-start', 'al-engine-end', 'al-draw-start', 'al-draw-end'].map(by);
          const canvases = document.querySelectorAll('canvas[data-testid="heatmap"]').length;
          if ((de.length < canvases || ds.length !== de.length || ee.length === 0) && tFrame - t0 < 20000) {
            check(); // the redraw is not finished yet: wait for another frame
            return;
          }
          const sum = (a, b) => a.reduce((acc, x, i) => acc + (b[i] - x), 0);
          const engine = sum(es, ee);
          const draw = sum(ds, de);
          const work = Math.max(...de, ...ee) - t0;
          resolve({ work, frame: tFrame - t0, engine, draw, framework: work - engine - draw,
            canvases, drawn: de.length, cells: [...document.querySelectorAll('canvas[data-testid="heatmap"]')]
              .reduce((n, c) => n + Number(c.getAttribute('aria-label').match(/: (\d+) by (\d+)/).slice(1).reduce((a, b) => a * b)), 0) });
        };
        mc.port2.postMessage(0);
      });
      check();
    }, { capture: true, once: true });
  });
};

async function measure(browser, base, name, query) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const trainer = TRAIN ? await startTraining(context, base) : null;
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base + query);
  await page.waitForSelector('canvas[data-testid="heatmap"]');
  await page.waitForTimeout(300);
  // long tasks over the whole run: does the page keep responding?
  await page.evaluate(() => {
    window.__alLong = [];
    new PerformanceObserver((l) => window.__alLong.push(...l.getEntries().map((e) => e.duration)))
      .observe({ type: 'longtask' });
  });
  const ta = page.locator('[data-testid="sentences"]');
  // the box in the middle of the window, as a learner sees it while typing: where it
  // starts below the fold (the explorer's controls sit under the picture), focusing it
  // and each keystroke would otherwise scroll the page, a frame of its own per edit
  await ta.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await ta.focus();
  const caret = await ta.evaluate((el) => {
    const line = el.value.split('\n')[0];
    const sp = line.indexOf(' ');
    return sp > 0 ? sp : line.length;
  });
  const rows = [];
  for (let i = 0; i < WARMUP + EDITS; i++) {
    const typed = i % 2 === 0;
    await ta.evaluate((el, pos) => { el.focus(); el.setSelectionRange(pos, pos); }, typed ? caret : caret + 1);
    await page.evaluate(ARM);
    await page.keyboard.press(typed ? 'x' : 'Backspace');
    const r = await page.evaluate(() => window.__alResult);
    if (r === null) throw new Error(`${name}: edit ${i} produced no input event`);
    if (i >= WARMUP) rows.push(r);
    await page.waitForTimeout(20);
  }
  const long = await page.evaluate(() => window.__alLong);
  const trained = trainer ? await trainer.evaluate(() => document.querySelector('[data-testid="learn-status"]').textContent) : '';
  if (trainer) console.log(`# ${name}: the training tab at the end: ${trained}`);
  await context.close();
  if (errors.length) throw new Error(`${name}: page errors: ${errors.join('; ')}`);
  return { name, rows, long };
}

async function main() {
  const only = arg('only', '');
  // several builds (--dist a,b) are measured interleaved, scenario by scenario, so that
  // their ratios come from the same minutes of a noisy machine
  const dists = arg('dist', 'dist').split(',');
  const servers = await Promise.all(dists.map((d) => serve(d)));
  const bases = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
  const browser = await launch();
  const out = dists.map(() => []);
  try {
    for (const [name, query] of Object.entries(SCENARIOS)) {
      if (only ? !only.split(',').includes(name) : OPTIONAL.includes(name)) continue;
      for (let i = 0; i < dists.length; i++) out[i].push(await measure(browser, bases[i], name, query));
    }
  } finally {
    await browser.close();
    servers.forEach((s) => s.close());
  }
  for (let i = 0; i < dists.length; i++) {
    console.log(`\n${dists[i]}: interaction latency${TRAIN ? ', training previous-token in another tab' : ''}, ${EDITS} edits each (after ${WARMUP} warm-up), ms: median / p95`);
    console.log('| page | heatmaps × cells | work (input → last redraw) | frame (→ next frame painted) | engine | drawing | framework | longest task |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const { name, rows, long } of out[i]) {
      const col = (k) => { const s = stats(rows.map((r) => r[k])); return `${fmt(s.median)} / ${fmt(s.p95)}`; };
      const longest = long.length ? fmt(Math.max(...long), 0) : '< 50';
      console.log(`| ${name} | ${rows[0].canvases} × ${rows[0].cells / rows[0].canvases} | ${col('work')} | ${col('frame')} | ${col('engine')} | ${col('draw')} | ${col('framework')} | ${longest} |`);
    }
  }
  if (process.argv.includes('--json')) console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(e); process.exit(1); });
