// Issue 12: lessons a teacher can project. Words and picture in the first screen,
// presenter mode, embed mode, predict-then-reveal questions, offline after one visit.

import fs from 'node:fs';

import { cutTables, noOverflow } from '../lib/layout.mjs';

const LESSON_COUNT = async (page) => page.$$eval('[data-testid="lesson-tab"]', (b) => b.length);

// What a step's picture is: its first heatmap, or in the decode view the one query's
// weights, in the tiles view the score matrix with the tile outlined, or the word-order
// lesson's table of PE · PEᵀ, or the shapes lesson's two splits of q, or the induction
// lesson's own figures (its sequence, its trained heads, its loss curve), or the MLA
// lesson's cache bars, or the KV-cache lesson's two causal corners.
const FIGURES = ['canvas[data-testid="heatmap"]', '[data-testid="decode-weights"]', '[data-testid="tiles-canvas"]', '[data-testid="position-similarity"] table', '[data-testid="split-both-ways"] table',
  '[data-testid="induction-sequence"]', '[data-testid="induction-head"]', '[data-testid="induction-curve"]', '[data-testid="cache-bars"] table', '[data-testid="induction-zoom"]',
  '[data-testid="causal-corners"] table'];
const PICTURE = FIGURES.map((s) => `[data-testid="lesson-picture"] ${s}`).join(', ');

/** The bounding boxes of the step's words and of its picture's first heatmap (or view). */
async function stageBoxes(page) {
  await page.waitForSelector(PICTURE);
  const words = await page.$eval('[data-testid="lesson-text"]', (e) => e.getBoundingClientRect().toJSON());
  const title = await page.$eval('[data-testid="lesson-step-title"]', (e) => e.getBoundingClientRect().toJSON());
  const picture = await page.$eval(PICTURE, (e) => e.getBoundingClientRect().toJSON());
  return { words, title, picture };
}

function assertFits(t, boxes, width, height, where) {
  for (const [name, b] of Object.entries(boxes)) {
    t.assert.ok(b.top >= 0 && b.left >= 0, `${where}: ${name} starts off screen (${JSON.stringify(b)})`);
    t.assert.ok(b.bottom <= height + 0.5, `${where}: ${name} ends at ${Math.round(b.bottom)} px, below the ${height} px screen`);
    t.assert.ok(b.right <= width + 0.5, `${where}: ${name} ends at ${Math.round(b.right)} px, right of the ${width} px screen`);
  }
}

/** Visits every step of every lesson, calling visit(page, lessonId, step). */
async function everyStep(t, query, visit) {
  const page = await t.gotoApp(`lesson=baseball-bat&ls=0${query}`);
  const n = await LESSON_COUNT(page);
  for (let l = 0; l < n; l++) {
    const id = await page.$eval(`[data-testid="lesson-tab"]:nth-of-type(${l + 1})`, (b) => b.dataset.lesson);
    await page.goto(t.url(`/?lesson=${id}&ls=0${query}`));
    await page.waitForSelector('[data-testid="lesson-text"]');
    for (let s = 0; s < 20; s++) {
      await visit(page, id, s);
      if (await page.$eval('[data-testid="lesson-next"]', (b) => b.disabled)) break;
      await page.click('[data-testid="lesson-next"]');
      await page.waitForFunction((k) => new URLSearchParams(location.search).get('ls') === String(k), s + 1);
    }
  }
}

