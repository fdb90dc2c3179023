// A newcomer's second look at the lessons (kv-cache, local, online-softmax, sinks, masks):
// tables name their rows and columns and fit, or scroll inside their own region, at
// 1440 px, on a phone and presenting; the blocked cells a question asks about stay hidden
// until it is answered; only a weight the mask made exactly 0 is hatched; a phone is not
// told of arrow keys.
import { cutTables, scrollingRegions } from '../lib/layout.mjs';

/** Opens `query` in a new window of `width` × `height` (a touch phone when `touch`). */
async function open(t, query, width, height, touch = false) {
  const context = await t.page.context().browser().newContext({ viewport: { width, height }, hasTouch: touch, isMobile: touch });
  const page = await context.newPage();
  page.on('pageerror', (e) => { throw e; });
  await page.goto(t.url(`/?${query}`));
  await page.waitForSelector('[data-testid="lesson-text"]');
  return { page, context };
}

/** Opens `query` on a touch phone 375 px wide, once `selector` is there and laid out. */
async function openPhone(t, query, selector) {
  const opened = await open(t, query, 375, 800, true);
  await opened.page.waitForSelector(selector);
  await opened.page.waitForTimeout(300);
  return opened;
}

export const tests = [
  {
    name: 'kv-cache and sinks decode tables: rows are positions (in order), columns features, presenting on one screen',
    run: async (t) => {
      const { page, context } = await open(t, 'lesson=kv-cache&ls=1', 1440, 900);
      await page.waitForSelector('[data-testid="k-cache"] tbody tr');
      for (const [id, size] of [['k-cache', 'd_k'], ['v-cache', 'd_v']]) {
        // "position ↓" over the row labels; the caption over the numbers names them features
        const heads = await page.$$eval(`[data-testid="${id}"] thead tr`, (rows) => rows.map((r) => [...r.children].map((th) => th.textContent)));
        t.assert.deepEqual(heads, [['position ↓', '0', '1', '2', '3']], id);
        t.assert.match(await page.textContent(`[data-testid="${id}"] caption`), new RegExp(`: ${size} = 4 features →$`));
      }
      await page.locator('[data-testid="decode-view"]').screenshot({ path: 'e2e/screenshots/second-look-kv-cache-2-decode-1440.png' });
      await context.close();
      // StreamingLLM: the kept first key, the row that just left, then the window's rows
      const sinks = await open(t, 'lesson=sinks&ls=5', 1440, 900);
      await sinks.page.waitForSelector('[data-testid="k-cache"] tbody tr[data-slot="evicted"]');
      const rows = await sinks.page.$$eval('[data-testid="k-cache"] tbody tr', (trs) => trs.map((r) => [Number(r.dataset.pos), r.dataset.slot]));
      t.assert.deepEqual(rows.map((r) => r[0]), [...rows.map((r) => r[0])].sort((a, b) => a - b), JSON.stringify(rows));
      t.assert.deepEqual(rows.slice(0, 2).map((r) => r[1]), ['kept', 'evicted']);
      await sinks.context.close();
      // the header adds no row: the StreamingLLM step still fits the presenter's screen
      const present = await open(t, 'lesson=sinks&ls=5&present=1', 1280, 720);
      await present.page.waitForSelector('[data-testid="k-cache"] tbody tr');
      t.assert.ok(await present.page.evaluate(() => document.documentElement.scrollHeight) <= 721);
      await present.context.close();
    },
  },
  {
    name: 'tables fit or scroll in their own region: local 5 and online-softmax 6 at 1440, local 5 presenting, local 1-5 on a phone (their tables whole)',
    timeoutMs: 180000,
    run: async (t) => {
      for (const [query, w, h] of [['lesson=local&ls=4', 1440, 900], ['lesson=online-softmax&ls=5', 1440, 900], ['lesson=local&ls=4&present=1', 1280, 720]]) {
        const { page, context } = await open(t, query, w, h);
        await page.waitForSelector('[data-testid="lesson-aside"], [data-testid="tile-rows"]');
        await page.waitForTimeout(300);
        t.assert.deepEqual(await cutTables(page), [], `${query} at ${w} px`);
        t.assert.deepEqual(await scrollingRegions(page), [], `${query} at ${w} px: every table whole, no scrolling needed`);
        await page.screenshot({ path: `e2e/screenshots/second-look-${query.replace(/[^a-z0-9]+/gi, '-')}-${w}.png` });
        await context.close();
      }
      for (let s = 0; s < 5; s++) {
        const { page, context } = await open(t, `lesson=local&ls=${s}`, 375, 800, true);
        await page.waitForSelector('[data-testid="lesson-picture"] canvas');
        await page.waitForTimeout(300);
        t.assert.deepEqual(await cutTables(page), [], `local step ${s + 1} at 375 px`);
        // the table beside the words whole on the screen: the numbers the words quote are in it
        t.assert.deepEqual(await scrollingRegions(page), [], `local step ${s + 1} at 375 px: the aside table scrolls`);
        await page.screenshot({ path: `e2e/screenshots/second-look-local-${s + 1}-375.png`, fullPage: true });
        await context.close();
      }
    },
  },
  {
    name: 'local step 2: the maps do not show the blocked keys before the answer, the masked scores after it',
    run: async (t) => {
      const { page, context } = await open(t, 'lesson=local&ls=1', 1440, 900);
      const steps = () => page.$$eval('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]', (els) => [...new Set(els.map((e) => e.dataset.step))]);
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      t.assert.deepEqual(await steps(), ['scaled']);
      await page.fill('[data-testid="quiz-number"]', '5');
      await page.click('[data-testid="quiz-choice"]');
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"][data-step="masked"]');
      t.assert.deepEqual(await steps(), ['masked']);
      await context.close();
    },
  },
  {
    name: 'masks: a -1e9 weight above 0 (the leak, the uniform row) is drawn as its number; -inf zeros and NaN are hatched',
    run: async (t) => {
      /** The hatched cells of the first weights table, as "r,c". */
      const hatched = (page) => page.$$eval('[data-testid="lesson-picture"] table[data-step="weights"]', (tables) =>
        [...tables[0].querySelectorAll('td.al-blocked')].map((td) => `${td.dataset.r},${td.dataset.c}`));
      // step 7: -1e9 leaks, "a" gives most of its weight to the blocked future key (0, 1)
      let { page, context } = await open(t, 'lesson=masks&ls=6', 1440, 900);
      await page.waitForSelector('[data-testid="lesson-picture"] table[data-step="weights"] td[data-r="0"][data-c="1"]', { state: 'attached' });
      t.assert.ok(!(await hatched(page)).includes('0,1'), 'the leaked weight is drawn, not hatched');
      await page.screenshot({ path: 'e2e/screenshots/second-look-masks-7-1440.png' });
      await context.close();
      // step 8: -inf, the same cell is exactly 0 and hatched
      ({ page, context } = await open(t, 'lesson=masks&ls=7', 1440, 900));
      await page.waitForSelector('[data-testid="lesson-picture"] table[data-step="weights"] td[data-r="0"][data-c="1"]', { state: 'attached' });
      t.assert.ok((await hatched(page)).includes('0,1'), 'the -inf weight is hatched');
      await context.close();
      // step 6: -1e9, the fully masked row is uniform, drawn; step 5: -inf, NaN, hatched
      for (const [s, uniform] of [[5, true], [4, false]]) {
        ({ page, context } = await open(t, `lesson=masks&ls=${s}`, 1440, 900));
        await page.waitForSelector('[data-testid="lesson-picture"] table[data-step="weights"] td[data-r="6"]', { state: 'attached' });
        const row6 = (await hatched(page)).filter((k) => k.startsWith('6,'));
        t.assert.equal(row6.length === 0, uniform, `step ${s + 1}: ${row6}`);
        await context.close();
      }
    },
  },
  {
    name: 'decode and tiles panels: a phone is told to use the buttons, a keyboard the arrow keys',
    run: async (t) => {
      for (const [query, id] of [['lesson=kv-cache&ls=1', 'decode-view'], ['lesson=online-softmax&ls=0', 'tiles-view']]) {
        for (const touch of [true, false]) {
          const { page, context } = await open(t, query, touch ? 375 : 1440, 800, touch);
          const intro = await page.textContent(`[data-testid="${id}"] .al-view-intro`);
          t.assert.equal(intro.includes('←'), !touch, `${id}, ${touch ? 'phone' : 'keyboard'}: ${intro}`);
          t.assert.match(intro, /Step with .*(buttons|Play)\.$/);
          await context.close();
        }
      }
    },
  },
  {
    name: 'kv-cache step 2 on a phone: the K and V tables and the output row whole, no sideways scroll',
    run: async (t) => {
      const { page, context } = await openPhone(t, 'lesson=kv-cache&ls=1', '[data-testid="k-cache"] tbody tr');
      t.assert.deepEqual(await cutTables(page), []);
      t.assert.deepEqual(await scrollingRegions(page), []);
      await page.locator('[data-testid="decode-view"]').screenshot({ path: 'e2e/screenshots/second-look-kv-cache-2-375.png' });
      await context.close();
    },
  },
  {
    name: 'masks step 1 on a phone: the three mask-convention tables whole, the <pad> columns in view',
    run: async (t) => {
      const { page, context } = await openPhone(t, 'lesson=masks&ls=0', '[data-testid="mask-conventions"] table');
      const figures = await page.$$eval('[data-testid="mask-conventions"] figure', (fs) => fs.map((f) => ({
        table: Math.round(f.querySelector('table').getBoundingClientRect().width),
        room: f.clientWidth,
        scrolls: f.scrollWidth > f.clientWidth + 1,
      })));
      t.assert.equal(figures.length, 3);
      for (const f of figures) t.assert.ok(!f.scrolls && f.table <= f.room, JSON.stringify(figures));
      t.assert.deepEqual(await cutTables(page), []);
      await context.close();
    },
  },
  {
    name: 'a number field\'s error does not move its neighbour at 1440 px, sits directly under its field at 375 px, and names the field',
    run: async (t) => {
      for (const [w, touch] of [[1440, false], [375, true]]) {
        const ctx = await t.page.context().browser().newContext({ viewport: { width: w, height: 800 }, hasTouch: touch, isMobile: touch });
        const pg = await ctx.newPage();
        await pg.goto(t.url('/'));
        await pg.waitForSelector('[data-testid="d-model"]', { state: 'attached' });
        await pg.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
        await pg.waitForTimeout(300);
        // the h field's box, from the d_model field's (a notice above the controls may move both)
        const box = () => pg.evaluate(() => {
          const [d, h] = ['d-model', 'n-heads'].map((id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect());
          return [h.left - d.left, h.top - d.top, h.width, h.height].map((v) => Math.round(v));
        });
        const before = await box();
        await pg.fill('[data-testid="d-model"]', '2.5');
        await pg.waitForSelector('[data-testid="error"]');
        if (w > 600) {
          t.assert.deepEqual(await box(), before, `at ${w} px`);
        } else {
          // a phone's row wraps into many lines: the message under its field, not after the row
          const gap = await pg.evaluate(() => {
            const field = document.querySelector('[data-testid="d-model"]').getBoundingClientRect();
            const msg = document.querySelector('.al-field-group:has([data-testid="d-model"]) [data-testid="error"]').getBoundingClientRect();
            return [msg.top - field.bottom, msg.left - field.left];
          });
          t.assert.ok(gap[0] >= 0 && gap[0] <= 12 && Math.abs(gap[1]) <= 4, `at ${w} px the message is ${gap} px from its field`);
        }
        t.assert.equal(await pg.getAttribute('[data-testid="d-model"]', 'aria-invalid'), 'true');
        const id = await pg.getAttribute('[data-testid="d-model"]', 'aria-describedby');
        t.assert.match(await pg.textContent(`#${id}`), /d_model must be a whole number/);
        await pg.screenshot({ path: `e2e/screenshots/second-look-field-error-${w}.png` });
        await ctx.close();
      }
    },
  },
  {
    name: 'sinks step 6 with its kept-first-keys field empty or 0: "No first keys are kept", never "is 0"',
    run: async (t) => {
      const { page, context } = await open(t, 'lesson=sinks&ls=5', 1440, 900);
      const KEEP = '[data-testid="mask-keep-first"]';
      await page.waitForSelector(KEEP, { state: 'attached' });
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
      const words = () => page.textContent('[data-testid="lesson-text"]');
      const says = (re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid="lesson-text"]').textContent), re.source);
      await says(/Now keep "BOS" beside the same window/);
      for (const typed of ['', '0']) {
        await page.fill(KEEP, typed);
        await says(/No first keys are kept here \(their field, beside the window, is empty or 0\)/);
        t.assert.doesNotMatch(await words(), /is 0 here|kept for good/, `typed "${typed}"`);
        await page.fill(KEEP, '1');
        await says(/Now keep "BOS" beside the same window/);
      }
      await context.close();
    },
  },
  {
    name: 'kv-cache step 5\'s corner tables whole at 1920 x 1080 (normal and presenting), 1440 x 900 and presenting at 1280 x 720: no header cut',
    run: async (t) => {
      for (const [w, h, present] of [[1920, 1080, false], [1920, 1080, true], [1440, 900, false], [1280, 720, true]]) {
        const { page, context } = await open(t, `lesson=kv-cache&ls=4${present ? '&present=1' : ''}`, w, h);
        await page.waitForSelector('[data-testid="causal-corners"] table');
        await page.waitForTimeout(300);
        const cut = await page.$$eval('[data-testid="causal-corners"] th, [data-testid="causal-corners"] caption', (cells) =>
          cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent));
        t.assert.deepEqual(cut, [], `at ${w} x ${h}${present ? ' presenting' : ''}`);
        t.assert.deepEqual(await cutTables(page), [], `at ${w} x ${h}${present ? ' presenting' : ''}`);
        await page.screenshot({ path: `e2e/screenshots/second-look-kv-cache-5-${w}${present ? '-present' : ''}.png` });
        await context.close();
      }
    },
  },
];
