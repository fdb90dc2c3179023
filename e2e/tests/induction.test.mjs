// The lesson "Induction heads" (?lesson=induction): every step at 1440 px, 375 px and in
// presenter mode at 1280 × 720 shows its words and its figure (the sequence, the trained
// heads' maps drawn, the loss curve), nothing wider than the page, axe-core clean, no page
// error; the question is answered through the page and reveals the heads; the figure's
// link opens the Learn view's induction run.
import { assertAxeClean } from '../lib/axe.mjs';
import { noOverflow } from '../lib/layout.mjs';
import { canvasHash } from '../lib/canvas.mjs';
import { holdRequests, refuseRequests } from '../lib/network.mjs';
import { typeAndLeave } from '../lib/fields.mjs';

// the figure each step shows, by test id
const FIGURES = ['induction-sequence', 'induction-heads', 'induction-heads', 'induction-curve'];

/** Every step at `width × height` (with `extra` in the query), each checked and photographed. */
async function visitAll(t, width, height, extra, tag) {
  await t.page.setViewportSize({ width, height });
  const page = await t.open(`lesson=induction&ls=0${extra}`, '[data-testid="lesson-text"]');
  for (let s = 0; s < FIGURES.length; s++) {
    await page.waitForFunction((k) => new URLSearchParams(location.search).get('ls') === String(k), s);
    const text = await page.textContent('[data-testid="lesson-text"]');
    t.assert.ok(text.length > 100 && !/NaN|missing/.test(text), `step ${s + 1}: ${text}`);
    await page.waitForSelector(`[data-testid="lesson-picture"] [data-testid="${FIGURES[s]}"]`);
    for (const canvas of await page.$$(`[data-testid="${FIGURES[s]}"] canvas`)) {
      const box = await canvas.boundingBox();
      t.assert.ok(box && box.width > 100 && box.height > 100, `step ${s + 1}: a canvas of ${JSON.stringify(box)}`);
    }
    if (FIGURES[s] === 'induction-heads') {
      // the maps read: larger than the Learn view's 300 px at 1440, and presenting one at a
      // time, each with cells of at least its 18 px labels (20 rows: at least 360 px)
      const box = await page.$eval('[data-testid="induction-head"] canvas', (c) => c.getBoundingClientRect().toJSON());
      const want = extra ? 380 : width > 900 ? 310 : 250;
      // on a wide screen the map is on the first screen; a phone scrolls to it
      t.assert.ok(box.width >= want && (width <= 900 || box.bottom <= height + 0.5), `step ${s + 1}: the map is ${JSON.stringify(box)}`);
      t.assert.match(await page.textContent('[data-testid="induction-head"] figcaption'), /each its position and letter/);
      // the row the words talk about (the second B's), magnified above the full maps, which
      // are too small for numbers: cells of at least 20 px, its keys labelled; presenting
      // too (the one map at a time has cells only as tall as its 18 px labels), within the
      // screen above it
      const zoom = await page.$('[data-testid="induction-zoom"] canvas');
      t.assert.ok(zoom, `step ${s + 1}: no zoom`);
      const z = await zoom.boundingBox();
      if (extra) {
        t.assert.ok(z.width >= 350 && z.height >= 100 && z.y + z.height <= box.top, `step ${s + 1}: the zoom is ${JSON.stringify(z)}, the map ${JSON.stringify(box)}`);
      } else {
        t.assert.ok(z.width >= 0.9 * Math.min(width - 70, 590) && z.height >= 2 * 20, `step ${s + 1}: the zoom is ${JSON.stringify(z)}`);
      }
      t.assert.match(await page.textContent('[data-testid="induction-zoom"] figcaption'), /second B's row \(query 7 B\)/);
      t.assert.equal(await page.$$eval('[data-testid="induction-zoom-table"] tbody tr', (r) => r.length), 2);
      const shown = await page.$$eval('[data-testid="induction-head"]', (f) => f.map((x) => x.dataset.layer));
      if (extra) {
        t.assert.deepEqual(shown, ['1']);
        await page.click('[data-testid="induction-head-pick"] >> nth=0');
        await page.waitForSelector('[data-testid="induction-head"][data-layer="0"] canvas');
        await page.click('[data-testid="induction-head-pick"] >> nth=1');
        await page.waitForSelector('[data-testid="induction-head"][data-layer="1"] canvas');
      } else {
        t.assert.deepEqual(shown, ['0', '1']);
      }
    }
    // the step's table fits: no header cut, the table no wider than its box
    if (await page.$('[data-testid="lesson-aside"]:visible')) {
      const fit = await page.$eval('[data-testid="lesson-aside"]', (f) => {
        const cut = [...f.querySelectorAll('th')].filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent);
        const table = f.querySelector('table').getBoundingClientRect();
        return { cut, over: table.right - f.getBoundingClientRect().right };
      });
      t.assert.deepEqual(fit.cut, [], `step ${s + 1} at ${width} px: headers cut`);
      t.assert.ok(fit.over <= 1, `step ${s + 1} at ${width} px: the table is ${fit.over} px wider than its box`);
    }
    await page.waitForTimeout(150);
    await noOverflow(t, page, `induction step ${s + 1} at ${width} px${extra}`, 1);
    await assertAxeClean(t, page, `induction step ${s + 1} at ${width} px${extra}`);
    await t.screenshot(`lesson-induction-${s + 1}-${tag}`);
    if (s + 1 < FIGURES.length) await page.click('[data-testid="lesson-next"]');
  }
  t.assert.deepEqual(t.errors(), []);
}

