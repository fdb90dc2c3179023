// Where a worker round trip goes on the stress page (issue 14): for each edit, from the
// keystroke to the frame that shows the new pictures, split by the page's marks and the
// worker's own times (the worker sends them with its answer; the page marks them on its
// clock as al-worker-received / -computed / -sent). Also every long task (≥ 50 ms) of
// the run with what it overlapped, and the FIRST answer after the page loads on its own
// (it used to be the one long task).
//
//   node e2e/bench/worker-split.mjs [--dist a,b] [--edits 30] [--page stress]
//
// Several --dist folders are measured interleaved (one page load each, in turn, `--rounds`
// times). A build without the worker's times shows "—" in those columns.
import { serve, launch, stats, fmt, arg, sentences } from './lib.mjs';

const EDITS = Number(arg('edits', 30));
const ROUNDS = Number(arg('rounds', 1));
const q = (s, rest) => `?s=${encodeURIComponent(s)}&${rest}`;
const PAGES = {
  // engine=worker: typing at these sizes is computed on the page since the engine's reuse
  // is counted (state::work_to_do); this script measures the worker's round trip
  medium: q(sentences(2, 32), 'd=64&h=8&p=seeded&pad=keys&step=weights&engine=worker'),
  stress: q(sentences(4, 128), 'd=256&h=8&p=seeded&pad=keys&step=weights&engine=worker'),
};

const ARM = () => {
  performance.clearMarks();
  window.__alResult = new Promise((resolve) => {
    document.addEventListener('input', (ev) => {
      const t0 = ev.timeStamp;
      const check = () => requestAnimationFrame(() => {
        const mc = new MessageChannel();
        mc.port1.onmessage = () => {
          const tFrame = performance.now();
          const marks = performance.getEntriesByType('mark').filter((m) => m.startTime >= t0 - 1);
          const by = (n) => marks.filter((m) => m.name === n).map((m) => m.startTime);
          const canvases = document.querySelectorAll('canvas[data-testid="heatmap"]').length;
          const de = by('al-draw-end');
          if ((de.length < canvases || by('al-engine-end').length === 0) && tFrame - t0 < 20000) {
            check();
            return;
          }
          const first = (n) => { const a = by(n); return a.length ? a[0] : NaN; };
          const last = (n) => { const a = by(n); return a.length ? a[a.length - 1] : NaN; };
          const ds = by('al-draw-start');
          const draw = ds.reduce((acc, x, i) => acc + ((de[i] ?? x) - x), 0);
          resolve({
            t0, frame: tFrame - t0,
            post: first('al-worker-post') - t0,
            received: last('al-worker-received'), computed: last('al-worker-computed'),
            sent: last('al-worker-sent'), answer: last('al-worker-answer'),
            joinStart: last('al-engine-start'), joinEnd: last('al-engine-end'),
            drawStart: ds.length ? Math.min(...ds) : NaN, drawEnd: de.length ? Math.max(...de) : NaN,
            draw, tEnd: tFrame,
          });
        };
        mc.port2.postMessage(0);
      });
      check();
    }, { capture: true, once: true });
  });
};

async function measure(browser, base, query) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(() => {
    window.__alLong = [];
    new PerformanceObserver((l) => window.__alLong.push(...l.getEntries()
      .map((e) => ({ start: e.startTime, duration: e.duration }))))
      .observe({ type: 'longtask', buffered: true });
    // making room in memory for the answers (engine_worker::make_room), whenever it runs
    window.__alRoom = [];
    new PerformanceObserver((l) => window.__alRoom.push(...l.getEntries()
      .filter((e) => e.name.startsWith('al-room')).map((e) => e.startTime)))
      .observe({ type: 'mark' });
  });
  await page.goto(base + query);
  await page.waitForSelector('canvas[data-testid="heatmap"]');
  await page.waitForTimeout(300);
  const loadLong = await page.evaluate(() => window.__alLong.splice(0).map((l) => ({ ...l,
    marks: performance.getEntriesByType('mark').filter((m) => m.startTime >= l.start && m.startTime <= l.start + l.duration).map((m) => m.name) })));
  const ta = page.locator('[data-testid="sentences"]');
  const caret = await ta.evaluate((el) => el.value.split('\n')[0].indexOf(' '));
  const rows = [];
  for (let i = 0; i < EDITS + 1; i++) {
    const typed = i % 2 === 0;
    await ta.evaluate((el, pos) => { el.focus(); el.setSelectionRange(pos, pos); }, typed ? caret : caret + 1);
    await page.evaluate(ARM);
    await page.keyboard.press(typed ? 'x' : 'Backspace');
    const r = await page.evaluate(() => window.__alResult);
    await page.waitForTimeout(20);
    r.long = await page.evaluate(() => window.__alLong.splice(0));
    rows.push(r);
  }
  const room = await page.evaluate(() => window.__alRoom);
  await context.close();
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  const rooms = [];
  for (let i = 0; i + 1 < room.length; i += 2) rooms.push(room[i + 1] - room[i]);
  return { rows, loadLong, rooms };
}

