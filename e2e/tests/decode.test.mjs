// How a model runs attention when it generates (issue 21, the page): the decode view
// (view=decode: KV-cache decoding position by position, ← → and Play, the cache growing,
// a window's rolling buffer, "equals row t of the full run", the cache's bytes) and the
// tiles view (view=tiles: the online softmax tile by tile, the block control, m, ℓ and
// the correction, the context equal to the full run's), at 1440 and 375 px.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');
const BASE = 's=the%20cat%20sat%20on%20the%20mat%0Aa%20dog%20ran&d=16&h=4&p=seeded&seed=2&pad=keys';
const DECODE = `${BASE}&causal=1&view=decode`;
const TILES = `${BASE}&causal=1&view=tiles`;

/** True when the page is wider than the viewport (a horizontal scroll bar). */
const overflows = (page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

const text = (page, id) => page.textContent(`[data-testid="${id}"]`);

/** Each cache-strip position's slot, in order. */
const stripSlots = (page) => page.$$eval('[data-testid="cache-strip"] li', (li) => li.map((l) => l.dataset.slot));

/** The strip's slots at position t under a window of w keys (an independent statement of the rolling buffer). */
const windowSlots = (n, t, w) => [...Array(n).keys()].map((j) => {
  if (j > t) return 'future';
  if (j === t) return 'new';
  if (j > t - w) return 'cached';
  return j === t - w ? 'evicted' : 'gone';
});

/** The cache rows the K table lists: position and slot. */
const kRows = (page) =>
  page.$$eval('[data-testid="k-cache"] tbody tr', (rows) =>
    rows.map((tr) => ({ pos: Number(tr.dataset.pos), slot: tr.dataset.slot })));

/** Waits until the decode view is at position `t`. */
const waitT = (page, t) =>
  page.waitForFunction((tt) => (document.querySelector('[data-testid="decode-position"]')?.textContent ?? '')
    .startsWith(`t = ${tt} `), t);

/** The check's largest difference, and its words. */
async function check(page, id = 'decode-check') {
  return page.$eval(`[data-testid="${id}"]`, (el) => ({ diff: Number(el.dataset.diff), text: el.textContent }));
}

/**
 * Opens `query` in the explorer, turns multi-head latent attention on with a latent of
 * `rank` numbers (the mla-rank control: the scenario then travels in the link's #s=), and
 * opens the link in `view` (decode or tiles), waiting for `ready`.
 */
async function openLatent(t, query, rank, view, ready) {
  const page = await t.open(query, '[data-testid="trace-step"][data-step="weights"]');
  await page.fill('[data-testid="mla-rank"]', String(rank));
  await page.waitForSelector('[data-testid="trace-step"][data-step="c_kv"]');
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  const [before, hash] = page.url().split('#');
  await page.goto(`${before}&view=${view}#${hash}`);
  await page.waitForSelector(ready);
  return page;
}

async function openDecode(t, query = DECODE) {
  const page = await t.open(query, '[data-testid="decode-view"] [data-testid="decode-check"][data-diff]');
  return page;
}

// Steps the decode view through t = 0 … n − 1 with ArrowRight (the view focused first),
// calling `at(step, rows)` with the cache's rows at each step.
async function eachStep(page, n, at) {
  await page.focus('[data-testid="decode-view"]');
  for (let step = 0; step < n; step++) {
    if (step > 0) {
      await page.keyboard.press('ArrowRight');
      await waitT(page, step);
    }
    await at(step, await kRows(page));
  }
}

export const tests = [
  {
    name: 'decode view: ArrowRight advances t, the cache grows a row at a time, each output row equals the full run\'s',
    run: async (t) => {
      const page = await openDecode(t);
      t.assert.match(await text(page, "decode-position"), /^t = 0 of 0 to 5: the query is “the”/);
      await eachStep(page, 6, async (step, rows) => {
        // L = t + 1 rows, the newest one marked new, oldest first
        t.assert.deepEqual(rows.map((r) => r.pos), [...Array(step + 1).keys()]);
        t.assert.deepEqual(rows.filter((r) => r.slot === 'new').map((r) => r.pos), [step]);
        t.assert.equal(await page.$$eval('[data-testid="decode-weights"] tbody tr', (r) => r.length), step + 1);
        const c = await check(page);
        t.assert.ok(c.diff <= 1e-12, `t = ${step}: ${c.diff}`);
        t.assert.match(c.text, new RegExp(`^Equals row ${step} of the full run`));
        t.assert.match(await text(page, 'decode-cache-shape'), new RegExp(`\\(2, 4, ${step + 1}, 4\\)`));
      });
      // the weights of the one query row sum to 1
      const sum = await page.$$eval('[data-testid="decode-weights"] td[data-value]', (tds) =>
        tds.reduce((s, td) => s + Number(td.dataset.value), 0));
      t.assert.ok(Math.abs(sum - 1) < 1e-12, String(sum));
      // past the end stays at the end; ArrowLeft goes back
      await page.keyboard.press('ArrowRight');
      await waitT(page, 5);
      await page.keyboard.press('ArrowLeft');
      await waitT(page, 4);
      // this scenario's cache: B 2 × L 5 × h_kv 4 × d_k 4 × 2 × 8 bytes = 2,560 bytes
      t.assert.match(await text(page, 'decode-memory'), /= 2,560 bytes \(2\.5 KiB\)/);
      t.assert.ok(page.url().includes('view=decode'));
      t.assert.equal(await overflows(page), false);
      await t.screenshot('decode-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'decode view: another query head lists its K/V head\'s cache rows, which stay through a step',
    run: async (t) => {
      const page = await openDecode(t);
      await page.focus('[data-testid="decode-view"]');
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
      await waitT(page, 3);
      /** Each K row's position and first number. */
      const firsts = () => page.$$eval('[data-testid="k-cache"] tbody tr', (rows) =>
        rows.map((tr) => `${tr.dataset.pos}:${tr.querySelector('td').dataset.value}`));
      const head1 = await firsts();
      await page.selectOption('[data-testid="decode-head"]', '1');
      await page.waitForFunction(() => document.querySelector('[data-testid="k-cache"] caption')?.textContent.includes('K/V head 2'));
      const head2 = await firsts();
      // h_kv = h = 4: query head 2 reads K/V head 2, whose numbers are others (not the rows of head 1 kept)
      t.assert.equal(head2.length, 4);
      head2.forEach((row, i) => t.assert.notEqual(row, head1[i]));
      await page.focus('[data-testid="decode-view"]');
      await page.keyboard.press('ArrowRight');
      await waitT(page, 4);
      t.assert.deepEqual((await firsts()).slice(0, 4), head2);
      await page.selectOption('[data-testid="decode-head"]', '0');
      await page.focus('[data-testid="decode-view"]');
      await page.keyboard.press('ArrowLeft');
      await waitT(page, 3);
      await page.waitForFunction(() => document.querySelector('[data-testid="k-cache"] caption')?.textContent.includes('K/V head 1'));
      t.assert.deepEqual(await firsts(), head1);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'decode view: longer than the tables list, the columns and captions stay put while the rows and the shape line follow t',
    run: async (t) => {
      // 14 words, d_k = 4: more keys than the 12 weights and the 8 cache rows listed
      const words = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen';
      const page = await openDecode(t, `s=${encodeURIComponent(words)}&d=16&h=4&p=seeded&seed=5&causal=1&view=decode`);
      await page.focus('[data-testid="decode-view"]');
      /** The K and V tables' captions and header cell widths, as laid out. */
      const frame = () => page.$$eval('[data-testid="k-cache"], [data-testid="v-cache"]', (tables) => tables.map((tb) => ({
        caption: tb.querySelector('caption').textContent,
        widths: [...tb.querySelectorAll('thead th')].map((th) => th.getBoundingClientRect().width),
      })));
      const first = await frame();
      t.assert.match(first[0].caption, /^K cache, K\/V head 1: d_k = 4 features →$/);
      for (let step = 1; step < 14; step++) {
        await page.keyboard.press('ArrowRight');
        await waitT(page, step);
        t.assert.deepEqual(await frame(), first, `t = ${step}: the tables' captions and columns move`);
        const rows = await kRows(page);
        t.assert.deepEqual(rows.map((r) => r.pos), [...Array(Math.min(step + 1, 8)).keys()].map((i) => i + Math.max(0, step - 7)));
        t.assert.deepEqual(rows.filter((r) => r.slot === 'new').map((r) => r.pos), [step]);
        t.assert.match(await text(page, 'decode-cache-shape'), step + 1 > 8
          ? new RegExp(`both \\(1, 4, ${step + 1}, 4\\); the tables below list the newest 8 of its L = ${step + 1} rows$`)
          : new RegExp(`both \\(1, 4, ${step + 1}, 4\\)$`));
        t.assert.equal(await page.$$eval('[data-testid="decode-weights"] tbody tr', (r) => r.length), Math.min(step + 1, 12));
      }
      // at t = 13: the 12 largest of 14 weights, and the caption's sum of the other two makes 1
      const caption = await page.textContent('[data-testid="decode-weights"] caption');
      const m = caption.match(/the 12 largest, in order; the other 2 add up to ([0-9.]+)\)/);
      t.assert.ok(m, caption);
      const listed = await page.$$eval('[data-testid="decode-weights"] td[data-value]', (tds) =>
        tds.reduce((s, td) => s + Number(td.dataset.value), 0));
      t.assert.ok(Math.abs(listed + Number(m[1]) - 1) < 1e-4, `${listed} + ${m[1]}`);
      // the output row lists its first 8 of d_model = 16 numbers, each equal to the full run's
      t.assert.equal(await page.$$eval('[data-testid="decode-output"] td[data-value]', (tds) => tds.length), 8);
      t.assert.ok((await check(page)).diff <= 1e-12);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'decode view: the calculator gives Llama 3 8B at 8,192 tokens in bf16 = 1 GiB, and the others',
    run: async (t) => {
      const page = await openDecode(t);
      t.assert.match(await text(page, 'calc-result'), /^Llama 3 8B at 8,192 tokens in bf16: .*= 1,073,741,824 bytes = 1 GiB per sequence/);
      await page.selectOption('[data-testid="calc-dtype"]', '1'); // f32
      t.assert.match(await text(page, 'calc-result'), /= 2 GiB per sequence/);
      await page.selectOption('[data-testid="calc-dtype"]', '0');
      await page.selectOption('[data-testid="calc-model"]', '2'); // Llama 2 7B: 32 K/V heads
      t.assert.match(await text(page, 'calc-result'), /= 4 GiB per sequence\. That is past the 4,096-token context Llama 2 7B was trained for/);
      await page.selectOption('[data-testid="calc-model"]', '1'); // Mistral 7B: window 4096
      await page.fill('[data-testid="calc-tokens"]', '32768');
      t.assert.match(await text(page, 'calc-result'), /= 512 MiB per sequence\. The sliding window keeps only the last 4,096 tokens\. That is past the 8,192-token context/);
      // 0 or an empty field is refused in words, not turned into 1 in silence
      for (const bad of ['0', '']) {
        await page.fill('[data-testid="calc-tokens"]', bad);
        t.assert.match(await text(page, 'calc-error'), /whole number of tokens from 1 to 10,000,000/);
        t.assert.equal(await text(page, 'calc-result'), '');
      }
      // typed key by key, as a learner types: 2.5 is refused, not read as 25 or 52
      await page.fill('[data-testid="calc-tokens"]', '');
      await page.type('[data-testid="calc-tokens"]', '2.5');
      t.assert.equal(await page.inputValue('[data-testid="calc-tokens"]'), '2.5');
      t.assert.match(await text(page, 'calc-error'), /whole number of tokens/);
      await page.fill('[data-testid="calc-tokens"]', '1');
      t.assert.equal(await page.$('[data-testid="calc-error"]'), null);
      t.assert.match(await text(page, 'calc-result'), /at 1 token in bf16/);
      // typing in the calculator does not step the decoding
      await page.focus('[data-testid="calc-tokens"]');
      await page.keyboard.press('ArrowRight');
      t.assert.match(await text(page, 'decode-position'), /^t = 0 /);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'decode view under a window: the cache never holds more than W rows; the row that leaves is marked',
    run: async (t) => {
      const page = await openDecode(t, `${DECODE}&win=3`);
      await eachStep(page, 6, async (step, rows) => {
        const kept = rows.filter((r) => r.slot !== 'evicted').map((r) => r.pos);
        t.assert.ok(kept.length <= 3, `t = ${step}: ${kept}`);
        t.assert.deepEqual(kept, [...Array(Math.min(step + 1, 3)).keys()].map((i) => Math.max(0, step - 2) + i));
        const evicted = rows.filter((r) => r.slot === 'evicted').map((r) => r.pos);
        t.assert.deepEqual(evicted, step >= 3 ? [step - 3] : []);
        const strip = await stripSlots(page);
        t.assert.deepEqual(strip, windowSlots(strip.length, step, 3), `t = ${step}`);
        if (step >= 3) {
          t.assert.match(await text(page, 'decode-evicted'), new RegExp(`^Left the cache: ${step - 3} `));
        }
        const c = await check(page);
        t.assert.ok(c.diff <= 1e-12, `t = ${step}: ${c.diff}`);
        if (step === 4) await t.screenshot('decode-window-1440');
      });
      // stepping back sets every position of the strip back, not only the ones a step
      // forward changed
      for (const step of [4, 3, 2, 0]) {
        await page.keyboard.press(step === 0 ? 'Home' : 'ArrowLeft');
        await waitT(page, step);
        const strip = await stripSlots(page);
        t.assert.deepEqual(strip, windowSlots(strip.length, step, 3), `back at t = ${step}`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'decode view at 375 px: no sideways scroll, and Play steps through t',
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      const page = await openDecode(t, `${DECODE}&win=3`);
      t.assert.equal(await overflows(page), false);
      await page.click('[data-testid="decode-next"]');
      await page.click('[data-testid="decode-next"]');
      await page.click('[data-testid="decode-next"]');
      await waitT(page, 3);
      await t.screenshot('decode-375');
      await page.click('[data-testid="decode-play"]');
      t.assert.equal(await text(page, 'decode-play'), 'Pause');
      await waitT(page, 4);
      await page.click('[data-testid="decode-play"]');
      t.assert.equal(await text(page, 'decode-play'), 'Play');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'decode view: a non-causal scenario says why, and its button turns causal on; cross-attention decodes',
    run: async (t) => {
      const page = await t.open(`${BASE}&causal=0&view=decode`, '[data-testid="decode-needs-causal"]');
      t.assert.match(await text(page, 'decode-needs-causal'), /causal/);
      // said once, and nothing looks steppable
      t.assert.equal(await page.locator('[data-testid="decode-needs-causal"] p').count(), 1);
      for (const b of ['decode-prev', 'decode-play', 'decode-next']) t.assert.ok(await page.isDisabled(`[data-testid="${b}"]`), b);
      t.assert.equal(await text(page, 'decode-position'), 'no position to decode');
      await page.click('[data-testid="decode-turn-causal-on"]');
      await page.waitForSelector('[data-testid="decode-check"][data-diff]');
      t.assert.ok(page.url().includes('causal=1'));
      for (const b of ['decode-prev', 'decode-play', 'decode-next']) t.assert.ok(await page.isEnabled(`[data-testid="${b}"]`), b);
      // cross-attention: a fixed cache of the key sentence, every row from the start
      await page.goto(t.url(`/?${BASE}&causal=0&kv=${encodeURIComponent('the dog sat down\nthe cat ran')}&view=decode`));
      await page.waitForSelector('[data-testid="decode-check"][data-diff]');
      const rows = await kRows(page);
      t.assert.deepEqual(rows.map((r) => r.slot), ['cached', 'cached', 'cached', 'cached']);
      t.assert.ok((await check(page)).diff <= 1e-12);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'tiles view: the block control, ← → through the tiles, m and ℓ per row, the context equals the full run\'s',
    run: async (t) => {
      const page = await t.open(TILES, '[data-testid="tiles-view"] [data-testid="tiles-check"][data-diff]');
      // T = 6, block 2: 3 × 3 tiles per head and sentence
      t.assert.match(await text(page, 'tiles-position'), /^Tile 1 of 9: query rows 0–1, key columns 0–1/);
      t.assert.equal(await page.$$eval('[data-testid="tile-rows"] tbody tr', (r) => r.length), 2);
      t.assert.match(await text(page, 'tiles-peak'), /block² = 4 numbers at a time, against T_q × T_k = 36/);
      await page.focus('[data-testid="tiles-view"]');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.querySelector('[data-testid="tiles-position"]').textContent.startsWith('Tile 2 of 9'));
      // causal: rows 0–1 against keys 2–3 are all blocked, the tile is skipped
      t.assert.match(await text(page, 'tile-words'), /skipped/);
      const box = await page.$eval('[data-testid="tile-outline"]', (el) => el.getBoundingClientRect().width);
      t.assert.ok(box > 0);
      const c = await check(page, 'tiles-check');
      t.assert.ok(c.diff <= 1e-12, String(c.diff));
      await t.screenshot('tiles-1440');
      // a block of 4: 2 × 2 tiles, the URL keeps it
      await page.fill('[data-testid="tile-block"]', '4');
      await page.press('[data-testid="tile-block"]', 'Enter');
      await page.waitForFunction(() => document.querySelector('[data-testid="tiles-position"]').textContent.startsWith('Tile 1 of 4'));
      t.assert.ok(page.url().includes('block=4'));
      t.assert.match(await text(page, 'tiles-peak'), /block² = 16 numbers/);
      t.assert.equal(await page.$$eval('[data-testid="tile-rows"] tbody tr', (r) => r.length), 4);
      await page.click('[data-testid="tiles-next"]');
      await page.click('[data-testid="tiles-next"]');
      // the tile at rows 4–5, keys 0–3: a later tile for rows 4 and 5 follows
      t.assert.match(await text(page, 'tiles-position'), /^Tile 3 of 4: query rows 4–5, key columns 0–3/);
      t.assert.ok((await check(page, 'tiles-check')).diff <= 1e-12);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'tiles view: "grey = blocked" only when the mask blocks a cell shown, and a blocked cell is hatched as in the heatmaps',
    run: async (t) => {
      const legend = '[data-testid="tiles-legend"]';
      // causal: the cells right of the diagonal are blocked, grey and hatched
      let page = await t.open(TILES, '[data-testid="tiles-check"][data-diff]');
      t.assert.match(await page.textContent(legend), /hatched grey = blocked/);
      // row 0, key 5 (blocked): the heatmaps' grey, with their hatch across it
      const colours = await page.$eval('[data-testid="tiles-canvas"]', (c) => {
        const side = c.width / 6;
        const d = c.getContext('2d').getImageData(5 * side, 0, side, side).data;
        const set = new Set();
        for (let i = 0; i < d.length; i += 4) set.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
        return [...set];
      });
      t.assert.ok(colours.includes('214,214,220') && colours.includes('150,150,160'), colours.join(' '));
      // no mask: nothing blocked, and the legend does not speak of it
      page = await t.open(`${BASE.replace('&pad=keys', '&pad=none')}&causal=0&view=tiles`, '[data-testid="tiles-check"][data-diff]');
      t.assert.doesNotMatch(await page.textContent(legend), /blocked/);
      t.assert.doesNotMatch(await page.getAttribute('[data-testid="tiles-canvas"]', 'aria-label'), /blocked/);
      await t.screenshot('tiles-unmasked');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'tiles view at 375 px: no sideways scroll, buttons step',
    run: async (t) => {
      const page = await t.openAt({ width: 375, height: 800 }, `${TILES}&block=3`, '[data-testid="tiles-check"][data-diff]');
      t.assert.equal(await overflows(page), false);
      await page.click('[data-testid="tiles-next"]');
      await page.click('[data-testid="tiles-next"]');
      t.assert.match(await text(page, 'tiles-position'), /^Tile 3 of 4/);
      await t.screenshot('tiles-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'decode view under MLA: the cache holds c_KV and k_rot per token with its size, and every row equals the full run\'s',
    run: async (t) => {
      // d_model 16, h 4: d_nope = d_v = 4, d_rope = 2 (DeepSeek-V3's proportions), r_kv = 3
      const page = await openLatent(t, `${BASE}&causal=1&rope=half`, 3, 'decode',
        '[data-testid="decode-view"] [data-testid="decode-check"][data-diff]');
      t.assert.match(await page.textContent('[data-testid="k-cache"] caption'), /^c_KV cache, shared by every head: r_kv = 3 features →$/);
      t.assert.match(await page.textContent('[data-testid="v-cache"] caption'), /^k_rot cache, shared by every head: d_rope = 2 features →$/);
      await eachStep(page, 6, async (step, rows) => {
        t.assert.deepEqual(rows.map((r) => r.pos), [...Array(step + 1).keys()]);
        const c = await check(page);
        t.assert.ok(c.diff <= 1e-12, `t = ${step}: ${c.diff}`);
        t.assert.match(c.text, new RegExp(`^Equals row ${step} of the full run`));
        const shape = await text(page, 'decode-cache-shape');
        t.assert.ok(shape.includes('r_kv = 3 numbers') && shape.includes('d_rope = 2'), shape);
        t.assert.ok(shape.includes('5 numbers, not h·(d_k + d_v) = 4·(6 + 4) = 40'), shape);
        t.assert.ok(shape.includes(`c_kv and k_rot are (B, 1, L, r_kv or d_rope) = (2, 1, ${step + 1}, 3 or 2)`), shape);
        // the tables' rows: 3 and 2 numbers each, no "…"
        t.assert.equal(await page.$$eval('[data-testid="k-cache"] tbody tr:last-child td', (td) => td.length), 3);
        t.assert.equal(await page.$$eval('[data-testid="v-cache"] tbody tr:last-child td', (td) => td.length), 2);
      });
      t.assert.match(await page.textContent('[data-testid="decode-weights"] caption'),
        /softmax of the scaled q·k = q_nope·k_nope \+ q_rot·k_rot/);
      // B 2 × L 6 × (3 + 2) × 8 bytes = 480 bytes
      t.assert.match(await text(page, 'decode-memory'), /B × L × \(r_kv \+ d_rope\) × 8 bytes \(f64\) = 2 × 6 × \(3 \+ 2\) × 8 = 480 bytes/);
      t.assert.equal(await overflows(page), false);
      await t.screenshot('decode-mla-1440');
      await page.locator('[data-testid="decode-view"]').screenshot({ path: path.join(SHOTS, 'decode-mla-view-1440.png') });
      await page.setViewportSize({ width: 375, height: 812 });
      await page.waitForFunction(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
      t.assert.equal(await overflows(page), false);
      await t.screenshot('decode-mla-375');
      await page.locator('[data-testid="decode-view"]').screenshot({ path: path.join(SHOTS, 'decode-mla-view-375.png') });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'tiles view under MLA: the context equals the full run\'s at every block, the scores named as MLA\'s',
    run: async (t) => {
      const page = await openLatent(t, `${BASE}&causal=1&rope=half`, 3, 'tiles',
        '[data-testid="tiles-view"] [data-testid="tiles-check"][data-diff]');
      // T = 6: (6 / block)² tiles per head and sentence
      for (const [block, n] of [[1, 36], [2, 9], [4, 4], [6, 1]]) {
        await page.fill('[data-testid="tile-block"]', String(block));
        await page.press('[data-testid="tile-block"]', 'Enter');
        await page.waitForFunction((want) => document.querySelector('[data-testid="tiles-position"]')
          .textContent.startsWith(want), `Tile 1 of ${n}:`);
        await page.waitForSelector('[data-testid="tiles-check"][data-diff]');
        const c = await check(page, 'tiles-check');
        t.assert.ok(c.diff <= 1e-12, `block ${block}: ${c.diff}`);
      }
      await page.click('[data-testid="tiles-view"] details.al-fold summary');
      t.assert.match(await page.textContent('[data-testid="tile-scores"] caption'), /q_nope·k_nope \+ q_rot·k_rot, scaled/);
      t.assert.equal(await overflows(page), false);
      await t.screenshot('tiles-mla-1440');
      await page.locator('[data-testid="tiles-view"]').screenshot({ path: path.join(SHOTS, 'tiles-mla-view-1440.png') });
      await page.setViewportSize({ width: 375, height: 812 });
      await page.waitForFunction(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
      await t.screenshot('tiles-mla-375');
      await page.locator('[data-testid="tiles-view"]').screenshot({ path: path.join(SHOTS, 'tiles-mla-view-375.png') });
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
