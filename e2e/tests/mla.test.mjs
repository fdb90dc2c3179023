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

const err = (page) => page.locator('.al-field:has([data-testid="mla-rank"]) [data-testid="error"]');

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
      // grouped key/value heads are not MLA's: the engine's reason, beside the control
      await page.fill('[data-testid="n-kv-heads"]', '1');
      await page.fill('[data-testid="mla-rank"]', '3');
      await err(page).waitFor();
      t.assert.match(await err(page).textContent(), /mla|MLA/);
      t.assert.equal(await page.$$eval('[role="alert"]', (els) => els.filter((e) => !e.closest('.al-field')).length), 0,
        'no error at the top of the page');
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
        await page.waitForSelector('[data-testid="lesson-picture"] [data-testid="heatmap"]');
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
          const aside = await page.textContent('[data-testid="lesson-aside"]');
          for (const n of ['4,997,120', '312,320', '39,040', '70,272']) {
            t.assert.ok(aside.includes(n) && text.includes(n), `${n}: ${aside}`);
          }
        }
        await noOverflow(t, page, `mla step ${s + 1} at ${width} px`, 1);
        await page.waitForTimeout(150);
        await assertAxeClean(t, page, `mla lesson step ${s + 1} at ${width} px${extra}`);
        fs.mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SHOTS, `lesson-mla-${s + 1}-${width}${extra ? '-present' : ''}.png`), fullPage: !extra });
        if (s + 1 < steps) await page.click('[data-testid="lesson-next"]');
      }
      t.assert.deepEqual(t.errors(), []);
    },
  })),
];