/** Waits for the page's later parts (the explorer under a lesson is built after it). */
const settled = (page) => page.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });

/** The curve's label size on screen, CSS px: as drawn (data-font-px) times the canvas's scale. */
const curveFont = (page) => page.$eval('[data-testid="induction-curve"] canvas[data-font-px]', (c) => {
  const box = c.getBoundingClientRect();
  return { font: Number(c.dataset.fontPx) * box.width / parseFloat(c.style.width), drawn: Number(c.dataset.fontPx), width: box.width, height: box.height, styleWidth: c.style.width, styleHeight: c.style.height, zoom: c.currentCSSZoom };
});

export const tests = [
  {
    name: 'induction lesson: the curve\'s labels are at least 12 px on screen, presenting at 1280 x 720 and 1920 x 1080, at 1440 px and on a phone',
    timeoutMs: 120000,
    run: async (t) => {
      for (const [w, h, extra] of [[1280, 720, '&present=1'], [1920, 1080, '&present=1'], [1440, 900, ''], [375, 812, '']]) {
        await t.page.setViewportSize({ width: w, height: h });
        const page = await t.open(`lesson=induction&ls=3${extra}`, '[data-testid="induction-curve"] canvas[data-font-px]');
        await page.waitForTimeout(300);
        const f = await curveFont(page);
        t.assert.ok(f.font >= 12 - 0.01, `${w} x ${h}${extra}: ${JSON.stringify(f)}`);
        // drawn at its displayed size (times the page's zoom, presenting on a large
        // screen): neither squeezed nor stretched
        t.assert.ok(Math.abs(f.width - parseFloat(f.styleWidth) * f.zoom) <= 1 && Math.abs(f.height - parseFloat(f.styleHeight) * f.zoom) <= 1, `${w} x ${h}${extra}: ${JSON.stringify(f)}`);
        await t.screenshot(`induction-curve-${w}${extra ? '-present' : ''}`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction lesson: every step at 1440 px',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 1440, 900, '', '1440'),
  },
  {
    name: 'induction lesson: every step at 375 px',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 375, 812, '', '375'),
  },
  {
    name: 'induction lesson: every step in presenter mode at 1280 x 720',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 1280, 720, '&present=1', 'present-1280'),
  },
  {
    name: 'induction lesson: the question first, then the heads; the maps are the trained ones',
    run: async (t) => {
      const page = await t.open('lesson=induction&ls=0', '[data-testid="quiz"]');
      t.assert.match(await page.textContent('[data-testid="quiz"]'), /second B/);
      // before the answer, the picture is the sequence, not the heads that answer it
      t.assert.equal(await page.$('[data-testid="induction-heads"]'), null);
      await page.click('[data-testid="quiz-choice"]:has-text("At the C after the first B")');
      await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right: At the C after the first B\. Layer 2's head/);
      await page.waitForSelector('[data-testid="induction-heads"] canvas');
      // two maps, drawn (not blank) and different from each other
      const maps = await page.$$eval('[data-testid="induction-head"]', (f) => f.map((x) => x.dataset.layer));
      t.assert.deepEqual(maps, ['0', '1']);
      const a = await canvasHash(page, '[data-testid="induction-head"][data-layer="0"] canvas');
      const b = await canvasHash(page, '[data-testid="induction-head"][data-layer="1"] canvas');
      t.assert.ok(a !== 'empty' && b !== 'empty' && a !== b, `${a} ${b}`);
      // the ablation step's table: layer 2's head off raises the loss
      await page.goto(t.url('/?lesson=induction&ls=2'));
      await page.waitForSelector('[data-testid="lesson-text"]');
      const text = await page.textContent('[data-testid="lesson-text"]');
      const m = /loss on the probe batch is ([\d.]+).*Without layer 2's head the loss is ([\d.]+)/.exec(text);
      t.assert.ok(m && Number(m[2]) > Number(m[1]) + 1, text);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction lesson: a step\'s embed opens on the row its words talk about, magnified, its numbers the words\' own, with no scroll; the ablation\'s losses beside it',
    run: async (t) => {
      await t.page.setViewportSize({ width: 800, height: 500 });
      for (const ls of [1, 2]) {
        const page = await t.open(`lesson=induction&ls=${ls}&embed=1`, '[data-testid="embed"] [data-testid="induction-zoom"] canvas');
        await page.waitForTimeout(300);
        // the zoom is inside the picture's box as it opens, not below its fold
        const { zoom, box } = await page.evaluate(() => ({
          zoom: document.querySelector('[data-testid="induction-zoom"] canvas').getBoundingClientRect().toJSON(),
          box: document.querySelector('.al-embed-scroll').getBoundingClientRect().toJSON(),
        }));
        t.assert.ok(zoom.top >= box.top - 0.5 && zoom.bottom <= box.bottom + 0.5 && zoom.bottom <= 500, `ls=${ls}: the zoom ${JSON.stringify(zoom)} in the box ${JSON.stringify(box)}`);
        t.assert.ok(zoom.height >= 100, `ls=${ls}: the zoom is ${zoom.height} px tall`);
        // the frame does not scroll, nor does the picture's box
        const scrolls = await page.evaluate(() => {
          const box = document.querySelector('.al-embed-scroll');
          return { page: document.documentElement.scrollHeight - innerHeight, box: box.scrollHeight - box.clientHeight, wide: box.scrollWidth - box.clientWidth };
        });
        t.assert.ok(scrolls.page <= 1 && scrolls.box <= 1 && scrolls.wide <= 1, `ls=${ls}: ${JSON.stringify(scrolls)}`);
        const text = await page.textContent('[data-testid="embed-text"]');
        const table = await page.$$eval('[data-testid="embed"] table', (ts) => ts.map((x) => x.textContent).join(' '));
        if (ls === 1) {
          // the words describe the row the embed draws, not the whole maps the page draws
          t.assert.match(text, /^The two trained heads, read on one row: the second B's \(query 7 B\)/);
          t.assert.doesNotMatch(text, /diagonal|Past position/);
          const numbers = text.match(/\d+\.\d+/g);
          const cells = await page.$$eval('[data-testid="induction-zoom-table"] td', (c) => c.map((x) => x.textContent));
          t.assert.ok(numbers.length === 3 && numbers.every((n) => cells.includes(n)), `${numbers} in ${cells}`);
        } else {
          // the losses the words quote are in the table beside the zoom
          const losses = text.match(/loss on the probe batch is ([\d.]+).*Without layer 2's head the loss is ([\d.]+).*Without layer 1's head it is ([\d.]+)/);
          t.assert.ok(losses && losses.slice(1).every((n) => table.includes(n)), `${losses} in ${table}`);
        }
        await t.screenshot(`induction-embed-800x500-${ls + 1}`);
      }
      // the words' numbers for the second B are the zoom's (its table, as the page writes them)
      const page = await t.open('lesson=induction&ls=1', '[data-testid="induction-zoom"] canvas');
      const words = await page.textContent('[data-testid="lesson-text"]');
      const [prev, ind] = [words.match(/the second B puts ([\d.]+) on the A before it/)[1], words.match(/the second B: ([\d.]+) on C/)[1]];
      const cells = await page.$$eval('[data-testid="induction-zoom-table"] tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
      t.assert.equal(cells[0][6], prev, 'layer 1 on 6 A');
      t.assert.equal(cells[1][2], ind, 'layer 2 on 2 C');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction lesson: no explorer folds under it (their one-layer scenario is not the lesson\'s model); another lesson keeps them',
    run: async (t) => {
      const page = await t.open('lesson=induction&ls=1', '[data-testid="lesson-text"]');
      await settled(page);
      await page.waitForTimeout(300);
      t.assert.equal(await page.$('[data-testid="change-numbers"]'), null);
      t.assert.equal(await page.$('[data-testid="pipeline-fold"]'), null);
      await page.goto(t.url('/?lesson=baseball-bat&ls=0'));
      await page.waitForSelector('[data-testid="change-numbers"]', { state: 'attached' });
      await page.waitForSelector('[data-testid="pipeline-fold"]', { state: 'attached' });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction lesson: the curve links to the Learn view\'s induction run',
    run: async (t) => {
      const page = await t.open('lesson=induction&ls=3', '[data-testid="induction-learn-link"]');
      const text = await page.textContent('[data-testid="lesson-text"]');
      t.assert.match(text, /Measured every 10 updates, layer 2's induction head had formed by \d+/);
      const caption = await page.textContent('[data-testid="induction-curve"] figcaption');
      const steps = Number(caption.match(/Each of the (\d+) steps/)[1]);
      await page.click('[data-testid="induction-learn-link"]');
      await page.waitForSelector('[data-testid="learn"]');
      t.assert.equal(new URL(page.url()).searchParams.get('learn'), 'induction');
      // the Learn view trains the lesson's run: its step budget, its sequence as letters,
      // and no training challenge about another task
      await page.waitForSelector('[data-testid="learn-head"] canvas');
      // the maps use the room they have: at 1440 px a 20-token map's cells are ~20 px
      const map = await page.$eval('[data-testid="learn-head"] canvas', (c) => c.getBoundingClientRect().width);
      if ((await page.evaluate(() => innerWidth)) >= 1400) t.assert.ok(map >= 440, `the Learn map is ${map} px`);
      t.assert.match(await page.textContent('[data-testid="learn-status"]'), new RegExp(`^Step 0 of ${steps}\\b`));
      t.assert.equal(await page.textContent('[data-testid="learn-budget"]'), " (the lesson's run)");
      t.assert.match(await page.textContent('[data-testid="learn-maps-caption"]'), /written as letters as the induction lesson writes them/);
      t.assert.equal(await page.$('[data-testid="learn-challenge-start"]'), null);
      await page.click('[data-testid="learn-ablate"][data-layer="0"]');
      await page.waitForSelector('[data-testid="learn-ablation-table"]');
      const tokens = await page.$$eval('[data-testid="learn-ablation-table"] tr:first-child td', (c) => c.map((x) => x.textContent));
      t.assert.equal(tokens.join(' '), 'A B C D E F A B C D E F A B C D E F A B');
      // a changed setting is the learner's own run: the budget the other tasks have, said so;
      // the preset's value back is the lesson's run again
      await typeAndLeave(page, '[data-testid="learn-seed"]', '8');
      await page.waitForFunction(() => /^Step 0 of 5000 \(the step budget\)/.test(document.querySelector('[data-testid="learn-status"]')?.textContent ?? ''));
      await typeAndLeave(page, '[data-testid="learn-seed"]', '7');
      await page.waitForFunction((n) => document.querySelector('[data-testid="learn-status"]')?.textContent.startsWith(`Step 0 of ${n} (the lesson's run)`), steps);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction challenge: built by hand through the page, the engine judges it',
    run: async (t) => {
      const page = await t.open('challenge=induction-by-hand', '[data-testid="induction-challenge"]');
      t.assert.match(await page.textContent('[data-testid="induction-verdict"]'), /^Not yet: layer 1's maps do not make a previous-token head/);
      // d_k beside the strength, and the words of the block maps explained where they are chosen
      // exact for each layer: layer 1's gap is s² / √d_k, layer 2's at most that
      t.assert.match(await page.textContent('[data-testid="induction-strength-note"]'), /d_k = 24\. In layer 1, .*1² \/ √24 = 0\.20 above .*A layer-2 key .*at most 0\.20/);
      const legend = await page.textContent('[data-testid="induction-legend"]');
      t.assert.ok(/“place”/.test(legend) && /“\^”/.test(legend) && /start token/.test(legend), legend);
      // the tempting wrong answer: layer 2 matching the same token
      for (const [id, v] of [['induction-q1', 'position'], ['induction-k1', 'next-position'], ['induction-q2', 'token'], ['induction-k2', 'token']]) {
        await page.selectOption(`[data-testid="${id}"]`, v);
      }
      await page.fill('[data-testid="induction-strength"]', '8');
      await page.press('[data-testid="induction-strength"]', 'Enter');
      await page.waitForFunction(() => /layer 2 puts 0\.0%/.test(document.querySelector('[data-testid="induction-verdict"]')?.textContent ?? ''));
      t.assert.match(await page.textContent('[data-testid="induction-verdict"]'), /^Not yet: layer 1's maps are right \(at strength 8 it puts 100\.0% on the previous token\), but layer 2's do not/);
      // the right maps at strength 1: the verdict says they are right and too weak, with the numbers
      await page.selectOption('[data-testid="induction-k2"]', 'previous');
      await page.fill('[data-testid="induction-strength"]', '1');
      await page.press('[data-testid="induction-strength"]', 'Enter');
      await page.waitForFunction(() => /^Not yet, but the four maps are right/.test(document.querySelector('[data-testid="induction-verdict"]')?.textContent ?? ''));
      t.assert.match(await page.textContent('[data-testid="induction-verdict"]'), /at strength 8 the same maps put 100\.0% and 100\.0% where they should\. At strength 1 they are too weak: .* 1² \/ √24 = 0\.20 above the others/);
      await page.fill('[data-testid="induction-strength"]', '8');
      await page.press('[data-testid="induction-strength"]', 'Enter');
      await page.waitForFunction(() => /^Goal met\./.test(document.querySelector('[data-testid="induction-verdict"]')?.textContent ?? ''));
      await page.waitForSelector('[data-testid="induction-why"]');
      // a strength out of range is refused by name; the maps keep theirs
      await page.fill('[data-testid="induction-strength"]', '-5');
      await page.press('[data-testid="induction-strength"]', 'Enter');
      const bad = page.locator('[data-testid="induction-strength-error"]');
      await bad.waitFor();
      t.assert.match(await bad.textContent(), /^The strength must be from 0 to 20, not -5.*The maps keep strength 8\.$/);
      t.assert.match(await page.textContent('[data-testid="induction-verdict"]'), /^Goal met\./);
      await page.fill('[data-testid="induction-strength"]', '8');
      await page.press('[data-testid="induction-strength"]', 'Enter');
      await bad.waitFor({ state: 'detached' });
      await page.click('[data-testid="induction-hint"]');
      await assertAxeClean(t, page, 'the induction challenge, solved, one hint shown');
      await t.screenshot('challenge-induction-1440');
      await page.setViewportSize({ width: 375, height: 812 });
      await page.waitForTimeout(150);
      await noOverflow(t, page, 'the induction challenge at 375 px', 1);
      await t.screenshot('challenge-induction-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction lesson: the recorded run is fetched when the lesson opens; until it comes the words and figure say so, then show it',
    run: async (t) => {
      const page = t.page;
      const asked = [];
      const release = await holdRequests(page, '**/induction-run.json', asked);
      // the first screen does not fetch it
      await t.open('', 'canvas[data-testid="heatmap"]');
      t.assert.deepEqual(asked, []);
      // another lesson's tab leads to it: the app fetches it itself
      await page.goto(t.url('/?lesson=masks&ls=0'));
      await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      await page.click('[data-testid="lesson-tab"][data-lesson="induction"]');
      const missing = await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="induction-missing"][aria-busy="true"]');
      t.assert.match(await missing.textContent(), /Loading the recorded training run/);
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /Loading the recorded training run/);
      await t.screenshot('induction-run-loading');
      t.assert.equal(asked.length, 1);
      release();
      await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="induction-sequence"]');
      const text = await page.textContent('[data-testid="lesson-text"]');
      t.assert.ok(text.length > 100 && !/Loading|missing|NaN/.test(text), text);
      await t.screenshot('induction-run-loaded');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction lesson: when the recorded run cannot be fetched, the words and figure say why',
    run: async (t) => {
      await refuseRequests(t.page, '**/induction-run.json');
      const page = await t.gotoApp('lesson=induction&ls=1');
      const alert = await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="induction-missing"][role="alert"]');
      t.assert.match(await alert.textContent(), /could not be loaded .*Reload the page to try again/);
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /could not be loaded/);
      await t.screenshot('induction-run-failed');
      // the aborted request is the only complaint
      t.assert.ok(t.errors().every((e) => /induction-run\.json/.test(e)), t.errors().join('\n'));
    },
  },
];
