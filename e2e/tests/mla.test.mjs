// Multi-head latent attention in the browser: the mla-rank control (turns MLA on with a
// latent of r_kv numbers, its steps and shapes as the engine records them; 0 or empty is
// off; a bad value is a message beside it; the link and the worker carry it) and the
// lesson ?lesson=mla (every step at 1440 and 375 px and in presenter mode at 1280 × 720
// shows its words and picture, nothing wider than the screen, axe clean; the absorbed
// scores' table equals the scores' heatmap; the cache table's bytes are the words').
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { noOverflow } from '../lib/layout.mjs';
import { assertAxeClean } from '../lib/axe.mjs';
import { table, values, waitStep, shape } from '../lib/trace.mjs';

const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');
const BASE = 's=the%20cat%20sat%20on%20the%20mat&d=8&h=2&p=seeded&seed=3&pad=none&causal=1&rope=half';

const err = (page) => page.locator('.al-field-group:has([data-testid="mla-rank"]) [data-testid="error"]');

async function select(page, step, head = 0) {
  await page.click(`[data-testid="trace-step"][data-step="${step}"] button`);
  await page.waitForSelector(table(step, head), { state: 'attached' });
}

/** Types `rank` into the mla-rank control and waits for the latent of that width. */
async function setRank(page, rank) {
  await page.fill('[data-testid="mla-rank"]', String(rank));
  await page.waitForFunction((r) => new RegExp(`, ${r}\\)`).test(
    document.querySelector('[data-testid="trace-step"][data-step="c_kv"] [data-testid="step-shape"]')?.textContent ?? ''), rank);
}

