// The explanation panel: every number explains itself, in the page. The panel's terms add
// up to the table's exact value, its result is that value, the arrow keys move it, a table
// cell opens it, and on a phone it sits below the heatmap.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');
const SMALL = 's=the%20cat%20sat%20on%20the%20mat&d=8&h=2&p=seeded&seed=3&pad=none';
const PADDED = 's=a%20b%20c%0Ad&d=8&h=2&p=seeded&seed=3&pad=keys_and_queries';

const canvas = (step, head = 0, batch = 0) =>
  `canvas[data-testid="heatmap"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;
const table = (step, head = 0, batch = 0) =>
  `table[data-testid="matrix-table"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;
const cell = (step, r, c, head = 0, batch = 0) => `${table(step, head, batch)} td[data-r="${r}"][data-c="${c}"]`;
const num = (s) => (s === 'NaN' ? NaN : Number(s));

/** The panel's title, terms and result, as numbers. */
async function panel(page) {
  await page.waitForSelector('[data-testid="explain"]');
  return page.$eval('[data-testid="explain"]', (el) => ({
    title: el.querySelector('.al-ex-title').textContent,
    terms: [...el.querySelectorAll('[data-testid="explain-term"]')].map((t) => t.dataset.value),
    rest: el.querySelectorAll('[data-testid="explain-term"][data-rest]').length,
    result: el.querySelector('[data-testid="explain-result"]')?.dataset.value,
    notes: [...el.querySelectorAll('[data-testid="explain-note"]')].map((n) => n.textContent),
    operands: el.querySelectorAll('[data-testid="explain-operand"]').length,
  }));
}

/** Waits until the panel's title is `title`. */
const waitTitle = (page, title) =>
  page.waitForFunction((t) => document.querySelector('[data-testid="explain"] .al-ex-title')?.textContent === t, title);

/** Opens the weights card's table and the explanation of its cell (r, c), head 1, sentence
 *  1; returns the cell's value as the table holds it (data-value). */
async function explainWeight(page, r, c) {
  await page.click(`figure.al-card:has(${canvas('weights')}) .al-table summary`);
  await page.click(cell('weights', r, c));
  await waitTitle(page, `weights[0,0,${r},${c}]`);
  return page.getAttribute(cell('weights', r, c), 'data-value');
}

/** The terms add up (left to right, as listed) to the table's value, within 1e-12 of the
 *  largest of |value| and Σ|term| (the engine's matrix product may add in another order). */
function assertSum(t, p, want, what) {
  const terms = p.terms.map(num);
  t.assert.ok(terms.length > 0, `${what}: no terms`);
  if (Number.isNaN(want)) {
    t.assert.ok(terms.some(Number.isNaN), `${what}: a NaN value has a NaN term`);
    return;
  }
  const sum = terms.reduce((a, b) => a + b, 0);
  const scale = Math.max(Math.abs(want), terms.reduce((a, b) => a + Math.abs(b), 0), 1e-300);
  t.assert.ok(Math.abs(sum - want) <= 1e-12 * scale, `${what}: Σ terms ${sum} vs ${want}`);
}

async function openAt(page, step, r, c, head = 0, batch = 0) {
  await page.waitForSelector(canvas(step, head, batch));
  await page.focus(canvas(step, head, batch)); // the cursor starts at (0, 0)
  await page.keyboard.press('Enter');
  for (let i = 0; i < r; i++) await page.keyboard.press('ArrowDown');
  for (let i = 0; i < c; i++) await page.keyboard.press('ArrowRight');
}

async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.locator('figure.al-card:has([data-testid="explain"])').screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

export const tests = [
  {
    name: 'explain: q, scores, context and output terms add up to the table value; arrows move the panel',
    run: async (t) => {
      for (const [step, idx] of [['q', (r, c) => `q[0,${r},${c}]`], ['scores', (r, c) => `scores[0,1,${r},${c}]`],
        ['context', (r, c) => `context[0,0,${r},${c}]`], ['output', (r, c) => `output[0,${r},${c}]`]]) {
        const page = await t.gotoApp(`${SMALL}&step=${step}`);
        const head = step === 'scores' ? 1 : 0;
        await page.waitForSelector(canvas(step, head));
        await page.focus(canvas(step, head));
        await page.keyboard.press('Enter');
        await waitTitle(page, step === 'scores' ? 'scores[0,1,0,0]' : idx(0, 0));
        let p = await panel(page);
        const first = num(await page.getAttribute(cell(step, 0, 0, head), 'data-value'));
        t.assert.equal(num(p.result), first, `${step}: result is the table's value`);
        assertSum(t, p, first, `${step}[0,0]`);
        // the arrow keys move the explained cell
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('ArrowDown');
        await waitTitle(page, step === 'scores' ? 'scores[0,1,2,1]' : idx(2, 1));
        p = await panel(page);
        const want = num(await page.getAttribute(cell(step, 2, 1, head), 'data-value'));
        t.assert.equal(p.result, await page.getAttribute(cell(step, 2, 1, head), 'data-value'));
        assertSum(t, p, want, `${step}[2,1]`);
        t.assert.ok(p.operands >= 1, `${step}: the operand strip is shown`);
        if (step === 'scores') {
          await shot(page, 'explain-score-1440');
          t.assert.equal(p.terms.length, 4, 'd_k = 4 products');
          t.assert.equal(p.operands, 2, 'the q row and the k row');
        }
        if (step === 'output') await shot(page, 'explain-output-1440');
        if (step === 'q') t.assert.equal(p.terms.length, 9, '8 products and the bias');
        // the table marks the explained cell
        t.assert.ok(await page.$eval(cell(step, 2, 1, head), (td) => td.classList.contains('al-explained')));
        // Esc closes it and gives the focus back to the heatmap
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-testid="explain"]', { state: 'detached' });
        t.assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'heatmap');
        t.assert.deepEqual(t.errors(), []);
      }
    },
  },
  {
    name: 'explain: a long sum lists the 16 largest terms and the rest; show all expands it',
    run: async (t) => {
      const page = await t.gotoApp('s=the%20cat%20sat&d=32&h=2&p=seeded&seed=3&pad=none&step=q');
      await openAt(page, 'q', 1, 5);
      await waitTitle(page, 'q[0,1,5]');
      let p = await panel(page);
      const want = num(await page.getAttribute(cell('q', 1, 5), 'data-value'));
      t.assert.equal(p.terms.length, 17, '16 largest and the rest');
      t.assert.equal(p.rest, 1);
      assertSum(t, p, want, 'q folded');
      await page.click('[data-testid="explain-show-all"]');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="explain-term"]').length === 33);
      p = await panel(page);
      t.assert.equal(p.rest, 0);
      assertSum(t, p, want, 'q, all 33 terms');
      t.assert.equal(num(p.result), want);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'explain: weights, including a NaN row under -inf, at 1440 and 375 px',
    run: async (t) => {
      for (const width of [1440, 375]) {
        await t.page.setViewportSize({ width, height: 900 });
        const page = await t.gotoApp(`${PADDED}&step=weights&b=1`);
        // sentence 2 is "d" and two pads: the pad queries' rows are fully masked, NaN
        await openAt(page, 'weights', 1, 0, 0, 1);
        await waitTitle(page, 'weights[1,0,1,0]');
        const p = await panel(page);
        t.assert.equal(p.result, 'NaN');
        t.assert.equal(await page.getAttribute(cell('weights', 1, 0, 0, 1), 'data-value'), 'NaN');
        t.assert.ok(p.notes.some((n) => /NaN/.test(n) && /-inf/.test(n)), `a note explains the NaN: ${p.notes}`);
        t.assert.ok(p.notes.every((n) => !/∞/.test(n)), `one way to write -inf in the panel: ${p.notes}`);
        t.assert.ok(p.terms.every((v) => v === 'NaN'), 'every exp is NaN');
        // the cells it reads (the masked row) are outlined on the heatmap
        t.assert.ok(await page.$$eval('[data-testid="operand-outline"]', (els) => els.length) >= 1);
        await shot(page, `explain-weight-nan-${width}`);
        // a finite weight: the result is the table's value, and the row is outlined
        await page.keyboard.press('ArrowUp');
        await waitTitle(page, 'weights[1,0,0,0]');
        const q = await panel(page);
        t.assert.equal(q.result, await page.getAttribute(cell('weights', 0, 0, 0, 1), 'data-value'));
        t.assert.equal(q.result, '1');
        await shot(page, `explain-weight-${width}`);
        // where the panel is: beside the heatmap on a wide screen, below it on a phone
        const c = await page.locator(canvas('weights', 0, 1)).boundingBox();
        const e = await page.locator('[data-testid="explain"]').boundingBox();
        if (width === 375) {
          t.assert.ok(e.y >= c.y + c.height, `below: panel top ${e.y}, canvas bottom ${c.y + c.height}`);
          t.assert.ok(e.x + e.width <= 375 + 0.5, `inside the screen: right edge ${e.x + e.width}`);
        } else {
          t.assert.ok(e.x >= c.x + c.width, `beside: panel left ${e.x}, canvas right ${c.x + c.width}`);
        }
        t.assert.deepEqual(t.errors(), []);
      }
    },
  },
  {
    name: 'explain: a score at 375 px sits below its heatmap',
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      const page = await t.gotoApp(`${SMALL}&step=scores`);
      await openAt(page, 'scores', 2, 1);
      await waitTitle(page, 'scores[0,0,2,1]');
      const c = await page.locator(canvas('scores')).boundingBox();
      const e = await page.locator('[data-testid="explain"]').boundingBox();
      t.assert.ok(e.y >= c.y + c.height);
      // opened under the picture, the panel comes up into view: its top on the screen
      await page.waitForFunction(() => document.querySelector('[data-testid="explain"]').getBoundingClientRect().top < innerHeight - 100);
      await shot(page, 'explain-score-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'explain: a table cell opens the panel (click and Enter), and guess first asks before it tells',
    run: async (t) => {
      const page = await t.gotoApp(`${SMALL}&step=weights`);
      const shown = await explainWeight(page, 3, 2);
      let p = await panel(page);
      t.assert.equal(p.result, shown);
      // the masked row it reads is outlined on the canvas; the cell in the table
      t.assert.ok(await page.$$eval('[data-testid="operand-outline"]', (els) => els.length) >= 1);
      t.assert.ok(await page.$eval(cell('weights', 3, 2), (td) => td.classList.contains('al-explained')));
      // keyboard: focus a cell, Enter
      await page.focus(cell('weights', 0, 0));
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      await waitTitle(page, 'weights[0,0,0,1]');
      // guess first: the value is hidden until the learner guesses
      await page.check('[data-testid="explain-guess-toggle"]');
      await page.waitForSelector('[data-testid="explain-result"]', { state: 'detached' });
      // nothing in the card gives the answer away: its grid and colour bar are covered on
      // the canvas, every number of its table is hidden (another row may hold the same
      // numbers), and the readout does not say the value
      await page.waitForSelector('[data-testid="guess-cover"]');
      t.assert.ok(await page.$eval(cell('weights', 0, 1), (td) => td.classList.contains('al-guess-hidden')));
      t.assert.ok(await page.$eval(cell('weights', 4, 3), (td) => td.classList.contains('al-guess-hidden')));
      await page.fill('[data-testid="explain-guess-input"]', '0.2');
      await page.click('.al-ex-keys button >> nth=1');
      await page.focus('[data-testid="explain-guess-input"]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid="explain-feedback"]');
      await page.waitForSelector('[data-testid="guess-cover"]', { state: 'detached' });
      t.assert.ok(!(await page.$eval(cell('weights', 0, 1), (td) => td.classList.contains('al-guess-hidden'))));
      const feedback = await page.textContent('[data-testid="explain-feedback"]');
      t.assert.match(feedback, /You guessed 0\.2; the value is/);
      t.assert.match(feedback, /most weight/);
      p = await panel(page);
      t.assert.equal(p.result, await page.getAttribute(cell('weights', 0, 1), 'data-value'));
      // the close button
      await page.click('[data-testid="explain-close"]');
      await page.waitForSelector('[data-testid="explain"]', { state: 'detached' });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'explain: while guessing, no text or aria text on the page names the asked value (caption, card, table, lines)',
    run: async (t) => {
      // the first screen: its caption names the largest weights ("bat" → "baseball" 0.34)
      const page = await t.open('step=weights', '[data-testid="caption"]');
      const value = Number(await explainWeight(page, 4, 3));
      // every way the page writes a number: two decimals, the readout's four, the exact form
      const forms = [value.toFixed(2), value.toFixed(4), String(value)];
      t.assert.ok((await page.textContent('[data-testid="caption"]')).includes(forms[0]), 'the caption names it before');
      await page.check('[data-testid="explain-guess-toggle"]');
      await page.waitForSelector('[data-testid="guess-cover"]');
      /** What a reader sees or hears: the rendered text, and every aria-label and title
       *  of an element that is rendered. */
      const said = () => page.evaluate(() => {
        const shown = (el) => el.checkVisibility({ visibilityProperty: true });
        const labels = [...document.querySelectorAll('[aria-label], [title]')]
          .filter(shown)
          .map((el) => `${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('title') ?? ''}`);
        return [document.body.innerText, ...labels].join('\n');
      });
      const leaks = (text) => forms.filter((f) => text.includes(f));
      t.assert.deepEqual(leaks(await said()), [], 'heatmaps: the asked value is not on the page');
      // the cursor on the asked cell: the readout does not tell either
      await page.focus(canvas('weights'));
      await page.waitForFunction(() => /Hidden while you guess/.test(document.querySelector('[data-testid="readout"]').textContent));
      t.assert.deepEqual(leaks(await said()), [], 'the readout');
      // the same step as lines: hidden too, with a word why
      await page.click('[data-testid="lines-toggle"]');
      await page.waitForSelector('[data-testid="lines-guessing"]', { state: 'visible' });
      t.assert.ok(await page.isHidden('[data-testid="lines-text"]'));
      t.assert.deepEqual(leaks(await said()), [], 'lines');
      // back to the heatmaps, Reveal: the caption, the card and the lines say it again
      await page.click('[data-testid="lines-toggle"]');
      await page.click('[data-testid="explain-reveal"]');
      await page.waitForSelector('[data-testid="guess-cover"]', { state: 'detached' });
      t.assert.ok((await page.textContent('[data-testid="caption"]')).includes(forms[0]));
      t.assert.ok(leaks(await said()).length > 0, 'after Reveal the value is back');
      await page.click('[data-testid="lines-toggle"]');
      await page.waitForSelector('[data-testid="lines-text"]', { state: 'visible' });
      t.assert.ok(await page.isHidden('[data-testid="lines-guessing"]'));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'explain: on a phone the guess form\'s buttons and field are 44 px tap targets, and no number runs out of the panel',
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      const page = await t.gotoApp(`${SMALL}&step=scores`);
      await openAt(page, 'scores', 2, 1, 1);
      await waitTitle(page, 'scores[0,1,2,1]');
      // the result is written with four decimals at most; data-value keeps it exact
      const result = await page.$eval('[data-testid="explain-result"] strong', (el) => el.textContent);
      t.assert.match(result, /^-?\d+(\.\d{1,4})?$/);
      const overflow = await page.$eval('[data-testid="explain"]', (el) => el.scrollWidth - el.clientWidth);
      t.assert.ok(overflow <= 0, `the panel scrolls sideways by ${overflow} px`);
      await page.check('[data-testid="explain-guess-toggle"]');
      await page.waitForSelector('[data-testid="explain-guess"]');
      await page.click('[data-testid="heatmap"][data-step="scores"][data-head="1"]');
      const sizes = await page.$$eval(
        '[data-testid="explain"] button, [data-testid="explain-guess-input"]',
        (els) => els.filter((el) => el.checkVisibility()).map((el) => [el.textContent.trim() || el.dataset.testid, el.getBoundingClientRect().height]),
      );
      t.assert.ok(sizes.length >= 3, JSON.stringify(sizes));
      for (const [name, h] of sizes) t.assert.ok(h >= 44, `${name}: ${h} px tall`);
      await shot(page, 'explain-guess-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'explain: in a lesson, while guessing, the words, aside and question name no number (the asked value among them); Reveal brings them back',
    run: async (t) => {
      // baseball-bat step 4: its words quote "bat"'s weights, [0.50, 0.50]
      const page = await t.open('lesson=baseball-bat&ls=3', '[data-testid="lesson-text"]');
      const value = Number(await explainWeight(page, 1, 0));
      const words = () => page.textContent('[data-testid="lesson-text"]');
      t.assert.ok((await words()).includes(value.toFixed(2)), 'the words name the value before');
      await page.check('[data-testid="explain-guess-toggle"]');
      await page.waitForSelector('[data-testid="guess-cover"]');
      await page.waitForFunction(() => /hidden while you guess/.test(document.querySelector('[data-testid="lesson-text"]').textContent));
      const lesson = await page.$eval('[data-testid="lesson"]', (el) => el.querySelector('.al-stage-words').innerText);
      t.assert.doesNotMatch(lesson, /\d\.\d/, 'no decimal in the words, the aside or the question');
      await page.click('[data-testid="explain-reveal"]');
      await page.waitForSelector('[data-testid="guess-cover"]', { state: 'detached' });
      t.assert.ok((await words()).includes(value.toFixed(2)), 'after Reveal the words name it again');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: "explain: under multi-head latent attention MLA's own steps explain themselves (c_kv, kv_a, kv_b, k_pe, v_heads, q_rot, k_cat)",
    run: async (t) => {
      const page = await t.gotoApp(`${SMALL}&causal=1&rope=half`);
      await page.fill('[data-testid="mla-rank"]', '3');
      await page.waitForSelector('[data-testid="trace-step"][data-step="c_kv"]');
      // d_model 8, h 2, r_kv 3: d_nope = d_v = 4, d_rope = 2; the last columns are the RoPE parts
      for (const [step, head, r, c, title] of [['c_kv', 0, 1, 2, 'c_kv[0,1,2]'], ['kv_a', 0, 1, 4, 'kv_a[0,1,4]'],
        ['kv_b', 0, 2, 5, 'kv_b[0,2,5]'], ['k_pe', 0, 2, 1, 'k_pe[0,0,2,1]'], ['v_heads', 1, 1, 3, 'v_heads[0,1,1,3]'],
        ['q_rot', 1, 3, 1, 'q_rot[0,1,3,1]'], ['k_cat', 1, 2, 5, 'k_cat[0,1,2,5]']]) {
        await page.click(`[data-testid="trace-step"][data-step="${step}"] button`);
        await openAt(page, step, r, c, head);
        await waitTitle(page, title);
        const p = await panel(page);
        const value = await page.getAttribute(cell(step, r, c, head), 'data-value');
        t.assert.equal(p.result, value, `${title}: the result is the table's value`);
        assertSum(t, p, num(value), title);
        t.assert.ok(p.operands >= 1, `${title}: the operand strip is shown`);
        t.assert.ok(!p.notes.some((n) => /not explained|Recomputed/.test(n)), `${title}: ${p.notes}`);
        if (step === 'c_kv') {
          t.assert.ok(p.notes.some((n) => n.includes('RMSNorm (kv_a_layernorm)')), `${p.notes}`);
          await shot(page, 'explain-mla-c-kv-1440');
        }
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-testid="explain"]', { state: 'detached' });
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: "explain: QK-norm's q_norm and k_norm cells show w × x / rms, per head and over the whole projection (OLMo 2)",
    run: async (t) => {
      const page = await t.gotoApp(`${SMALL}&causal=1`);
      const normed = async (step, r, c, head, whose) => {
        await page.click(`[data-testid="trace-step"][data-step="${step}"] button`);
        await openAt(page, step, r, c, head);
        const title = `${step}[0,${head},${r},${c}]`;
        await waitTitle(page, title);
        const p = await panel(page);
        const value = await page.getAttribute(cell(step, r, c, head), 'data-value');
        t.assert.equal(p.result, value, `${title}: the result is the table's value`);
        assertSum(t, p, num(value), title);
        t.assert.equal(p.terms.length, 1, `${title}: one term, w · x / rms`);
        // the term's numbers: the weight times the number, divided by the row's rms
        const nums = await page.textContent('[data-testid="explain"] [data-testid="explain-term"] .al-ex-nums');
        t.assert.match(nums, /^\(?-?[\d.]+\)? × \(?-?[\d.]+\)? \/ [\d.]+$/, `${title}: ${nums}`);
        t.assert.ok(p.notes.some((n) => n.includes(`RMSNorm of ${whose}`)), `${title}: ${p.notes}`);
        t.assert.ok(!p.notes.some((n) => /not explained|Recomputed/.test(n)), `${title}: ${p.notes}`);
        t.assert.ok(p.operands >= 1, `${title}: the operand strip is shown`);
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-testid="explain"]', { state: 'detached' });
      };
      // per head (Qwen3, Gemma 3): the control's weights of ones
      await page.check('[data-testid="qk-norm"]');
      await page.waitForSelector('[data-testid="trace-step"][data-step="q_norm"]');
      await normed('q_norm', 2, 1, 1, "the head's");
      await normed('k_norm', 3, 0, 0, "the head's");
      // over the whole projection (OLMo 2), with weights of its own, from an imported file
      await page.setInputFiles('[data-testid="import-scenario"]', {
        name: 'olmo2.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({
          sentences: ['the cat sat on the mat'], d_model: 8, n_heads: 2, projections: 'seeded', seed: 3,
          mask: { causal: true },
          qk_norm: { q_weight: [1.5, 0.5, 2, 1, 0.25, 1, 1.25, 0.75], k_weight: [1, 2, 0.5, 1, 1, 1, 1.5, 0.5],
            eps: 1e-6, whole_projection: true },
        })),
      });
      await page.waitForFunction(() => /whole/.test(document.querySelector('[data-testid="trace-step"][data-step="q_norm"]')?.textContent ?? ''));
      await normed('q_norm', 1, 2, 1, "the token's whole projection");
      await normed('k_norm', 4, 3, 0, "the token's whole projection");
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
