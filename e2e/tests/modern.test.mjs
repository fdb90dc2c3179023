// Attention as today's models run it, in the browser: grouped-query heads (n-kv-heads),
// RoPE (rope, rope-base), ALiBi (alibi) and a sliding window (mask-window) with kept first
// keys (mask-keep-first). Each control adds its steps; a bad value is a message beside its
// control; a link with all four reproduces the page; the explanation panel adds up a
// rotated, a repeated and a biased cell; a scenario with imported weights survives its own
// link in a new page.
import { table, waitStep, shape, openAtStep } from '../lib/trace.mjs';

const BASE = 's=the%20cat%20sat%20on%20the%20mat%0Aa%20dog%20ran&d=16&h=4&p=seeded&seed=2&pad=keys';
const ALL_FOUR = `${BASE}&hkv=2&rope=half&alibi=1&win=3&causal=1`;

const canvas = (step, head = 0, batch = 0) =>
  `canvas[data-testid="heatmap"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;
const num = (s) => (s === 'NaN' ? NaN : Number(s));

/** The pipeline's step names, in order. */
const steps = (page) =>
  page.$$eval('[data-testid="trace-step"]', (els) => els.map((el) => el.dataset.step));

/** The data-value strings of a table, row by row. */
const values = (page, step, head = 0, batch = 0) =>
  page.$$eval(`${table(step, head, batch)} tbody tr`, (rows) =>
    rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.value)));

async function select(page, step, head = 0) {
  await page.click(`[data-testid="trace-step"][data-step="${step}"] button`);
  await page.waitForSelector(canvas(step, head));
}

/** The explanation of cell (r, c) of `step`'s head `head`: its terms and result. */
async function explainCell(page, step, r, c, head = 0) {
  await select(page, step, head);
  await page.focus(canvas(step, head));
  await page.keyboard.press('Enter');
  for (let i = 0; i < r; i++) await page.keyboard.press('ArrowDown');
  for (let i = 0; i < c; i++) await page.keyboard.press('ArrowRight');
  await page.waitForSelector('[data-testid="explain"]');
  await page.waitForFunction(([s, h, rr, cc]) =>
    (document.querySelector('[data-testid="explain"] .al-ex-title')?.textContent ?? '').includes(`${s}[`)
    && (document.querySelector('[data-testid="explain"] .al-ex-title')?.textContent ?? '').endsWith(`${h},${rr},${cc}]`),
  [step, head, r, c]);
  return page.$eval('[data-testid="explain"]', (el) => ({
    title: el.querySelector('.al-ex-title').textContent,
    terms: [...el.querySelectorAll('[data-testid="explain-term"]')].map((t) => Number(t.dataset.value)),
    result: Number(el.querySelector('[data-testid="explain-result"]')?.dataset.value),
    text: el.textContent,
  }));
}

export const tests = [
  {
    name: 'modern: each control adds its steps, with the shapes of grouped heads',
    run: async (t) => {
      const page = await openAtStep(t, BASE, 'weights');
      const plain = await steps(page);
      t.assert.ok(!plain.some((s) => ['q_rot', 'k_rot', 'k_rep', 'v_rep', 'alibi', 'biased'].includes(s)), plain.join());

      await page.fill('[data-testid="n-kv-heads"]', '2');
      await waitStep(page, 'k_rep');
      t.assert.match(await shape(page, 'k_heads'), /\(B, h_kv, T, d_k\) = \(2, 2, 6, 4\)/);
      t.assert.match(await shape(page, 'k_rep'), /\(B, h, T, d_k\) = \(2, 4, 6, 4\)/);
      t.assert.match(await shape(page, 'k'), /\(B, T, h_kv·d_k\) = \(2, 6, 8\)/);
      t.assert.match(await page.textContent('[data-testid="kv-cache-per-token"]'), /2 · 2 · 4 = 16 numbers \(2× less/);
      await page.fill('[data-testid="n-kv-heads"]', '1');
      await waitStep(page, 'v_rep');
      t.assert.match(await shape(page, 'v_heads'), /= \(2, 1, 6, 4\)/);

      await page.selectOption('[data-testid="rope"]', 'interleaved');
      await waitStep(page, 'q_rot');
      t.assert.ok((await steps(page)).includes('k_rot'));
      await select(page, 'q_rot');
      const before = await values(page, 'q_rot');
      await page.fill('[data-testid="rope-base"]', '100');
      // the second pair (i = 1) turns by pos · base^(-2/4): a new base, a new number
      await page.waitForFunction(([sel, b]) => {
        const td = document.querySelector(`${sel} tbody tr:nth-child(2) td:nth-child(4)`);
        return td && td.dataset.value !== b;
      }, [table('q_rot'), before[1][2]]);

      await page.check('[data-testid="alibi"]');
      await waitStep(page, 'biased');
      t.assert.ok((await steps(page)).includes('alibi'));
      t.assert.match(await shape(page, 'alibi'), /\(1, h, T, T\) = \(1, 4, 6, 6\)/);

      await page.check('[data-testid="mask-causal"]');
      await page.fill('[data-testid="mask-window"]', '2');
      await select(page, 'weights');
      await page.waitForFunction((sel) => {
        const row = document.querySelector(`${sel} tbody tr:nth-child(5)`);
        return row && [...row.querySelectorAll('td')].filter((td) => Number(td.dataset.value) > 0).length === 2;
      }, table('weights'));
      const w = await values(page, 'weights');
      // query 4 sees keys 3 and 4 only
      t.assert.deepEqual(w[4].map((v, j) => (num(v) > 0 ? j : -1)).filter((j) => j >= 0), [3, 4]);
      // StreamingLLM: the first key kept beside the window; query 4 sees keys 0, 3 and 4, in the link too
      await page.fill('[data-testid="mask-keep-first"]', '1');
      await page.waitForFunction((sel) => {
        const row = document.querySelector(`${sel} tbody tr:nth-child(5)`);
        return row && [...row.querySelectorAll('td')].filter((td) => Number(td.dataset.value) > 0).length === 3;
      }, table('weights'));
      const kept = await values(page, 'weights');
      t.assert.deepEqual(kept[4].map((v, j) => (num(v) > 0 ? j : -1)).filter((j) => j >= 0), [0, 3, 4]);
      await page.waitForFunction(() => new URLSearchParams(location.search).get('keep') === '1');
      // without a window the kept keys are an error beside their field, named
      const keepErr = page.locator('.al-field-group:has([data-testid="mask-keep-first"]) [data-testid="error"]');
      await page.fill('[data-testid="mask-window"]', '');
      await keepErr.waitFor();
      t.assert.match(await keepErr.textContent(), /^kept first keys = 1 .* there is no window/);
      t.assert.ok(!(await keepErr.textContent()).includes('keep_first'));
      await page.fill('[data-testid="mask-keep-first"]', '0');
      await keepErr.waitFor({ state: 'detached' });
      await page.waitForFunction(() => new URLSearchParams(location.search).get('keep') === null);
      await page.fill('[data-testid="mask-window"]', '2');
      // the window empties: the weights are back to causal only
      await page.fill('[data-testid="mask-window"]', '');
      await page.waitForFunction((sel) => {
        const row = document.querySelector(`${sel} tbody tr:nth-child(5)`);
        return row && [...row.querySelectorAll('td')].filter((td) => Number(td.dataset.value) > 0).length === 5;
      }, table('weights'));
      await t.screenshot('modern-controls-1440', { fullPage: false });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'modern: bad values are messages beside their controls, and the page keeps working',
    run: async (t) => {
      const page = await t.gotoApp(BASE);
      const err = (testid) => page.locator(`label:has([data-testid="${testid}"]) [data-testid="error"], .al-field-group:has([data-testid="${testid}"]) [data-testid="error"]`);
      await page.fill('[data-testid="n-kv-heads"]', '3');
      await err('n-kv-heads').waitFor();
      t.assert.match(await err('n-kv-heads').textContent(), /h_kv = 3 does not divide h = 4/);
      await page.fill('[data-testid="n-kv-heads"]', '0');
      // in the page's words: the field is labelled h_kv
      await page.waitForFunction(() => /h_kv must be a whole number from 1 to 64, not "0"; until then the page uses h_kv = 3(?!\d)/.test(document.body.textContent));
      t.assert.ok(!(await page.textContent("body")).includes("n_kv_heads"));
      await page.fill('[data-testid="n-kv-heads"]', '4');
      await err('n-kv-heads').waitFor({ state: 'detached' });
      // RoPE with an odd d_k: d_model 6, h 2
      await page.fill('[data-testid="d-model"]', '6');
      await page.fill('[data-testid="n-heads"]', '2');
      await page.selectOption('[data-testid="rope"]', 'half');
      await err('rope').waitFor();
      t.assert.match(await err('rope').textContent(), /d_k must be even, but d_k = 3/);
      // a menu's message follows its label, as a number field's, and the menu names it
      t.assert.equal(await page.locator('label:has([data-testid="rope"]) [data-testid="error"]').count(), 0, "the menu's message is inside its label");
      t.assert.equal(await page.getAttribute('[data-testid="rope"]', 'aria-invalid'), 'true');
      const described = await page.getAttribute('[data-testid="rope"]', 'aria-describedby');
      t.assert.match(await page.textContent(`#${described}`), /d_k must be even/);
      await page.selectOption('[data-testid="rope"]', 'none');
      await err('rope').waitFor({ state: 'detached' });
      await page.fill('[data-testid="mask-window"]', '0');
      await err('mask-window').waitFor();
      t.assert.match(await err('mask-window').textContent(), /^window must be a whole number of at least 1, not "0"/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'modern: a link with all four options gives the same numbers in a new page',
    run: async (t) => {
      const page = await openAtStep(t, ALL_FOUR, 'biased');
      await select(page, 'weights', 1);
      const url = page.url();
      t.assert.match(url, /hkv=2/);
      t.assert.match(url, /rope=half/);
      t.assert.match(url, /alibi=1/);
      t.assert.match(url, /win=3/);
      const want = await values(page, 'weights', 1, 0);
      const other = await t.context.newPage();
      await other.goto(url);
      await other.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      await other.waitForSelector(table('weights', 1, 0), { state: 'attached' });
      t.assert.deepEqual(await values(other, 'weights', 1, 0), want);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'modern: the worker gives the page engine\'s numbers with all four options',
    run: async (t) => {
      const page = await openAtStep(t, `${ALL_FOUR}&engine=sync`, 'biased');
      await select(page, 'weights', 2);
      const want = await values(page, 'weights', 2, 0);
      const other = await t.context.newPage();
      // the first picture is the page's own; the edit after it is the worker's
      await other.goto(t.url(`/?${ALL_FOUR.replace('seed=2', 'seed=1')}&engine=worker`));
      await other.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      const pageRuns = await other.evaluate(() => performance.getEntriesByName('al-page-run').length);
      await other.fill('[data-testid="seed"]', '2');
      await other.waitForFunction(() => /seed=2/.test(location.search));
      await other.waitForFunction(() => !document.querySelector('[data-testid="computing"]'));
      t.assert.equal(await other.evaluate(() => performance.getEntriesByName('al-page-run').length), pageRuns,
        'the edit was computed by the worker');
      await other.click('[data-testid="trace-step"][data-step="weights"] button');
      await other.waitForSelector(table('weights', 2, 0), { state: 'attached' });
      t.assert.deepEqual(await values(other, 'weights', 2, 0), want);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'modern: the explanation adds up a rotated, a repeated and a biased cell',
    run: async (t) => {
      const page = await openAtStep(t, ALL_FOUR, 'biased');
      // a rotated query: x_c·cos ∓ x_partner·sin, two terms
      let p = await explainCell(page, 'q_rot', 3, 1, 2);
      t.assert.equal(p.terms.length, 2);
      t.assert.ok(Math.abs(p.terms[0] + p.terms[1] - p.result) <= 1e-12 * Math.max(1, Math.abs(p.result)), JSON.stringify(p));
      t.assert.match(p.text, /rotate_half/);
      await page.keyboard.press('Escape');
      // a repeated key: query head 3 reads key/value head 1
      p = await explainCell(page, 'k_rep', 2, 0, 3);
      t.assert.equal(p.terms.length, 1);
      t.assert.equal(p.terms[0], p.result);
      t.assert.match(p.text, /⌊3 \/ 2⌋ = 1/);
      await page.keyboard.press('Escape');
      // a biased score: scaled + m·(j − i)
      p = await explainCell(page, 'biased', 4, 2, 0);
      t.assert.equal(p.terms.length, 2);
      t.assert.ok(Math.abs(p.terms[0] + p.terms[1] - p.result) <= 1e-12 * Math.max(1, Math.abs(p.result)));
      // head 0 of 4: m = 2^(-8/4) = 0.25, key 2 is 2 behind query 4: bias -0.5
      t.assert.equal(p.terms[1], -0.5);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'link: an imported scenario with its own weights opens the same in a new page (fragment)',
    run: async (t) => {
      const page = await t.gotoApp('');
      const scenario = {
        sentences: ['cat sat'], d_model: 2, n_heads: 1,
        embeddings: { cat: [1.0, 0.5], sat: [-0.25, 2.0] },
        projections: {
          w_q: [[1.2, -0.3], [0.4, 0.9]], b_q: [0.1, 0.0],
          w_k: [[0.7, 0.2], [-1.1, 0.5]], b_k: [0.0, 0.3],
          w_v: [[1, 0], [0, 1]], w_o: [[0.5, 0.5], [-0.5, 0.5]],
        },
        mask: { causal: false, padding: 'none', fill: 'neg_inf' },
      };
      await page.setInputFiles('[data-testid="import-scenario"]', {
        name: 'cat.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(scenario)),
      });
      await page.waitForFunction(() => /sat/.test(document.querySelector('[data-testid="sentences"]')?.value ?? ''));
      await page.waitForFunction(() => location.hash.startsWith('#s=1.'));
      await page.waitForSelector(table('weights'), { state: 'attached' });
      const want = await values(page, 'weights');
      const url = page.url();
      const other = await t.context.newPage();
      await other.goto(url);
      await other.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      await other.waitForSelector(table('weights'), { state: 'attached' });
      t.assert.deepEqual(await values(other, 'weights'), want);
      // a damaged fragment is a notice, not a dead page
      const broken = await t.context.newPage();
      await broken.goto(url.replace(/#s=1\..*/, '#s=1.AAAA'));
      await broken.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      t.assert.match(await broken.textContent('.al-notices'), /link's scenario is not readable/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