const PARTS = [
  ['input → post', (r) => r.post],
  ['post → worker starts', (r) => r.received - (r.t0 + r.post)],
  ['engine in worker', (r) => r.computed - r.received],
  ['split + copy in worker', (r) => r.sent - r.computed],
  ['transfer', (r) => r.answer - r.sent],
  ['join (page)', (r) => r.joinEnd - r.joinStart],
  ['join → first draw', (r) => r.drawStart - r.joinEnd],
  ['drawing (Σ cards)', (r) => r.draw],
  ['answer task (answer → last draw end)', (r) => r.drawEnd - r.answer],
  ['last draw → frame', (r) => r.tEnd - r.drawEnd],
  ['frame (keystroke → frame)', (r) => r.frame],
  ['longest task in the edit', (r) => Math.max(0, ...r.long.map((l) => l.duration))],
];

const dists = arg('dist', 'dist').split(',');
const query = PAGES[arg('page', 'stress')] + (arg('engine', '') ? `&engine=${arg('engine', '')}` : '');
const servers = await Promise.all(dists.map((d) => serve(d)));
const bases = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
const browser = await launch(process.env.JS_FLAGS ? [`--js-flags=${process.env.JS_FLAGS}`] : []);
const out = dists.map(() => ({ rows: [], firsts: [], long: [], rooms: [] }));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < dists.length; i++) {
      const { rows, rooms, loadLong } = await measure(browser, bases[i], query);
      if (process.argv.includes('--load-tasks')) console.log(dists[i], 'long tasks while loading:', JSON.stringify(loadLong));
      out[i].rooms.push(...rooms);
      out[i].firsts.push(rows[0]);
      out[i].rows.push(...rows.slice(1));
      for (const r of rows) {
        for (const l of r.long) {
          const has = (t) => t >= l.start && t <= l.start + l.duration;
          const after = (a, b) => l.start >= a && l.start < b;
          const what = [has(r.t0) && 'input', has(r.joinStart) && 'join', has(r.drawStart) && 'draw'].filter(Boolean).join('+')
            || (after(r.drawEnd, r.tEnd) && 'after the drawing (style, layout, paint)')
            || (after(r.t0, r.received) && 'before the worker started')
            || (after(r.received, r.answer) && 'while the worker computed') || 'other';
          out[i].long.push({ ...l, first: r === rows[0], what });
        }
      }
    }
  }
} finally {
  await browser.close();
  servers.forEach((s) => s.close());
}
const cell = (xs) => {
  const s = stats(xs.filter(Number.isFinite));
  return s.n ? `${fmt(s.median)} / ${fmt(s.p95)}` : '—';
};
console.log(`\nms, median / p95 over ${EDITS} edits × ${ROUNDS} page loads (after each load's first answer); first answer: median (max) over the loads`);
console.log(`| part | ${dists.map((d) => `${d}: later answers | ${d}: first answer`).join(' | ')} |`);
console.log(`|---|${dists.map(() => '---|---|').join('')}`);
for (const [name, f] of PARTS) {
  const cols = out.map(({ rows, firsts }) => {
    const fs = stats(firsts.map(f).filter(Number.isFinite));
    return `${cell(rows.map(f))} | ${fs.n ? `${fmt(fs.median)} (${fmt(fs.max)})` : '—'}`;
  });
  console.log(`| ${name} | ${cols.join(' | ')} |`);
}
for (let i = 0; i < dists.length; i++) {
  const l = out[i].long;
  if (out[i].rooms.length) console.log(`${dists[i]}: making room in memory took ${out[i].rooms.map((x) => fmt(x)).join(', ')} ms`);
  console.log(`${dists[i]}: ${l.length} long tasks while typing (${l.filter((x) => x.first).length} in the first edit): ${l.map((x) => `${fmt(x.duration, 0)} (${x.what})`).join(', ') || 'none'}`);
}
