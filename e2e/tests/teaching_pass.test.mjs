// Issue 37's newcomer look on the built app: identical rows explained, the mask's true said
// plainly, tiles labels a reader can read, the cross-attention lesson's <pad> query rows
// explained, and every source a step header names linked to its entry in Sources.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

export const tests = [
  {
    name: 'teaching pass: the explorer says why "I", "bought" and "a" have identical rows, only while they do',
    run: async (t) => {
      const page = await t.open('step=x', '[data-testid="shared-vector-note"]');
      const note = await page.textContent('[data-testid="shared-vector-note"]');
      t.assert.match(note, /^“I”, “bought” and “a” have identical rows here: the toy vocabulary gives them one vector, \[0, 0, 1\], only “other”/);
      await page.locator('.al-tensor-head').screenshot({ path: path.join(SHOTS, 'teaching-shared-vector-note.png') }).catch(() => {});
      await t.screenshot('teaching-shared-vector-note-page', { fullPage: false });
      // the second sentence has no such words: no note
      await page.locator('[data-testid="batch-tab"]').nth(1).click();
      await page.waitForSelector('[data-testid="shared-vector-note"]', { state: 'detached' });
      // a causal mask gives the three rows different weights: no note on the weights
      await t.gotoApp('step=weights&causal=1');
      await page.waitForSelector('canvas[data-testid="heatmap"][data-step="weights"]');
      t.assert.equal(await page.$('[data-testid="shared-vector-note"]'), null);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teaching pass: the mask fieldset says which boolean hides a key, and that PyTorch SDPA reads it the other way',
    run: async (t) => {
      const page = await t.open('', '[data-testid="mask-convention"]');
      const legend = await page.textContent('.al-mask legend');
      t.assert.ok(!legend.includes('engine convention'), legend);
      const text = await page.textContent('[data-testid="mask-convention"]');
      t.assert.match(text, /true means blocked: the query may not see that key/);
      t.assert.match(text, /F\.scaled_dot_product_attention reads a boolean attn_mask the other way round, True = the key takes part/);
      await page.locator('.al-mask').screenshot({ path: path.join(SHOTS, 'teaching-mask-convention.png') });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teaching pass: the tiles view\'s token labels are at least 12 px',
    run: async (t) => {
      const page = await t.open('s=the%20cat%20sat&d=4&h=1&causal=1&view=tiles', '[data-testid="tiles-view"] .al-tiles-rowlabels span');
      const sizes = await page.$$eval('.al-tiles-rowlabels span, .al-tiles-collabels span, .al-tiles-figure figcaption',
        (els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize)));
      t.assert.ok(sizes.length >= 7, `${sizes.length} labels`);
      for (const px of sizes) t.assert.ok(px >= 12, `a label of ${px} px`);
      await page.locator('.al-tiles-figure').screenshot({ path: path.join(SHOTS, 'teaching-tiles-labels.png') });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teaching pass: cross-attention step 4 says why a <pad> query row spreads evenly and that its output is thrown away',
    run: async (t) => {
      const page = await t.open('lesson=cross&ls=3', '[data-testid="lesson-text"]');
      const words = await page.textContent('[data-testid="lesson-text"]');
      t.assert.match(words, /its last 3 query rows are <pad>/);
      t.assert.match(words, /softmax spreads the row evenly, 1\/3 to each of the 3 real keys/);
      t.assert.match(words, /the model throws their outputs away/);
      await t.screenshot('teaching-cross-4', { fullPage: false });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teaching pass: every source a step header names is a link that opens its entry in Sources',
    run: async (t) => {
      const page = await t.open('lesson=cross&ls=3', '[data-testid="lesson-meta"] [data-testid="source-link"]');
      const links = await page.$$eval('[data-testid="lesson-meta"] [data-testid="source-link"]', (els) => els.map((e) => [e.textContent, e.dataset.source]));
      t.assert.deepEqual(links, [['the Masterclass chapter', 'src-masterclass'], ['the baseball-bat tutorial', 'src-baseball-bat']]);
      await page.click('[data-testid="lesson-meta"] [data-testid="source-link"][data-source="src-masterclass"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="sources"]').open);
      t.assert.ok(await page.$eval('#src-masterclass', (e) => e.checkVisibility() && document.activeElement === e));
      await t.screenshot('teaching-sources-open', { fullPage: false });
      // a tutorial named in the running words links to its entry too, once a step
      const inText = await t.open('lesson=cross&ls=3', '[data-testid="lesson-text"] [data-testid="source-link"]');
      const told = await inText.$$eval('[data-testid="lesson-text"] [data-testid="source-link"]', (els) => els.map((e) => [e.textContent, e.dataset.source]));
      t.assert.deepEqual(told, [['The Masterclass chapter', 'src-masterclass']]);
      await inText.click('[data-testid="lesson-text"] [data-testid="source-link"]');
      await inText.waitForFunction(() => document.querySelector('[data-testid="sources"]').open);
      t.assert.ok(await inText.$eval('#src-masterclass', (e) => e.checkVisibility() && document.activeElement === e));
      // Llama 3 and Qwen are entries, linked from the GQA lesson's header
      const gqa = await t.open('lesson=gqa&ls=0', '[data-testid="lesson-meta"] [data-testid="source-link"]');
      const named = await gqa.$$eval('[data-testid="lesson-meta"] [data-testid="source-link"]', (els) => els.map((e) => e.dataset.source));
      t.assert.deepEqual(named, ['paper-llama-3', 'paper-mistral', 'paper-qwen2']);
      for (const id of named) t.assert.ok(await gqa.$(`#${id} a[href^="https://arxiv.org/abs/"]`), id);
      t.assert.match(await gqa.textContent('#paper-llama-3'), /The Llama 3 Herd of Models/);
      t.assert.match(await gqa.textContent('#paper-qwen3'), /Qwen3 Technical Report/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
