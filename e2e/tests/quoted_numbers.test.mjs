// The eleventh look: every number a step's words quote can be read on the screen, in a map
// cell or in a small table beside the words; kv-cache step 5 shows the two tables its words
// explain (above the fold, and in its embed); presenting, the induction zoom and the
// word-order table of PE · PEᵀ carry the numbers the words quote.
import { cutTables } from '../lib/layout.mjs';

// the decimals a text quotes (0.91, -1.15, 0.978), as the page writes them
const decimals = (text) => text.match(/-?\d+\.\d{2,}/g) ?? [];

// the steps whose maps are drawn too small to print the numbers their words quote, each
// with the table beside its words that holds them
const QUOTED = [
  ['masks', 0], ['masks', 2], ['why-heads', 1], ['why-heads', 2], ['why-heads', 3], ['why-heads', 4], ['why-heads', 5],
  ['why-heads', 6], ['gqa', 1], ['shapes', 1],
];

const SIZES = [[1440, 900, ''], [375, 812, ''], [1280, 720, '&present=1']];

export const tests = [
  {
    name: 'review11 lesson and presenter: the rows the words quote are in the table beside them (masks 1, 3; why-heads 2 to 7; gqa 2; shapes 2) at 1440x900, 375x812 and presenting at 1280x720',
    timeoutMs: 240000,
    run: async (t) => {
      for (const [w, h, present] of SIZES) {
        for (const [id, ls] of QUOTED) {
          const where = `${id} step ${ls + 1} at ${w}x${h}${present ? ' presenting' : ''}`;
          const page = await t.openAt({ width: w, height: h }, `lesson=${id}&ls=${ls}${present}`, '[data-testid="lesson-aside"] td');
          const words = await page.textContent('[data-testid="lesson-text"]');
          const cells = await page.$$eval('[data-testid="lesson-aside"] td', (tds) => tds.map((td) => td.textContent.trim()));
          const quoted = decimals(words);
          t.assert.ok(quoted.length > 0, `${where}: ${words}`);
          for (const n of quoted) t.assert.ok(cells.includes(n), `${where}: ${n} is not in the table beside the words`);
          // the table is whole and on the screen; presenting, the page does not scroll
          t.assert.deepEqual(await cutTables(page), [], where);
          if (present) {
            const size = await page.evaluate(() => document.documentElement.scrollHeight);
            t.assert.ok(size <= h + 1, `${where}: the page is ${size} px tall`);
            const scrolled = await page.$$eval('.al-stage [role="region"]', (els) => els.filter((e) => e.checkVisibility())
              .map((e) => [e.getAttribute('aria-label'), e.scrollWidth - e.clientWidth]).filter(([, d]) => d > 1));
            t.assert.deepEqual(scrolled, [], `${where}: tables that scroll sideways`);
          }
          await t.screenshot(`review11-${id}-${ls + 1}-${w}${present ? '-present' : ''}`, { fullPage: !present });
        }
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'review11 embed: gqa step 2 shows the key rows its words quote beside its maps in an 800x500 frame',
    run: async (t) => {
      const page = await t.openAt({ width: 800, height: 500 }, 'lesson=gqa&ls=1&embed=1', '[data-testid="embed"] [data-testid="lesson-aside"] td');
      const words = await page.textContent('[data-testid="embed-text"]');
      const cells = await page.$$eval('[data-testid="embed"] [data-testid="lesson-aside"] td', (tds) => tds.map((td) => td.textContent.trim()));
      for (const n of decimals(words)) t.assert.ok(cells.includes(n), `${n} is not in the embed's table`);
      const size = await page.evaluate(() => document.documentElement.scrollHeight);
      t.assert.ok(size <= 501, `the frame scrolls (${size} px)`);
      await t.screenshot('review11-gqa-2-embed-800x500');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'review11 lesson and embed: kv-cache step 5 shows the two corner tables its words explain, above the fold at 1440x900, in presenter mode and in its embed',
    run: async (t) => {
      for (const [w, h, query] of [[1440, 900, ''], [375, 812, ''], [1280, 720, '&present=1'], [800, 500, '&embed=1']]) {
        const scope = query === '&embed=1' ? '[data-testid="embed"]' : '[data-testid="lesson-picture"]';
        const page = await t.openAt({ width: w, height: h }, `lesson=kv-cache&ls=4${query}`, `${scope} [data-testid="causal-corners"] table`);
        const where = `${w}x${h}${query}`;
        // the tables, not the masked scores' maps the words never mention
        t.assert.equal(await page.$(`${scope} canvas[data-testid="heatmap"]`), null, `${where}: a heatmap`);
        t.assert.equal(await page.locator(`${scope} [data-testid="causal-corners"] table`).count(), 4, where);
        if (w >= 1280) {
          const bottom = await page.$$eval(`${scope} [data-testid="causal-corners"] table`, (els) => Math.max(...els.map((e) => e.getBoundingClientRect().bottom)));
          t.assert.ok(bottom <= h, `${where}: the last table ends at ${Math.round(bottom)} px`);
        }
        t.assert.deepEqual(await cutTables(page), [], where);
        await t.screenshot(`review11-kv-cache-5-${w}${query.replace(/[&=1]/g, '')}`, { fullPage: false });
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'review11 presenter: induction step 2 at 1280x720 shows the numbered zoom above the map, all on the screen',
    run: async (t) => {
      const page = await t.openAt({ width: 1280, height: 720 }, 'lesson=induction&ls=1&present=1', '[data-testid="lesson-picture"] [data-testid="induction-zoom"] canvas');
      await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="induction-head"]');
      await page.waitForTimeout(300);
      for (const sel of ['[data-testid="induction-zoom"] canvas', '[data-testid="induction-head"] canvas']) {
        const box = await page.$eval(`[data-testid="lesson-picture"] ${sel}`, (e) => e.getBoundingClientRect().toJSON());
        t.assert.ok(box.height > 60 && box.bottom <= 720 && box.right <= 1280, `${sel}: ${JSON.stringify(box)}`);
      }
      const size = await page.evaluate(() => document.documentElement.scrollHeight);
      t.assert.ok(size <= 721, `the page is ${size} px tall`);
      await t.screenshot('review11-induction-2-1280-present', { fullPage: false });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'review11 presenter: word-order step 6 marks the PE·PEᵀ cells its words quote, at a size a room reads, within 1280x720',
    run: async (t) => {
      for (const [w, h, present] of [[1280, 720, '&present=1'], [1440, 900, ''], [375, 812, '']]) {
        const page = await t.openAt({ width: w, height: h }, `lesson=word-order&ls=5${present}`, '[data-testid="position-similarity"] td.al-highlight');
        const words = await page.textContent('[data-testid="lesson-text"]');
        const marked = await page.$$eval('[data-testid="position-similarity"] td.al-highlight', (tds) => tds.map((td) => td.textContent));
        t.assert.equal(marked.length, 7, `${w}: ${marked}`);
        for (const n of marked) t.assert.ok(words.includes(n), `${w}: the marked ${n} is not in the words`);
        for (const n of decimals(words)) t.assert.ok(marked.includes(n), `${w}: the quoted ${n} is not marked`);
        if (present) {
          const px = await page.$eval('[data-testid="position-similarity"] td', (td) => parseFloat(getComputedStyle(td).fontSize));
          t.assert.ok(px >= 15, `cells at ${px} px`);
          const size = await page.evaluate(() => document.documentElement.scrollHeight);
          t.assert.ok(size <= h + 1, `the page is ${size} px tall`);
        }
        // (on a phone the twelve columns scroll in the figure's own box)
        if (w > 400) t.assert.deepEqual(await cutTables(page), [], `${w}`);
        await t.screenshot(`review11-word-order-6-${w}${present ? '-present' : ''}`, { fullPage: !present });
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
