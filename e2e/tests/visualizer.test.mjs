// Issue 4: masks, shapes, URL state and exports, read from the page as a learner sees it.
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { tableValues } from '../lib/canvas.mjs';
import { fitsPhone, noOverflow } from '../lib/layout.mjs';

const table = (step, head = 0, batch = 0) =>
  `table[data-testid="matrix-table"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;

async function values(page, step, head = 0, batch = 0) {
  await page.waitForSelector(table(step, head, batch), { state: 'attached' });
  return (await tableValues(page, table(step, head, batch))).map((r) => r.map((v) => (v === 'NaN' ? NaN : Number(v))));
}

/** Waits until the weights table of sentence `batch` has `n` rows. */
async function waitRows(page, n, step = 'weights', batch = 0) {
  await page.waitForFunction(
    ([sel, n]) => document.querySelector(sel)?.querySelectorAll('tbody tr').length === n,
    [table(step, 0, batch), n],
  );
}

export const tests = [
  {
    name: 'causal mask: every weight above the diagonal is 0 and every row sums to 1',
    run: async (t) => {
      const page = await t.gotoApp('s=the%20cat%20sat%20on%20the%20mat&d=8&h=2&p=seeded&seed=3&pad=none');
      await page.check('[data-testid="mask-causal"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="mask-causal"]').checked);
      for (const head of [0, 1]) {
        await page.waitForFunction((sel) => document.querySelector(sel)?.querySelector('tbody tr td:nth-of-type(2)')?.dataset.value === '0', table('weights', head));
        const w = await values(page, 'weights', head);
        t.assert.equal(w.length, 6);
        w.forEach((row, i) => {
          row.forEach((v, j) => { if (j > i) t.assert.equal(v, 0, `head ${head} [${i}][${j}]`); });
          t.assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6, `row ${i} sums to 1`);
        });
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'padding: pad keys get 0; keys_and_queries with -inf gives flagged NaN rows, with -1e9 uniform rows',
    run: async (t) => {
      const page = await t.gotoApp('s=this%20is%20a%20sample%20sequence%0Athe%20spunky%20dog%20wanted%20to%20jump%20over&d=8&h=2&pad=keys');
      await waitRows(page, 7);
      let w = await values(page, 'weights');
      for (const row of w) t.assert.deepEqual([row[5], row[6]], [0, 0]);

      await page.selectOption('[data-testid="mask-padding"]', 'keys_and_queries');
      await page.waitForSelector('[data-testid="masked-row-note"]');
      w = await values(page, 'weights');
      t.assert.ok(w[5].every(Number.isNaN) && w[6].every(Number.isNaN), 'pad rows are NaN');
      t.assert.ok(w[4].every(Number.isFinite));
      const notes = await page.$$eval('[data-testid="masked-row-note"]', (els) => els.map((e) => e.textContent));
      // the two <pad> rows in one note that names both
      t.assert.equal(notes.length, 1);
      t.assert.match(notes[0], /^Rows 5 and 6 .* are fully masked.*NaN/);
      await t.screenshot('padding-neg-inf');

      await page.selectOption('[data-testid="mask-fill"]', 'large_negative');
      await page.waitForFunction((sel) => document.querySelector(sel)?.querySelector('tbody tr:nth-of-type(6) td')?.dataset.value !== 'NaN', table('weights'));
      w = await values(page, 'weights');
      for (const v of w[5]) t.assert.ok(Math.abs(v - 1 / 7) < 1e-12, `uniform 1/7, got ${v}`);
      t.assert.match(await page.textContent('[data-testid="masked-row-note"]'), /uniform/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'shape trace: h=2, d_model=8 shows (1, 2, T, 4) at q_heads, with view and transpose',
    run: async (t) => {
      const page = await t.gotoApp('s=the%20cat%20sat&d=4&h=1');
      await page.fill('[data-testid="d-model"]', '8');
      await page.fill('[data-testid="n-heads"]', '2');
      const row = '[data-testid="trace-step"][data-step="q_heads"]';
      await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes('= (1, 2, 3, 4)'), row);
      const text = await page.textContent(row);
      t.assert.match(text, /\(B, h, T, d_k\) = \(1, 2, 3, 4\)/);
      t.assert.match(text, /view → \(B, T, h, d_k\) = \(1, 3, 2, 4\)/);
      t.assert.match(text, /q\.view\(B, T, h, d_k\)\.transpose\(1, 2\)/);
      t.assert.equal(await page.textContent('[data-testid="d-k"]'), 'd_k = d_model / h = 4');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'd_model not divisible by h: message next to h, last picture kept and marked stale, then recovers',
    run: async (t) => {
      const page = await t.open('s=the%20cat%20sat&d=8&h=2', 'canvas[data-testid="heatmap"]');
      await page.fill('[data-testid="n-heads"]', '3');
      await page.waitForSelector('[data-testid="error"]');
      t.assert.match(await page.textContent('[data-testid="error"]'), /d_model = 8 is not divisible by h = 3/);
      t.assert.ok(await page.$('[data-testid="stale"]'), 'stale notice');
      t.assert.ok(await page.$('canvas[data-testid="heatmap"]'), 'picture kept');
      await page.fill('[data-testid="n-heads"]', '4');
      await page.waitForSelector('[data-testid="error"]', { state: 'detached' });
      await page.waitForSelector('canvas[data-testid="heatmap"][data-head="3"]');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'URL round trip restores the same state',
    run: async (t) => {
      const page = await t.gotoApp();
      await page.fill('[data-testid="sentences"]', 'one two three\nfour five');
      await page.fill('[data-testid="d-model"]', '6');
      await page.fill('[data-testid="n-heads"]', '3');
      await page.selectOption('[data-testid="projections"]', 'seeded');
      await page.fill('[data-testid="seed"]', '11');
      await page.check('[data-testid="mask-causal"]');
      await page.selectOption('[data-testid="mask-padding"]', 'keys_and_queries');
      await page.selectOption('[data-testid="mask-fill"]', 'large_negative');
      await page.click('[data-testid="trace-step"][data-step="scores"] button');
      await page.waitForSelector('canvas[data-testid="heatmap"][data-step="scores"][data-head="2"]');
      const url = page.url();
      const before = await values(page, 'scores', 2);
      const page2 = await page.context().newPage();
      await page2.goto(url);
      await page2.waitForSelector('canvas[data-testid="heatmap"][data-step="scores"][data-head="2"]');
      const state = async (p) => p.evaluate(() => ({
        s: document.querySelector('[data-testid="sentences"]').value,
        d: document.querySelector('[data-testid="d-model"]').value,
        h: document.querySelector('[data-testid="n-heads"]').value,
        p: document.querySelector('[data-testid="projections"]').value,
        seed: document.querySelector('[data-testid="seed"]').value,
        causal: document.querySelector('[data-testid="mask-causal"]').checked,
        pad: document.querySelector('[data-testid="mask-padding"]').value,
        fill: document.querySelector('[data-testid="mask-fill"]').value,
      }));
      t.assert.deepEqual(await state(page2), await state(page));
      t.assert.deepEqual(await state(page2), { s: 'one two three\nfour five', d: '6', h: '3', p: 'seeded', seed: '11', causal: true, pad: 'keys_and_queries', fill: 'large_negative' });
      t.assert.deepEqual(await values(page2, 'scores', 2), before);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'a tampered URL falls back to defaults with a notice',
    run: async (t) => {
      const page = await t.gotoApp('d=banana&h=-1&pad=%3Cscript%3E&zzz=1');
      const notices = await page.$$eval('[data-testid="notice"]', (els) => els.map((e) => e.textContent));
      t.assert.equal(notices.length, 4, notices.join(' | '));
      t.assert.match(notices[0], /d="banana" is not a whole number/);
      t.assert.equal(await page.inputValue('[data-testid="d-model"]'), '3', 'the default d_model');
      t.assert.equal(await page.$('script[src=""]'), null);
      await page.waitForSelector('canvas[data-testid="heatmap"]');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'exported trace JSON equals the command line output for the exported scenario',
    run: async (t) => {
      const cli = 'target/debug/examples/trace';
      t.assert.ok(existsSync(cli), `${cli} missing: cargo test builds it`);
      const page = await t.open('s=I%20bought%20a%20baseball%20bat%0Athe%20bat%20flew&d=8&h=2&p=seeded&seed=5&causal=1&pad=keys_and_queries', 'canvas[data-testid="heatmap"]');
      const grab = async (testid) => {
        const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid="${testid}"]`)]);
        return readFileSync(await download.path(), 'utf8');
      };
      const scenario = await grab('export-scenario');
      const trace = await grab('export-trace');
      const fromCli = execFileSync(cli, ['-'], { input: scenario, encoding: 'utf8' });
      // Same format and the same numbers. Native matmul may use FMA where wasm does not,
      // so a number may differ in its last bits: compare numbers to 1e-12, all else exactly.
      const close = (a, b, path) => {
        if (typeof a === 'number' && typeof b === 'number') {
          t.assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${path}: ${a} vs ${b}`);
        } else if (Array.isArray(a) && Array.isArray(b)) {
          t.assert.equal(a.length, b.length, `${path}: length`);
          a.forEach((x, i) => close(x, b[i], `${path}[${i}]`));
        } else if (a && typeof a === 'object' && b && typeof b === 'object') {
          t.assert.deepEqual(Object.keys(a), Object.keys(b), `${path}: keys`);
          for (const k of Object.keys(a)) close(a[k], b[k], `${path}.${k}`);
        } else {
          t.assert.equal(a, b, path);
        }
      };
      close(JSON.parse(trace), JSON.parse(fromCli), 'trace');
      t.assert.ok(trace.endsWith('\n') && fromCli.endsWith('\n'));
      t.assert.equal(JSON.parse(trace).steps.length, 14);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  fitsPhone('phone width (375 px): controls and heatmaps fit without horizontal scrolling', '', 'canvas[data-testid="heatmap"]', 'the page', 'default-375'),
  {
    name: 'importing a scenario JSON with explicit weights (numpy fixture) shows its numbers',
    run: async (t) => {
      const page = await t.open('', 'canvas[data-testid="heatmap"]');
      await page.setInputFiles('[data-testid="import-scenario"]', 'crates/engine/tests/fixtures/odd_sizes_keys.scenario.json');
      await page.waitForFunction(() => document.querySelector('[data-testid="d-model"]').value === '15');
      const expected = JSON.parse(readFileSync('crates/engine/tests/fixtures/odd_sizes_keys.expected.json', 'utf8'));
      const weights = expected.steps.find((s) => s.name === 'weights');
      const [, , T] = weights.shape;
      const w = await values(page, 'weights', 2, 0); // head 3 of sentence 1
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
        const want = weights.data[((0 * 3 + 2) * T + i) * T + j];
        t.assert.ok(Math.abs(w[i][j] - want) < 1e-9, `[${i}][${j}] ${w[i][j]} vs ${want}`);
      }
      t.assert.equal(await page.inputValue('[data-testid="projections"]'), 'explicit');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'dark theme follows the system setting; T = 64 stays inside the page',
    run: async (t) => {
      await t.page.emulateMedia({ colorScheme: 'dark' });
      const words = Array.from({ length: 64 }, (_, i) => `w${i}`).join(' ');
      const page = await t.open(`s=${encodeURIComponent(words)}&d=8&h=2&causal=1`, 'canvas[data-testid="heatmap"][data-head="1"]');
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      t.assert.equal(bg, 'rgb(17, 17, 22)');
      await noOverflow(t, page, 'the page');
      await t.screenshot('dark-T64-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'CSV export has the labels and exact numbers; a big table is built when opened and stays open while typing',
    run: async (t) => {
      const page = await t.open('s=baseball%20bat&d=3&h=1&p=identity&pad=none', 'canvas[data-testid="heatmap"]');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('figure.al-card button:has-text("CSV")')]);
      const csv = readFileSync(await download.path(), 'utf8').trim().split('\n');
      t.assert.equal(csv[0], 'query,baseball,bat');
      t.assert.match(csv[1], /^baseball,0\.7603\d+,0\.2396\d+$/);
      t.assert.equal(csv[2], 'bat,0.5,0.5');

      const words = Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ');
      await page.fill('[data-testid="sentences"]', words);
      await page.waitForSelector('canvas[data-testid="heatmap"]');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="tokens"] li').length === 20);
      t.assert.equal(await page.$('table[data-testid="matrix-table"]'), null, '20 × 20 table is not built until opened');
      await page.click('details.al-table summary');
      await page.waitForSelector('table[data-testid="matrix-table"]', { state: 'visible' });
      t.assert.equal((await tableValues(page, 'table[data-testid="matrix-table"]')).length, 20);
      await page.fill('[data-testid="sentences"]', `${words} w20`);
      await page.waitForFunction(() => document.querySelector('table[data-testid="matrix-table"]')?.querySelectorAll('tbody tr').length === 21);
      t.assert.ok(await page.$eval('details.al-table', (d) => d.open), 'still open after the edit');
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