export const tests = [
  {
    name: 'mla: the mla-rank control turns multi-head latent attention on and off as the engine records it',
    run: async (t) => {
      const page = await t.gotoApp(BASE);
      await waitStep(page, 'k_heads');
      await setRank(page, 3);
      // d_model / h = 4: d_nope = d_v = 4, d_rope = 2 (DeepSeek-V3's proportions)
      t.assert.match(await shape(page, 'c_kv'), /= \(1, 6, 3\)/);
      t.assert.match(await shape(page, 'k_pe'), /= \(1, 1, 6, 2\)/);
      t.assert.match(await shape(page, 'k_cat'), /= \(1, 2, 6, 6\)/);
      t.assert.match(await shape(page, 'v_heads'), /= \(1, 2, 6, 4\)/);
      await waitStep(page, 'k_heads', false);
      // every head's key ends with the same shared RoPE key
      await select(page, 'k_cat', 0);
      const k0 = await values(page, 'k_cat', 0);
      await select(page, 'k_cat', 1);
      const k1 = await values(page, 'k_cat', 1);
      t.assert.deepEqual(k0.map((r) => r.slice(4)), k1.map((r) => r.slice(4)));
      t.assert.notDeepEqual(k0.map((r) => r.slice(0, 4)), k1.map((r) => r.slice(0, 4)));
      // a new rank keeps the heads' sizes
      await setRank(page, 5);
      t.assert.match(await shape(page, 'k_cat'), /= \(1, 2, 6, 6\)/);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'mla-control-1440.png'), fullPage: false });
      // 0 is off: the heads are d_model / h again, and typing 0 stays
      await page.fill('[data-testid="mla-rank"]', '0');
      await waitStep(page, 'k_heads');
      await waitStep(page, 'c_kv', false);
      t.assert.equal(await page.inputValue('[data-testid="mla-rank"]'), '0');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'mla: a bad rank or a setting MLA cannot take is a message beside the control, never a dead page',
    run: async (t) => {
      const page = await t.gotoApp(BASE);
      await waitStep(page, 'weights');
      await page.fill('[data-testid="mla-rank"]', '2.5');
      await err(page).waitFor();
      t.assert.match(await err(page).textContent(), /MLA rank must be a whole number/);
      await page.fill('[data-testid="mla-rank"]', '');
      await err(page).waitFor({ state: 'detached' });
      // grouped key/value heads are not MLA's: the engine's reason, beside h_kv (the field
      // to change), in the page's words
      await page.fill('[data-testid="n-kv-heads"]', '1');
      await page.fill('[data-testid="mla-rank"]', '3');
      const kvErr = page.locator('.al-field-group:has([data-testid="n-kv-heads"]) [data-testid="error"]');
      await kvErr.waitFor();
      const said = await kvErr.textContent();
      t.assert.match(said, /^h_kv = 1 with MLA on: MLA has no key\/value heads to share/);
      t.assert.match(said, /set h_kv to h = 2, or turn MLA off/);
      t.assert.ok(!/n_kv_heads/.test(said), said);
      t.assert.equal(await err(page).count(), 0, 'not beside the rank');
      t.assert.equal(await page.$$eval('[role="alert"]', (els) => els.filter((e) => !e.closest('.al-field, .al-field-group')).length), 0,
        'no error at the top of the page');
      // h_kv = h clears it
      await page.fill('[data-testid="n-kv-heads"]', '2');
      await kvErr.waitFor({ state: 'detached' });
      await waitStep(page, 'c_kv');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'mla: under MLA the h, h_kv and rank hints state the trace\'s sizes and what MLA caches; a rank past the model is run with a note',
    run: async (t) => {
      const page = await t.gotoApp(BASE);
      await waitStep(page, 'weights');
      const hint = (id) => page.textContent(`[data-testid="${id}"]`);
      // off: what a rank would turn on, as it then does
      t.assert.match(await hint('mla-rank-sizes'), /d_nope = d_v = 4, d_rope = 2\./);
      await setRank(page, 3);
      // the trace's sizes: k_cat (d_nope + d_rope), v_heads (d_v), c_kv (r_kv), k_pe (d_rope)
      const last = async (step) => Number((await shape(page, step)).match(/(\d+)\)\s*$/)[1]);
      const [dk, dv, rkv, drope] = [await last('k_cat'), await last('v_heads'), await last('c_kv'), await last('k_pe')];
      t.assert.deepEqual([dk, dv, rkv, drope], [6, 4, 3, 2]);
      t.assert.equal(await hint('d-k'), `MLA: d_k = d_nope + d_rope = ${dk - drope} + ${drope} = ${dk}, d_v = ${dv}`);
      const cache = await hint('kv-cache-per-token');
      t.assert.ok(cache.startsWith(`MLA caches per token and layer c_KV and k_rot (the rotated k_pe): r_kv + d_rope = ${rkv} + ${drope} = ${rkv + drope} numbers`), cache);
      t.assert.ok(cache.includes(`h · (d_k + d_v) = 2 · (${dk} + ${dv}) = ${2 * (dk + dv)}`), cache);
      const sizes = await hint('mla-rank-sizes');
      t.assert.ok(sizes.startsWith(`Heads: d_nope = ${dk - drope}, d_rope = ${drope}, d_v = ${dv}, DeepSeek-V3's 2 : 1 : 2, sized from d_model and h.`), sizes);
      t.assert.ok(sizes.includes(`${rkv + drope} numbers, against ${2 * (dk + dv)}`), sizes);
      for (const id of ['d-k', 'kv-cache-per-token', 'mla-rank-sizes']) {
        t.assert.ok(!/d_model ?\/ ?h/.test(await hint(id)), `${id}: ${await hint(id)}`);
      }
      // a latent wider than x (d_model = 8) runs, with a note beside the rank, not an error
      await setRank(page, 12);
      t.assert.equal(await err(page).count(), 0);
      t.assert.match(await hint('mla-rank-sizes'), /r_kv = 12 is wider than x \(d_model = 8\).*no longer compresses/);
      await setRank(page, 40);
      t.assert.match(await hint('mla-rank-sizes'), /r_kv \+ d_rope = 42 numbers per token and layer is no fewer than every head's key and value, h · \(d_k \+ d_v\) = 20: the latent no longer compresses/);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.locator('[data-testid="mla-rank"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'mla-rank-note-1440.png'), fullPage: false });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'mla: a link with a rank opens the same numbers, and the worker computes what the page computes',
    run: async (t) => {
      const page = await t.gotoApp(`${BASE}&engine=sync`);
      await waitStep(page, 'weights');
      await setRank(page, 3);
      await page.waitForFunction(() => location.hash.startsWith('#s='));
      await select(page, 'weights', 1);
      const want = await values(page, 'weights', 1);
      const other = await t.context.newPage();
      await other.goto(page.url().replace('engine=sync', 'engine=worker'));
      await other.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      await other.waitForSelector('[data-testid="trace-step"][data-step="c_kv"]');
      t.assert.equal(await other.inputValue('[data-testid="mla-rank"]'), '3');
      await other.waitForFunction(() => !document.querySelector('[data-testid="computing"]'));
      await select(other, 'weights', 1);
      t.assert.deepEqual(await values(other, 'weights', 1), want);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  ...[[1440, 900, ''], [375, 812, ''], [1280, 720, '&present=1']].map(([width, height, extra]) => ({
    name: `mla lesson: every step at ${width} × ${height}${extra ? ' in presenter mode' : ''} shows its words and picture, axe clean`,
    timeoutMs: 200000,
    run: async (t) => {
      await t.page.setViewportSize({ width, height });
      const steps = 6;
      const page = await t.gotoApp(`lesson=mla&ls=0${extra}`);
      for (let s = 0; s < steps; s++) {
        await page.waitForFunction((k) => new URLSearchParams(location.search).get('ls') === String(k), s);
        const text = await page.textContent('[data-testid="lesson-text"]');
        t.assert.ok(text.length > 20 && !/NaN|\[\]/.test(text), `step ${s + 1}: ${text}`);
        if (s === 4) await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="cache-bars"]');
        else await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="heatmap"]');
        if (s === 3) {
          // the absorbed scores are the scores, as the table prints them
          const rows = await page.$$eval('[data-testid="lesson-aside"] tbody tr', (trs) =>
            trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
          t.assert.equal(rows.length, 4);
          t.assert.deepEqual(rows[0], rows[1]);
          t.assert.deepEqual(rows[2], rows[3]);
          // the words point at the table; its caption gives the largest gap
          t.assert.match(text, /both ways in both heads/);
          t.assert.match(await page.textContent('[data-testid="lesson-aside"]'), /differ by at most/);
        }
        if (s === 4) {
          // the cache bars are the picture, in place of step 1's latent
          const bars = await page.textContent('[data-testid="lesson-picture"] [data-testid="cache-bars"]');
          for (const n of ['4,997,120', '312,320', '39,040', '70,272']) {
            t.assert.ok(bars.includes(n) && text.includes(n), `${n}: ${bars}`);
          }
          t.assert.equal(await page.locator('[data-testid="lesson-picture"] [data-testid="heatmap"]').count(), 0);
          const widths = await page.$$eval('[data-testid="cache-bars-v3"] .al-bar', (els) => els.map((e) => e.getBoundingClientRect().width));
          t.assert.equal(widths.length, 4);
          // in order of size, the smallest still drawn (4 px at least); where the column has room, to scale
          t.assert.ok(widths[0] > widths[1] && widths[1] >= widths[3] && widths[3] >= widths[2] && widths[2] >= 4, `bars: ${widths}`);
          if (widths[0] >= 80 * 4) t.assert.ok(widths[0] > 20 * widths[3], `MHA against MLA: ${widths}`);
          // a bar too short to read says its share beside it, rounded half away from zero
          // (6.25% is 6.3%), in a column named for what it holds
          const shares = await page.$$eval('[data-testid="cache-bars-v3"] .al-bar-share', (els) => els.map((e) => e.textContent));
          t.assert.deepEqual(shares, ['the largest', '6.3% of MHA', '0.78% of MHA', '1.4% of MHA']);
          const heads = await page.$$eval('[data-testid="cache-bars-v3"] thead th', (els) => els.map((e) => e.textContent.trim()));
          t.assert.equal(heads[2], 'against the largest');
          // each table inside the screen, or scrolling in its own named region
          const tables = await page.$$eval('[data-testid="cache-bars"] table', (els) => els.map((e) => {
            const region = e.closest('[role="region"]');
            const r = (region ?? e).getBoundingClientRect();
            return { right: r.right, region: region?.getAttribute('aria-label') ?? null, inner: e.getBoundingClientRect().right };
          }));
          for (const tb of tables) {
            t.assert.ok(tb.right <= width + 0.5, `the table's box ends at ${tb.right} px of ${width}`);
            t.assert.ok(tb.inner <= width + 0.5 || tb.region, `a table wider than the screen scrolls in a region: ${JSON.stringify(tb)}`);
          }
        }
        if (s === 2) {
          // the shared RoPE key is one map of its own d_rope columns, not "head 1"
          const title = await page.textContent('[data-testid="lesson-picture"] .al-card:not([hidden]) .al-card-title');
          t.assert.equal(title.trim(), 'shared RoPE key');
          t.assert.match(await page.textContent('[data-testid="lesson-picture"] [data-testid="axis-titles"]'), /columns: d_rope →/);
        }
        await noOverflow(t, page, `mla step ${s + 1} at ${width} px`, 1);
        if (extra) {
          // presenter mode opens each step at the top, its words and picture in view
          await page.waitForTimeout(300);
          t.assert.equal(await page.evaluate(() => window.scrollY), 0, `step ${s + 1} opens scrolled`);
          const tall = await page.evaluate(() => document.documentElement.scrollHeight);
          t.assert.ok(tall <= height + 1, `step ${s + 1}: the page is ${tall} px tall`);
          const boxes = await page.$$eval('[data-testid="lesson-text"], [data-testid="lesson-picture"]', (els) => els.map((e) => e.getBoundingClientRect().toJSON()));
          for (const b of boxes) t.assert.ok(b.top >= 0 && b.top < height, `step ${s + 1}: ${JSON.stringify(b)}`);
        }
        await page.waitForTimeout(150);
        await assertAxeClean(t, page, `mla lesson step ${s + 1} at ${width} px${extra}`);
        fs.mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SHOTS, `lesson-mla-${s + 1}-${width}${extra ? '-present' : ''}.png`), fullPage: !extra });
        if (s + 1 < steps) await page.click('[data-testid="lesson-next"]');
      }
      t.assert.deepEqual(t.errors(), []);
    },
  })),
  {
    name: 'mla lesson: step 5\'s embed shows the cache bars its words are about, the words above them',
    run: async (t) => {
      await t.page.setViewportSize({ width: 800, height: 500 });
      const page = await t.gotoApp('lesson=mla&ls=4&embed=1');
      await page.waitForSelector('[data-testid="embed-words"]');
      const bars = page.locator('[data-testid="cache-bars"]');
      await bars.waitFor();
      const text = await page.textContent('[data-testid="embed-words"]');
      t.assert.match(text, /The cache per token/);
      for (const n of ['4,997,120', '70,272']) t.assert.ok((await bars.textContent()).includes(n), n);
      t.assert.equal(await page.locator('[data-testid="heatmap"]').count(), 0);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'lesson-mla-5-embed.png') });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'mla lesson: the embeds of the steps whose words quote a key or point at a table show that table beside the picture, the frame not scrolling',
    run: async (t) => {
      await t.page.setViewportSize({ width: 800, height: 500 });
      // steps 2 and 4 point at "the table" (2 quotes "cat"'s key in heads 1 and 2; 4's table holds "mat"'s
      // scores both ways), 3 and 6 quote a k_rot the embed's small maps cannot print
      for (const [s, quoted] of [[1, /key is (\[[^\]]+\]) in head 1/], [1, /and (\[[^\]]+\]) in head 2/],
        [2, /k_rot is (\[[^\]]+\])/], [3, null], [5, /ends in (\[[^\]]+\])/]]) {
        const page = await t.gotoApp(`lesson=mla&ls=${s}&embed=1`);
        await page.waitForSelector('[data-testid="embed"] [data-testid="lesson-aside"] table');
        await page.waitForSelector('[data-testid="embed"] canvas[data-testid="heatmap"]');
        await page.waitForTimeout(300);
        const words = await page.textContent('[data-testid="embed-text"]');
        const cells = await page.$$eval('[data-testid="embed"] [data-testid="lesson-aside"] tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
        if (quoted) {
          const numbers = JSON.parse(words.match(quoted)[1]).map((x) => x.toFixed(2));
          t.assert.ok(cells.some((row) => numbers.every((n, i) => row[row.length - numbers.length + i] === n)), `step ${s + 1}: ${numbers} in ${JSON.stringify(cells)}`);
        } else {
          // the absorbed scores: each head's row computed both ways, equal as the words say
          t.assert.match(words, /The table computes/);
          t.assert.equal(cells.length % 2, 0, JSON.stringify(cells));
          for (let r = 0; r < cells.length; r += 2) t.assert.deepEqual(cells[r], cells[r + 1], `step ${s + 1}: rows ${r}, ${r + 1}`);
        }
        // the whole table in the frame, not scrolled away in its region
        const table = await page.$eval('[data-testid="embed"] [data-testid="lesson-aside"] table', (e) => e.getBoundingClientRect().toJSON());
        t.assert.ok(table.bottom <= 500 && table.right <= 800, `step ${s + 1}: the table ends at ${table.right} × ${table.bottom} px`);
        const region = await page.$eval('[data-testid="embed"] [data-testid="lesson-aside"] [role="region"]', (e) => e.scrollWidth - e.clientWidth);
        t.assert.ok(region <= 1, `step ${s + 1}: the table scrolls ${region} px in its region`);
        // and the picture's first card whole, beside it
        const card = await page.$eval('[data-testid="embed"] .al-card', (e) => e.getBoundingClientRect().toJSON());
        t.assert.ok(card.right <= table.left && card.bottom <= 500, `step ${s + 1}: the card ${JSON.stringify(card)}`);
        const size = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
        t.assert.ok(size[0] <= 801 && size[1] <= 501, `step ${s + 1}: the frame scrolls (${size})`);
        fs.mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SHOTS, `lesson-mla-${s + 1}-embed.png`) });
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'mla: the heads a rank turns on are DeepSeek-V3\'s 2 : 1 : 2 for the d_model and h shown, whatever the order of the edits',
    run: async (t) => {
      const page = await t.gotoApp(BASE);
      await waitStep(page, 'weights');
      // rank first, then h = 1: the heads follow, as a rank typed at h = 1 would give
      await setRank(page, 3);
      t.assert.match(await shape(page, 'k_cat'), /= \(1, 2, 6, 6\)/);
      await page.fill('[data-testid="n-heads"]', '1');
      await page.waitForFunction(() => /= \(1, 1, 6, 12\)/.test(document.querySelector('[data-testid="trace-step"][data-step="k_cat"] [data-testid="step-shape"]')?.textContent ?? ''));
      t.assert.match(await shape(page, 'v_heads'), /= \(1, 1, 6, 8\)/);
      t.assert.match(await page.textContent('[data-testid="mla-rank-sizes"]'), /^Heads: d_nope = 8, d_rope = 4, d_v = 8, DeepSeek-V3's 2 : 1 : 2, sized from d_model and h\./);
      const other = await t.context.newPage();
      await other.goto(t.url(`/?${BASE.replace('h=2', 'h=1')}`));
      await other.waitForSelector('[data-testid="trace-step"][data-step="k_heads"]');
      await other.fill('[data-testid="mla-rank"]', '3');
      await other.waitForSelector('[data-testid="trace-step"][data-step="k_cat"]');
      t.assert.equal(await shape(other, 'k_cat'), await shape(page, 'k_cat'));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'mla lesson: the last step asks one question the steps before it do not answer; check yourself quotes other sizes',
    run: async (t) => {
      const page = await t.gotoApp('lesson=mla&ls=5');
      await page.waitForSelector('[data-testid="quiz"]');
      const question = await page.textContent('[data-testid="quiz"] .al-quiz-question');
      t.assert.match(question, /This layer has 4 heads.*How many numbers does a decoder cache for one token in this layer\?/s);
      // the answer is not the first button
      const choices = await page.$$eval('[data-testid="quiz-choice"]', (els) => els.map((e) => e.textContent.trim()));
      t.assert.deepEqual(choices, ['32: all 4 heads\' keys and values', '12: the 2-head cache, 2×', '6: the 2-head cache, unchanged']);
      await page.click('[data-testid="quiz-choice"][data-choice="2"]');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right: 6: the 2-head cache, unchanged\. 6 numbers: c_KV \(4\) and the shared RoPE key k_rot/);
      const check = await page.textContent('[data-testid="check-yourself"]');
      t.assert.match(check, /d_nope \+ d_rope = 5 \+ 4/);
      t.assert.ok(!/d_nope = 3 and d_rope = 2/.test(check), check);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
