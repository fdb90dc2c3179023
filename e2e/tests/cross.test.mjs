// Cross-attention in the browser: queries "a b" against keys/values "one two three four
// five". The key-side steps read T_k = 5 and label their rows with the keys; the
// query-by-key steps are 2 × 5; a link to x_kv opens it; no heatmap spills out of its card.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');
const QUERIES = ['a', 'b'];
const KEYS = ['one', 'two', 'three', 'four', 'five'];
const QUERY = `s=a%20b&kv=one%20two%20three%20four%20five&d=4&h=1`;

const table = (step) => `table[data-testid="matrix-table"][data-step="${step}"][data-head="0"][data-batch="0"]`;

/** Row labels and column labels (without the corner) of a step's table. */
async function tableLabels(page, step) {
  await page.waitForSelector(table(step), { state: 'attached' });
  return page.$eval(table(step), (el) => ({
    rows: [...el.querySelectorAll('tbody th')].map((th) => th.textContent),
    cols: [...el.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
  }));
}

/** `{ names, sizes }` of a pipeline step's shape, e.g. `(B, T_k, d_model) = (1, 5, 4)`. */
async function shapeOf(page, step) {
  const text = await page.textContent(`[data-testid="trace-step"][data-step="${step}"] [data-testid="step-shape"]`);
  const [names, sizes] = text.split('=').map((part) => part.replace(/[()\s]/g, '').split(','));
  return { text, names, sizes: sizes.map(Number) };
}

async function select(page, step) {
  await page.click(`[data-testid="trace-step"][data-step="${step}"] button`);
  await page.waitForSelector(`canvas[data-testid="heatmap"][data-step="${step}"]`);
}

/** Every heatmap canvas (and its wrapper) inside its card, and no card over the next. */
async function nothingSpills(t, page, step) {
  const boxes = await page.$$eval('canvas[data-testid="heatmap"]', (canvases) =>
    canvases.map((c) => {
      const card = c.closest('figure').getBoundingClientRect();
      const wrap = c.parentElement.getBoundingClientRect();
      const r = c.getBoundingClientRect();
      return { card: [card.left, card.top, card.right, card.bottom], wrap: [wrap.bottom], canvas: [r.left, r.top, r.right, r.bottom], h: c.height, ch: r.height };
    }));
  t.assert.ok(boxes.length > 0, `${step}: no heatmap`);
  for (const b of boxes) {
    const [l, top, r, bottom] = b.canvas;
    const [cl, ct, cr, cb] = b.card;
    t.assert.ok(l >= cl - 0.5 && top >= ct - 0.5 && r <= cr + 0.5 && bottom <= cb + 0.5,
      `${step}: the heatmap (${b.canvas}) spills out of its card (${b.card})`);
    t.assert.ok(bottom <= b.wrap[0] + 0.5, `${step}: the canvas is taller than its frame`);
  }
}

export const tests = [
  {
    name: 'cross-attention: key-side steps are T_k = 5 with key labels, weights are 2 x 5, x_kv link opens',
    run: async (t) => {
      const page = await t.open(`${QUERY}&step=x_kv`, 'canvas[data-testid="heatmap"][data-step="x_kv"]');
      t.assert.equal(await page.locator('[data-testid="notice"]').count(), 0, 'the x_kv link gave a notice');
      t.assert.equal(await page.textContent('.al-tensor-head h2 code'), 'x_kv', 'the link opened x_kv');
      t.assert.match(await page.textContent('[data-testid="sizes"]'), /T_q = 2, T_k = 5/);
      fs.mkdirSync(SHOTS, { recursive: true });

      for (const step of ['x_kv', 'k', 'v', 'k_heads']) {
        await select(page, step);
        const shape = await shapeOf(page, step);
        const at = shape.names.indexOf('T_k');
        t.assert.ok(at > 0, `${step}: ${shape.text} does not name T_k`);
        t.assert.equal(shape.sizes[at], 5, `${step}: ${shape.text}`);
        t.assert.ok(!shape.names.includes('T_q') && !shape.names.includes('T'), `${step}: ${shape.text}`);
        const { rows } = await tableLabels(page, step);
        t.assert.deepEqual(rows, KEYS, `${step}: rows`);
        t.assert.match(await page.textContent(`${table(step)} thead th`), /^key\/value token ↓/, `${step}: the table's corner`);
        await nothingSpills(t, page, step);
        await page.locator('.al-tensors').screenshot({ path: path.join(SHOTS, `cross-${step}.png`) });
      }
      for (const step of ['q', 'q_heads']) {
        await select(page, step);
        t.assert.deepEqual((await tableLabels(page, step)).rows, QUERIES, `${step}: rows`);
      }
      for (const step of ['scores', 'weights']) {
        await select(page, step);
        const shape = await shapeOf(page, step);
        t.assert.deepEqual(shape.names.slice(-2), ['T_q', 'T_k'], shape.text);
        t.assert.deepEqual(shape.sizes.slice(-2), [2, 5], shape.text);
        t.assert.deepEqual(await tableLabels(page, step), { rows: QUERIES, cols: KEYS }, step);
        await nothingSpills(t, page, step);
        await page.locator('.al-tensors').screenshot({ path: path.join(SHOTS, `cross-${step}.png`) });
      }
      t.assert.equal(await page.locator('[data-testid="panic"]').count(), 0);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'cross-attention: each key-side step opens from its own link without a notice',
    run: async (t) => {
      for (const step of ['x_kv', 'k', 'v', 'k_heads', 'v_heads', 'weights']) {
        const page = await t.open(`${QUERY}&step=${step}`, `canvas[data-testid="heatmap"][data-step="${step}"]`);
        t.assert.equal(await page.locator('[data-testid="notice"]').count(), 0, `step=${step} gave a notice`);
        t.assert.equal(await page.textContent('.al-tensor-head h2 code'), step);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