export const tests = [
  {
    name: 'lessons at 1440x900: the words and the picture of every step fit in the first screen; the explorer is folded',
    run: async (t) => {
      let steps = 0;
      await everyStep(t, '', async (page, id, s) => {
        assertFits(t, await stageBoxes(page), 1440, 900, `${id} step ${s + 1}`);
        steps++;
      });
      t.assert.ok(steps >= 25, `only ${steps} steps visited`);
      const page = t.page;
      // under a lesson on the explorer's scenario (the last one visited, induction, draws
      // a recorded run and has no explorer under it), the controls fold under "Change the
      // numbers", closed; the pipeline is one click away
      await page.goto(t.url('/?lesson=baseball-bat&ls=3'));
      await stageBoxes(page);
      await page.waitForSelector('[data-testid="change-numbers"]', { state: 'attached' });
      t.assert.equal(await page.$eval('[data-testid="change-numbers"]', (d) => d.open), false);
      t.assert.equal(await page.isVisible('[data-testid="sentences"]'), false);
      await page.click('[data-testid="pipeline-fold"] summary');
      await page.waitForSelector('[data-testid="trace-step"]', { state: 'visible' });
      await page.click('[data-testid="change-numbers"] summary');
      await page.waitForSelector('[data-testid="sentences"]', { state: 'visible' });
      await t.page.goto(t.url('/?lesson=baseball-bat&ls=3'));
      await stageBoxes(t.page);
      await t.screenshot('classroom-lesson-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lessons at 375 px: words first, then the picture, nothing wider than the screen',
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      const page = await t.gotoApp('lesson=baseball-bat&ls=3');
      const { words, picture } = await stageBoxes(page);
      t.assert.ok(words.bottom <= picture.top + 1, 'the words come before the picture on a phone');
      // Next and the whole heatmap on the first screen, the lesson tabs one row
      const next = await page.$eval('[data-testid="lesson-next"]', (e) => e.getBoundingClientRect().toJSON());
      t.assert.ok(next.bottom <= 800 && picture.bottom <= 800, `Next ends at ${Math.round(next.bottom)} px, the heatmap at ${Math.round(picture.bottom)} px, on an 800 px screen`);
      t.assert.ok(next.bottom <= picture.top, 'Next above the picture, not below the editor');
      // ... and the open lesson's tab scrolled into that row
      await page.goto(t.url('/?lesson=online-softmax&ls=0'));
      await page.waitForSelector('[data-testid="lesson-text"]');
      await page.waitForFunction(() => {
        const row = document.querySelector('.al-lesson-tabs').getBoundingClientRect();
        const tab = document.querySelector('[data-testid="lesson-tab"].al-selected').getBoundingClientRect();
        return tab.left >= row.left - 1 && tab.right <= row.right + 1;
      }, null, { timeout: 5000 });
      await page.goto(t.url('/?lesson=baseball-bat&ls=3'));
      await stageBoxes(page);
      await noOverflow(t, page, 'the page', 1);
      await t.screenshot('classroom-lesson-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lessons at 375 px: no table or caption of any step sticks out of the lesson box',
    timeoutMs: 300000,
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      const out = [];
      let visited = 0;
      await everyStep(t, '', async (page, id, s) => {
        await page.waitForSelector(PICTURE);
        // what of each table and caption shows (inside every box that clips it) against the
        // lesson box's content box, the inside of its border and padding
        const past = await page.evaluate(() => {
          const card = document.querySelector('[data-testid="lesson"]');
          const cs = getComputedStyle(card);
          const r = card.getBoundingClientRect();
          const inside = { left: r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft), right: r.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight) };
          const found = [];
          for (const el of card.querySelectorAll('table, caption, figcaption')) {
            if (!el.checkVisibility() || el.closest('details:not([open])')) continue;
            let { left, right } = el.getBoundingClientRect();
            for (let box = el.parentElement; box && box !== card; box = box.parentElement) {
              if (getComputedStyle(box).overflowX === 'visible') continue;
              const b = box.getBoundingClientRect();
              left = Math.max(left, b.left);
              right = Math.min(right, b.right);
            }
            if (right <= left) continue;
            const by = Math.max(inside.left - left, right - inside.right);
            if (by > 0.5) found.push(`${el.tagName.toLowerCase()} "${(el.textContent || '').trim().slice(0, 40)}" by ${by.toFixed(1)} px`);
          }
          return found;
        });
        for (const p of past) out.push(`${id} step ${s + 1}: ${p}`);
        if ((id === 'sinks' && s === 0) || (id === 'mla' && s === 3)) await t.screenshot(`lesson-box-${id}-${s + 1}-375`);
        visited++;
      });
      t.assert.ok(visited >= 25, `only ${visited} steps visited`);
      t.assert.deepEqual(out, []);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'presenter mode at 1280x720 and 1920x1080: one step per screen, no controls, keys move, Esc leaves',
    // every step twice, measuring each map's numbers: over the 60 s default on a busy machine
    timeoutMs: 300000,
    run: async (t) => {
      for (const [w, h] of [[1280, 720], [1920, 1080]]) {
        await t.page.setViewportSize({ width: w, height: h });
        let visited = 0;
        const shownAt = {};
        await everyStep(t, '&present=1', async (page, id, s) => {
          t.assert.equal(await page.$('[data-testid="sentences"]'), null, 'no controls in presenter mode');
          t.assert.equal(await page.$('[data-testid="trace-step"]'), null, 'no pipeline in presenter mode');
          assertFits(t, await stageBoxes(page), w, h, `${w}x${h} ${id} step ${s + 1}`);
          // every element of the step on the screen: the page itself does not scroll
          const page_size = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth }));
          t.assert.ok(page_size.height <= h + 1 && page_size.width <= w + 1, `${w}x${h} ${id} step ${s + 1}: the page is ${page_size.width} × ${page_size.height} px`);
          // the baseball-bat plot sits beside the heatmaps, on the screen too
          const plot = await page.$('[data-testid="lesson-picture"] [data-testid="embedding-plot"]');
          if (plot) assertFits(t, { plot: await plot.evaluate((e) => e.getBoundingClientRect().toJSON()) }, w, h, `${w}x${h} ${id} step ${s + 1}`);
          // heatmap labels a room can read: at least 18 CSS px, as drawn (font × zoom)
          const labels = await page.$$eval('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]', (els) => els.map((e) => Number(e.dataset.labelPx)));
          for (const px of labels) t.assert.ok(px >= 18, `${w}x${h} ${id} step ${s + 1}: heatmap labels of ${px} px`);
          // a zoomed map's backing store is its CSS size times the screen's pixel ratio and
          // the page's CSS zoom (a large screen's presenter mode), no more, no less: otherwise
          // the browser shrinks the drawing and the highlights miss their cells, or blurs it
          const stores = await page.$$eval('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]', (els) => els.map((e) => {
            const css = getComputedStyle(e);
            return { w: e.width, h: e.height, cssW: parseFloat(css.width), cssH: parseFloat(css.height), dpr: devicePixelRatio * e.currentCSSZoom };
          }));
          for (const c of stores) {
            t.assert.ok(Math.abs(c.w - c.cssW * c.dpr) <= 1 && Math.abs(c.h - c.cssH * c.dpr) <= 1,
              `${w}x${h} ${id} step ${s + 1}: a canvas of ${c.w} × ${c.h} device px shown at ${c.cssW} × ${c.cssH} CSS px`);
          }
          // numbers in the cells only where they fit: the widest, measured at its drawn
          // size, inside its cell ("0.000.000.00" was three numbers run together)
          const maps = await page.$$eval('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]', (els) => els.map((e) => {
            const ctx = document.createElement('canvas').getContext('2d');
            ctx.font = `${e.dataset.numberPx}px sans-serif`;
            return { numbers: e.dataset.numbers, cell: Number(e.dataset.cellPx), px: Number(e.dataset.numberPx), text: e.dataset.numberText, width: ctx.measureText(e.dataset.numberText || '').width };
          }));
          for (const m of maps) {
            t.assert.ok(m.numbers === 'shown' || m.numbers === 'hidden', `${id} step ${s + 1}: data-numbers ${m.numbers}`);
            t.assert.ok(m.cell > 0, `${id} step ${s + 1}: data-cell-px ${m.cell}`);
            if (m.numbers === 'shown') {
              t.assert.ok(m.width <= m.cell - 2, `${w}x${h} ${id} step ${s + 1}: "${m.text}" at ${m.px} px is ${m.width.toFixed(1)} px wide in a ${m.cell} px cell`);
              // a room reads 12 px digits; smaller ones are left out (a table beside the words
              // holds the numbers the words quote)
              t.assert.ok(m.px >= 12, `${w}x${h} ${id} step ${s + 1}: numbers at ${m.px} px`);
            }
            shownAt[m.numbers] = (shownAt[m.numbers] || 0) + 1;
          }
          // a projected table cannot be scrolled: none is cut, none scrolls in its region
          t.assert.deepEqual(await cutTables(page), [], `${w}x${h} ${id} step ${s + 1}: tables cut`);
          const scrolled = await page.$$eval('.al-stage [role="region"]', (els) => els.filter((e) => e.checkVisibility())
            .map((e) => [e.getAttribute('aria-label'), e.scrollWidth - e.clientWidth]).filter(([, d]) => d > 1));
          t.assert.deepEqual(scrolled, [], `${w}x${h} ${id} step ${s + 1}: tables that scroll sideways`);
          // on a large screen the tables beside the picture are read from the back too
          if (w >= 1920) {
            // as drawn: the CSS size times the page's zoom
            const cells = await page.$$eval('.al-stage table td, .al-stage table th', (els) => els.filter((e) => e.checkVisibility()).map((e) => parseFloat(getComputedStyle(e).fontSize) * e.currentCSSZoom));
            const small = cells.filter((px) => px < 18);
            t.assert.deepEqual(small, [], `${w}x${h} ${id} step ${s + 1}: table cells under 18 px`);
          }
          visited++;
        });
        t.assert.ok(visited >= 25);
        // both cases occur: maps with their numbers, and dense maps without
        t.assert.ok(shownAt.shown > 0 && shownAt.hidden > 0, `${w}x${h}: ${JSON.stringify(shownAt)}`);
      }
      const page = t.page;
      // the presenter's type grows with the screen: the words, the maps' labels and the
      // tables 1.4 times as large at 1920 × 1080 as at 1280 × 720, as drawn
      const drawn = {};
      for (const [w, h] of [[1280, 720], [1920, 1080]]) {
        await page.setViewportSize({ width: w, height: h });
        await page.goto(t.url('/?lesson=local&ls=4&present=1'));
        await page.waitForSelector('[data-testid="lesson-aside"] td');
        await page.waitForSelector(PICTURE);
        drawn[w] = await page.evaluate(() => {
          const px = (sel) => { const e = document.querySelector(sel); return parseFloat(getComputedStyle(e).fontSize) * e.currentCSSZoom; };
          const map = document.querySelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
          return { words: px('[data-testid="lesson-text"]'), table: px('[data-testid="lesson-aside"] td'), labels: Number(map.dataset.labelPx) * map.currentCSSZoom };
        });
        await t.screenshot(`classroom-present-local-5-${w}`);
      }
      for (const what of ['words', 'table', 'labels']) {
        const ratio = drawn[1920][what] / drawn[1280][what];
        t.assert.ok(ratio >= 1.35, `${what}: ${drawn[1280][what]} px at 1280 × 720, ${drawn[1920][what]} px at 1920 × 1080`);
      }
      await page.setViewportSize({ width: 1280, height: 720 });
      // thirteen keys in two heads: one head at a time, the one the words are about, with a picker
      await page.goto(t.url('/?lesson=why-heads&ls=2&present=1'));
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      t.assert.deepEqual(await page.$$eval('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]', (els) => els.map((e) => e.dataset.head)), ['1']);
      t.assert.equal(await page.getAttribute('[data-testid="present-head"][data-head="1"]', 'aria-pressed'), 'true');
      await page.click('[data-testid="present-head"][data-head="0"]');
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"][data-head="0"]');
      t.assert.equal(await page.locator('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]').count(), 1);
      await t.screenshot('classroom-present-one-head-1280');
      await page.goto(t.url('/?lesson=baseball-bat&ls=0&present=1'));
      await page.waitForSelector('[data-testid="lesson-text"]');
      const fontSize = await page.$eval('[data-testid="lesson-text"]', (e) => parseFloat(getComputedStyle(e).fontSize));
      t.assert.ok(fontSize >= 20, `presenter text is ${fontSize} px`);
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '1');
      await page.keyboard.press(' ');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '2');
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '1');
      await stageBoxes(page);
      await t.screenshot('classroom-present-1280');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !new URLSearchParams(location.search).has('present'));
      t.assert.ok(await page.$('[data-testid="change-numbers"]'), 'Esc brings the page back');
      // the button enters presenter mode too
      await page.click('[data-testid="present"]');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('present') === '1');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'presenter mode entered with its button at 1920x1080: every canvas of the step, the baseball-bat plot too, is drawn again at the page\'s zoom, sharp',
    run: async (t) => {
      const page = await t.openAt({ width: 1920, height: 1080 }, 'lesson=baseball-bat&ls=3', '[data-testid="lesson-picture"] [data-testid="embedding-plot"]');
      await page.click('[data-testid="present"]');
      await page.waitForSelector('.al-present [data-testid="lesson-picture"] [data-testid="embedding-plot"]');
      await page.waitForTimeout(500);
      const stores = await page.$$eval('[data-testid="lesson-picture"] canvas', (els) => els.map((e) => {
        const css = getComputedStyle(e);
        return { id: e.dataset.testid, w: e.width, cssW: parseFloat(css.width), zoom: e.currentCSSZoom, dpr: devicePixelRatio * e.currentCSSZoom };
      }));
      t.assert.ok(stores.some((c) => c.id === 'embedding-plot') && stores.every((c) => c.zoom > 1.3), JSON.stringify(stores));
      for (const c of stores) t.assert.ok(Math.abs(c.w - c.cssW * c.dpr) <= 1, `${c.id}: ${c.w} device px for ${c.cssW} CSS px at zoom ${c.zoom}`);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'embed mode: only the selected figure and its one-line caption; Copy embed code gives the iframe',
    run: async (t) => {
      const page = await t.open('s=I%20bought%20a%20baseball%20bat&d=3&h=1&p=identity&step=weights&embed=1', '[data-testid="embed"] canvas[data-testid="heatmap"]');
      t.assert.equal(await page.$('h1'), null, 'no page header in an embed');
      t.assert.equal(await page.$('[data-testid="sentences"]'), null, 'no controls in an embed');
      t.assert.equal(await page.$('[data-testid="trace-step"]'), null, 'no pipeline in an embed');
      t.assert.match(await page.textContent('[data-testid="embed-caption"]'), /^weights \(B, h, T, T\) = \(1, 1, 5, 5\): Softmax/);
      await t.screenshot('classroom-embed');
      const explorer = await t.gotoApp('s=the%20cat%20sat&step=scores');
      await explorer.click('[data-testid="copy-embed"]');
      const code = await explorer.inputValue('[data-testid="embed-code"]');
      t.assert.match(code, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/\?[^"]*step=scores[^"]*&embed=1" title="Attention Lens: scores"/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'embed mode of a lesson step: its title and words as the lesson writes them, a question step\'s question, the figure, a main landmark',
    run: async (t) => {
      const lessonPage = await t.gotoApp('lesson=baseball-bat&ls=3');
      const words = await lessonPage.textContent('[data-testid="lesson-text"]');
      const title = await lessonPage.textContent('[data-testid="lesson-step-title"]');
      const page = await t.open('lesson=baseball-bat&ls=3&embed=1', '[data-testid="embed"] canvas[data-testid="heatmap"]');
      t.assert.equal(await page.textContent('[data-testid="embed-title"]'), title);
      t.assert.equal(await page.textContent('[data-testid="embed-text"]'), words);
      t.assert.match(await page.textContent('[data-testid="embed-words"] .al-lesson-meta'), /^The baseball bat · .* · step 4 of 6$/);
      t.assert.equal(await page.$('[data-testid="embed-question"]'), null);
      t.assert.equal(await page.$$eval('main', (m) => m.length), 1);
      // a question step: the question, answered in the full page
      await page.goto(t.url('/?lesson=masks&ls=1&embed=1'));
      await page.waitForSelector('[data-testid="embed-question"]');
      t.assert.match(await page.textContent('[data-testid="embed-question"]'), /^Question: .+ Answer it in the full page/);
      await page.setViewportSize({ width: 800, height: 500 });
      await t.screenshot('classroom-embed-lesson');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'embed of a question step: no words about a field or buttons it lacks, the words before them kept',
    run: async (t) => {
      const page = await t.openAt({ width: 800, height: 500 }, 'lesson=score-range&ls=1&embed=1', '[data-testid="embed-question"]');
      t.assert.doesNotMatch(await page.textContent('[data-testid="embed-words"]'), /Type a number|Type your answer|Choose an answer/);
      t.assert.match(await page.textContent('[data-testid="embed-question"]'), /Answer it in the full page/);
      t.assert.equal(await page.$('[data-testid="embed"] input, [data-testid="embed-words"] input'), null, 'an embed has no answer field');
      await t.screenshot('embed-score-range-2');
      // words before the question stay: masks step 2 keeps its prediction, not its "Type your answer"
      await page.goto(t.url('/?lesson=masks&ls=1&embed=1'));
      await page.waitForSelector('[data-testid="embed-question"]');
      t.assert.match(await page.textContent('[data-testid="embed-text"]'), /^Predict first.*share 1\.$/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'embed mode of every lesson step in an 800x500 frame: the words, the step\'s own picture and the link back, no picture cut at the right or under the link bar, and the frame does not scroll',
    timeoutMs: 400000,
    run: async (t) => {
      const { lessons } = JSON.parse(fs.readFileSync(new URL('../../assets/lesson-words.json', import.meta.url), 'utf8'));
      await t.page.setViewportSize({ width: 800, height: 500 });
      const picture = FIGURES.map((s) => `[data-testid="embed"] ${s}`).join(', ');
      let visited = 0;
      const scrolls = [];
      const inBox = [];
      const hiddenHeads = [];
      for (const lesson of lessons) {
        for (let s = 0; s < lesson.steps.length; s++) {
          const query = `lesson=${lesson.id}&ls=${s}`;
          const page = await t.gotoApp(`${query}&embed=1`);
          await page.waitForSelector(picture);
          t.assert.equal(await page.textContent('[data-testid="embed-title"]'), lesson.steps[s].title, query);
          // the kv-cache steps show the decode view their words are about, not the full run's map
          if (lesson.id === 'kv-cache' && s === 1) t.assert.ok(await page.$('[data-testid="embed"] [data-testid="decode-weights"]'), `${query}: the decode view`);
          // the picture settles to the room the words leave (a frame or two)
          await page.waitForTimeout(300);
          const size = await page.evaluate(() => ({ h: document.documentElement.scrollHeight, w: document.documentElement.scrollWidth }));
          if (size.h > 501 || size.w > 801) scrolls.push(`${query}: the frame scrolls (${size.w} × ${size.h} px)`);
          const link = await page.$eval('[data-testid="embed-caption"] a', (a) => ({ bottom: a.getBoundingClientRect().bottom, href: a.href }));
          if (link.bottom > 500) scrolls.push(`${query}: the link back ends at ${link.bottom} px`);
          // heatmaps in one row fit the room the words leave; a taller picture (the decode
          // panel, four heads in two rows, a note on fully masked rows) scrolls in its own box
          const box = await page.$eval('.al-embed-scroll', (e) => {
            const tops = [...e.querySelectorAll('.al-card:not([hidden])')].map((c) => Math.round(c.getBoundingClientRect().top));
            // one row of heatmaps, or the similarity table alone
            const oneRow = (tops.length > 0 ? tops.every((x) => x === tops[0]) : !!e.querySelector('.al-similarity')) && !e.querySelector('[data-testid="masked-row-note"]');
            const frame = e.getBoundingClientRect();
            const bar = document.querySelector('[data-testid="embed-caption"]').getBoundingClientRect();
            // a picture past the box's right edge is cut off there: every card, canvas and table
            // starts and ends inside it, or scrolls sideways in a region of its own inside it
            const scrollsInside = (p) => {
              for (let a = p.parentElement; a && a !== e; a = a.parentElement) {
                const r = a.getBoundingClientRect();
                if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX) && r.right <= frame.right + 1 && r.left >= frame.left - 1) return true;
              }
              return false;
            };
            const cut = [...e.querySelectorAll('.al-card:not([hidden]), canvas, table')]
              .filter((p) => {
                const r = p.getBoundingClientRect();
                return r.width > 0 && (r.right > frame.right + 1 || r.left < frame.left - 1) && !scrollsInside(p);
              }).length;
            // a head's card wholly under the box's bottom edge (the fourth of four wrapping to a second row) is not seen at all
            const below = [...e.querySelectorAll('.al-card:not([hidden])')].filter((c) => c.getBoundingClientRect().top >= frame.bottom - 1).length;
            return { inner: e.scrollHeight, room: e.clientHeight, oneRow, cut, below, wide: e.scrollWidth > e.clientWidth + 1, bottom: frame.bottom, bar: bar.top };
          });
          if (box.oneRow && box.inner > box.room + 1) scrolls.push(`${query}: one row of heatmaps (or the table) needs ${box.inner} px in a ${box.room} px box, its last rows under the link bar`);
          if (box.cut > 0 || box.wide) scrolls.push(`${query}: ${box.cut} picture(s) cut at the right edge`);
          // the four heads of GQA step 4 sit side by side (they fit 800 px); other steps whose
          // heads wrap below the bar are listed, to be brought into view
          if (box.below > 0) (query === 'lesson=gqa&ls=3' ? scrolls : hiddenHeads).push(`${query}: ${box.below} head(s) wholly under the link bar`);
          if (box.bottom > box.bar + 1) scrolls.push(`${query}: the picture's box ends at ${box.bottom} px, under the link bar at ${box.bar} px`);
          if (box.inner > box.room + 1) inBox.push(query);
          if (s === 0 || (lesson.id === 'kv-cache' && s === 1) || query === 'lesson=gqa&ls=3' || query === 'lesson=word-order&ls=5') await t.screenshot(`classroom-embed-800x500-${lesson.id}-${s + 1}`);
          visited++;
        }
      }
      t.assert.ok(visited >= 25, `only ${visited} steps`);
      t.assert.deepEqual(scrolls, []);
      console.log(`  # ${inBox.length} of ${visited} step pictures scroll in their own box: ${inBox.join(', ')}`);
      console.log(`  # heads wholly under the link bar: ${hiddenHeads.join('; ') || 'none'}`);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'embed: the StreamingLLM step shows the weights its words quote above the 800 × 500 fold; the V cache is d_v wide',
    run: async (t) => {
      const page = await t.openAt({ width: 800, height: 500 }, 'lesson=sinks&ls=5&embed=1', '[data-testid="embed"] [data-testid="decode-weights"]');
      await page.waitForTimeout(300);
      const words = await page.textContent('[data-testid="embed-text"]');
      const quoted = words.match(/parks (\d\.\d+) on/)[1];
      const weights = page.locator('[data-testid="embed"] [data-testid="decode-weights"]');
      t.assert.ok((await weights.textContent()).includes(quoted), `${quoted} not in the weights table`);
      const box = await weights.boundingBox();
      t.assert.ok(box && box.y + box.height <= 500, `the weights end at ${box && box.y + box.height} px`);
      t.assert.match(await page.textContent('[data-testid="v-cache"] caption'), /^V cache, K\/V head 1: d_v = /);
      t.assert.match(await page.textContent('[data-testid="k-cache"] caption'), /^K cache, K\/V head 1: d_k = /);
      await t.screenshot('classroom-embed-800x500-sinks-6');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'every lesson asks a question; the answer is hidden until a choice, then revealed from the live trace (keyboard too)',
    run: async (t) => {
      let asked = 0;
      const lessonsAsked = new Set();
      await everyStep(t, '', async (page, id) => {
        if (!(await page.$('[data-testid="quiz"]'))) return;
        asked++;
        lessonsAsked.add(id);
        t.assert.equal(await page.isVisible('[data-testid="quiz-reveal"]'), false, `${id}: answer shown before a choice`);
        const number = await page.$('[data-testid="quiz-number"]');
        if (number) {
          await page.focus('[data-testid="quiz-number"]');
          await page.keyboard.type('0.5');
          await page.keyboard.press('Enter');
        } else {
          await page.focus('[data-testid="quiz-choice"]');
          await page.keyboard.press('Enter');
        }
        await page.waitForSelector('[data-testid="quiz-reveal"]', { state: 'visible' });
        t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^(Right|Not quite)/);
      });
      t.assert.ok(lessonsAsked.size >= 5, `questions in ${[...lessonsAsked]}`);
      // the baseball question: "baseball" looks most at itself (0.76); an edit changes the answer
      const page = await t.gotoApp('lesson=baseball-bat&ls=2');
      // "baseball" is the second choice, after "bat": the answer is not the first button
      await page.click('[data-testid="quiz-choice"][data-choice="1"]');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right: "baseball"\. Softmax of \[2\.31, 1\.15\] is \[0\.76, 0\.24\]/);
      await page.click('[data-testid="change-numbers"] summary');
      await page.fill('[data-testid="embedding-input"][data-word="bat"][data-dim="0"]', '5');
      await page.press('[data-testid="embedding-input"][data-word="bat"][data-dim="0"]', 'Enter');
      await page.waitForFunction(() => /^Not quite: the answer is "bat"/.test(document.querySelector('[data-testid="quiz-reveal"]').textContent));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'offline after one visit: the service worker caches the app shell; a reload with the network off works, also under a sub-path',
    run: async (t) => {
      for (const base of ['/', '/attention-lens/']) {
        const page = t.page;
        t.assert.equal(await page.$eval('link[rel="manifest"]', (l) => l.getAttribute('href')).catch(() => 'manifest.webmanifest'), 'manifest.webmanifest');
        await page.goto(t.url(`${base}?lesson=masks&ls=1`));
        await page.waitForSelector('canvas[data-testid="heatmap"]');
        const cache = await page.evaluate(async () => {
          const reg = await navigator.serviceWorker.ready;
          const keys = await caches.keys();
          return { scope: reg.scope, keys };
        });
        t.assert.ok(cache.scope.endsWith(base), `scope ${cache.scope}`);
        t.assert.ok(cache.keys.some((k) => /^attention-lens-[0-9a-f]{16}$/.test(k)), `caches ${cache.keys}`);
        const manifest = await (await page.request.get(t.url(`${base}manifest.webmanifest`))).json();
        t.assert.equal(manifest.icons.find((i) => i.sizes === '512x512').src, 'icon-512.png');
        await t.context.setOffline(true);
        await page.reload();
        await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
        await page.waitForSelector('canvas[data-testid="heatmap"]');
        t.assert.match(await page.textContent('[data-testid="lesson-step-title"]'), /Predict/);
        // what the page fetches when it needs it comes from the cache too: the induction
        // lesson's recorded run (asked by the app from a lesson tab) and the engine worker
        // that writes the Python export
        await page.click('[data-testid="lesson-tab"][data-lesson="induction"]');
        await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="induction-sequence"]');
        await page.goto(t.url(`${base}?s=the%20cat%20sat&d=4&h=2`));
        await page.waitForSelector('canvas[data-testid="heatmap"]');
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-python"]')]);
        t.assert.equal(download.suggestedFilename(), 'attention_lens.py');
        await t.context.setOffline(false);
      }
      // offline reloads report failed requests for nothing the app needs; only page errors count
      t.assert.deepEqual(t.errors().filter((e) => !e.startsWith('requestfailed') && !e.includes('ERR_INTERNET_DISCONNECTED')), []);
    },
  },
];
