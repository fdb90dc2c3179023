// The head size and score-range controls (d-head, scale, softcap, qk-norm, sinks) and the
// sinks and score-range lessons, in the browser. Each control changes the trace as the
// engine says; a bad value is a message beside its control; a link with all of them opens
// the same numbers and the same controls in a new page; the worker computes what the page
// computes. The lessons: every step at 1440 and 375 px shows its words and picture,
// nothing wider than a phone; the decode steps' words quote the panel's weights, and
// StreamingLLM's step marks the kept first token in the cache.
import { noOverflow } from '../lib/layout.mjs';
import { verdictFor } from '../lib/quiz.mjs';
import { fieldError, refusedThenFixed } from '../lib/fields.mjs';
import { table, values, waitStep, shape, openAtStep } from '../lib/trace.mjs';

const BASE = 's=the%20cat%20sat%20on%20the%20mat%0Aa%20dog%20ran&d=16&h=4&p=seeded&seed=2&pad=keys&causal=1';

async function select(page, step, head = 0) {
  await page.click(`[data-testid="trace-step"][data-step="${step}"] button`);
  await page.waitForSelector(table(step, head), { state: 'attached' });
}

/** Waits until `step`'s table for `head` differs from `before`, and returns it. */
async function changed(page, step, before, head = 0) {
  await page.waitForFunction(([sel, b]) => {
    const rows = [...document.querySelectorAll(`${sel} tbody tr`)]
      .map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)));
    return rows.length > 0 && JSON.stringify(rows) !== b;
  }, [table(step, head), JSON.stringify(before)]);
  return values(page, step, head);
}

/** Sets every control of the fieldset on `page`. */
async function setAll(page) {
  await page.fill('[data-testid="d-head"]', '6');
  await page.fill('[data-testid="softcap"]', '2');
  await page.check('[data-testid="qk-norm"]');
  await page.fill('[data-testid="sinks"]', '0.5, -1, 0, 2');
  await page.press('[data-testid="sinks"]', 'Enter');
  // StreamingLLM's kept first key beside a window of 2 (BASE is causal)
  await page.fill('[data-testid="mask-window"]', '2');
  await page.fill('[data-testid="mask-keep-first"]', '1');
  await waitStep(page, 'q_norm');
  await waitStep(page, 'capped');
}

const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));

export const tests = [
  {
    name: 'scores: d_head, scale, softcap, QK-norm and sinks each change the trace as the engine says',
    run: async (t) => {
      const page = await openAtStep(t, BASE, 'weights');
      // d_head: the heads get 6 wide, though h·d_head = 24 ≠ d_model = 16
      await page.fill('[data-testid="d-head"]', '6');
      await page.waitForFunction(() => /\(2, 4, 6, 6\)/.test(document.querySelector('[data-testid="trace-step"][data-step="k_heads"] [data-testid="step-shape"]')?.textContent ?? ''));
      t.assert.match(await shape(page, 'q'), /= \(2, 6, 24\)/);
      t.assert.match(await page.textContent('[data-testid="d-k"]'), /d_k = d_head = 6/);
      // 0 is off again: d_k = d_model / h = 4
      await page.fill('[data-testid="d-head"]', '0');
      await page.waitForFunction(() => /\(2, 4, 6, 4\)/.test(document.querySelector('[data-testid="trace-step"][data-step="k_heads"] [data-testid="step-shape"]')?.textContent ?? ''));
      t.assert.equal(await page.inputValue('[data-testid="d-head"]'), '0', 'typing 0 is not rewritten under the cursor');

      // scale: scaled = scores · scale
      await select(page, 'scores');
      const scores = await values(page, 'scores');
      await select(page, 'scaled');
      const before = await values(page, 'scaled');
      await page.fill('[data-testid="scale"]', '0.125');
      const scaled = await changed(page, 'scaled', before);
      t.assert.ok(scaled.every((r, i) => r.every((v, j) => close(v, scores[i][j] * 0.125))), JSON.stringify(scaled));

      // softcap: capped = c·tanh(scaled / c), within ±c
      await page.fill('[data-testid="softcap"]', '0.5');
      await waitStep(page, 'capped');
      await select(page, 'capped');
      const capped = await values(page, 'capped');
      t.assert.ok(capped.every((r, i) => r.every((v, j) => close(v, 0.5 * Math.tanh(scaled[i][j] / 0.5)) && Math.abs(v) <= 0.5)));
      await page.fill('[data-testid="softcap"]', '');
      await waitStep(page, 'capped', false);

      // QK-norm: each head's query row has a mean square of 1 (less ε's share)
      await page.check('[data-testid="qk-norm"]');
      await waitStep(page, 'q_norm');
      t.assert.ok((await page.$$eval('[data-testid="trace-step"]', (els) => els.map((e) => e.dataset.step))).includes('k_norm'));
      await select(page, 'q_norm', 1);
      const normed = await values(page, 'q_norm', 1);
      for (const r of normed) {
        const ms = r.reduce((a, x) => a + x * x, 0) / r.length;
        t.assert.ok(Math.abs(ms - 1) < 1e-4, `mean square ${ms}`);
      }

      // sinks: one number for every head; the weights' rows sum to less than 1
      await select(page, 'weights', 2);
      const plain = await values(page, 'weights', 2);
      t.assert.ok(plain.every((r) => close(r.reduce((a, x) => a + x, 0), 1)));
      await page.fill('[data-testid="sinks"]', '1');
      await page.press('[data-testid="sinks"]', 'Enter');
      const sunk = await changed(page, 'weights', plain, 2);
      t.assert.equal(await page.inputValue('[data-testid="sinks"]'), '1, 1, 1, 1');
      for (const r of sunk) t.assert.ok(r.reduce((a, x) => a + x, 0) < 1 - 1e-3, JSON.stringify(r));
      t.assert.match(await page.textContent('body'), /sum to less than 1/);
      // empty is off: rows sum to 1 again
      await page.fill('[data-testid="sinks"]', '');
      await page.press('[data-testid="sinks"]', 'Enter');
      t.assert.deepEqual(await changed(page, 'weights', sunk, 2), plain);
      await t.screenshot('score-controls-1440', { fullPage: false });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'scores: bad values are messages beside their controls, never a dead page',
    run: async (t) => {
      const page = await openAtStep(t, BASE, 'weights');
      await refusedThenFixed(t, page, 'd-head', '1000', /h·d_head/, '');
      await refusedThenFixed(t, page, 'softcap', '-3', /softcap/, '0');
      await refusedThenFixed(t, page, 'scale', '-1', /scale/, '');
      // a word that is not a number, then a list of the wrong length
      await page.fill('[data-testid="sinks"]', '0.5, abc');
      await page.press('[data-testid="sinks"]', 'Enter');
      await fieldError(page, 'sinks').waitFor();
      t.assert.match(await fieldError(page, 'sinks').textContent(), /the sinks must be numbers.*not "0\.5, abc"/);
      await page.fill('[data-testid="sinks"]', '1, 2');
      await page.press('[data-testid="sinks"]', 'Enter');
      await page.waitForFunction(() => /sink/i.test(document.querySelector('.al-field-group:has([data-testid="sinks"]) [data-testid="error"]')?.textContent ?? '')
        && !/must be numbers/.test(document.querySelector('.al-field-group:has([data-testid="sinks"]) [data-testid="error"]')?.textContent ?? ''));
      t.assert.match(await fieldError(page, 'sinks').textContent(), /2/);
      await page.fill('[data-testid="sinks"]', '');
      await page.press('[data-testid="sinks"]', 'Enter');
      await fieldError(page, 'sinks').waitFor({ state: 'detached' });
      await waitStep(page, 'weights');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'scores: a real-number field reads a decimal comma as a lesson answer does; "1 5" is a message, never 15',
    run: async (t) => {
      const page = await openAtStep(t, BASE, 'weights');
      const scale = '[data-testid="scale"]';
      t.assert.equal(await page.getAttribute(scale, 'inputmode'), 'decimal');
      await page.click(scale);
      await page.keyboard.type('0,5');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('scale') === '0.5');
      await page.fill(scale, '1 5');
      await fieldError(page, 'scale').waitFor();
      t.assert.match(await fieldError(page, 'scale').textContent(), /not "1 5"/);
      t.assert.equal(new URL(page.url()).searchParams.get('scale'), '0.5', 'the last scale stays in use');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'scores: a link with every control opens the same numbers and controls in a new page',
    run: async (t) => {
      const page = await t.gotoApp(BASE);
      await setAll(page);
      await page.waitForFunction(() => location.hash.startsWith('#s=1.') && /softcap=2/.test(location.search));
      await select(page, 'weights', 3);
      const want = await values(page, 'weights', 3);
      const other = await t.context.newPage();
      await other.goto(page.url());
      await other.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      await other.waitForSelector('[data-testid="trace-step"][data-step="q_norm"]');
      await other.click('[data-testid="trace-step"][data-step="weights"] button');
      await other.waitForSelector(table('weights', 3), { state: 'attached' });
      t.assert.deepEqual(await values(other, 'weights', 3), want);
      t.assert.equal(await other.inputValue('[data-testid="d-head"]'), '6');
      t.assert.equal(await other.inputValue('[data-testid="softcap"]'), '2');
      t.assert.ok(await other.isChecked('[data-testid="qk-norm"]'));
      t.assert.equal(await other.inputValue('[data-testid="sinks"]'), '0.5, -1, 0, 2');
      t.assert.equal(await other.inputValue('[data-testid="mask-keep-first"]'), '1');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'scores: the worker gives the page engine\'s numbers with every control set',
    run: async (t) => {
      const page = await t.gotoApp(`${BASE}&engine=sync`);
      await setAll(page);
      await select(page, 'weights', 1);
      const want = await values(page, 'weights', 1);
      const other = await t.context.newPage();
      await other.goto(t.url(`/?${BASE}&engine=worker`));
      await other.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      const pageRuns = await other.evaluate(() => performance.getEntriesByName('al-page-run').length);
      await setAll(other);
      await other.waitForFunction(() => !document.querySelector('[data-testid="computing"]'));
      t.assert.equal(await other.evaluate(() => performance.getEntriesByName('al-page-run').length), pageRuns,
        'the edits were computed by the worker');
      await select(other, 'weights', 1);
      await other.waitForFunction(([sel, w]) => {
        const rows = [...document.querySelectorAll(`${sel} tbody tr`)]
          .map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)));
        return JSON.stringify(rows) === w;
      }, [table('weights', 1), JSON.stringify(want)]);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  ...[[1440, 900], [375, 812]].map(([width, height]) => ({
    name: `sinks and score-range lessons: every step at ${width} px shows its words and picture`,
    timeoutMs: 150000,
    run: async (t) => {
      await t.page.setViewportSize({ width, height });
      const lessons = {
        sinks: ['heatmap', 'heatmap', 'heatmap', 'heatmap', 'decode-view', 'decode-view', 'decode-view'],
        'score-range': ['heatmap', 'heatmap', 'heatmap', 'heatmap'],
      };
      for (const [id, pictures] of Object.entries(lessons)) {
        const page = await t.gotoApp(`lesson=${id}&ls=0`);
        for (let s = 0; s < pictures.length; s++) {
          await page.waitForFunction((k) => new URLSearchParams(location.search).get('ls') === String(k), s);
          const text = await page.textContent('[data-testid="lesson-text"]');
          t.assert.ok(text.length > 20 && !/NaN|\[\]/.test(text), `${id} step ${s + 1}: ${text}`);
          await page.waitForSelector(`[data-testid="lesson-picture"] [data-testid="${pictures[s]}"]`);
          if (pictures[s] === 'decode-view') {
            // the words quote the panel's weights over the cache
            const listed = await page.$$eval('[data-testid="decode-weights"] tbody td[data-value]', (tds) => tds.map((td) => td.textContent));
            // StreamingLLM's step (6) keeps the first token beside the window of 3: four cached keys
            const kept = s === 5;
            t.assert.ok(listed.length === (kept ? 4 : 3) && text.includes(`[${listed.join(', ')}]`), `${text} / ${listed}`);
            // the kept row is marked in the cache tables and the strip, and only in that step
            const keptRows = await page.$$eval('[data-testid="decode-view"] tr[data-slot="kept"]', (trs) => trs.map((tr) => tr.dataset.pos));
            t.assert.deepEqual(keptRows, kept ? ['0', '0'] : [], `kept rows at step ${s + 1}`);
            const strip = await page.$$eval('[data-testid="cache-strip"] li', (lis) => lis.map((li) => li.dataset.slot));
            t.assert.equal(strip[0], kept ? 'kept' : 'gone', `${strip}`);
            if (kept) {
              // BOS takes the largest weight of the cached keys again
              const w = listed.map(Number);
              t.assert.ok(w[0] > Math.max(...w.slice(1)), `${w}`);
              t.assert.match(text, /original position; StreamingLLM numbers positions inside the cache/);
            }
            // with a sink the panel says its weights sum to less than 1
            const panel = await page.textContent('[data-testid="decode-view"]');
            t.assert.equal(/sink logit 2 as one more column.*sum to less than 1/.test(panel), s === 6, panel);
          }
          await noOverflow(t, page, `${id} step ${s + 1} at ${width} px`, 1);
          await t.screenshot(`lesson-${id}-${s + 1}-${width}`);
          if (s + 1 < pictures.length) await page.click('[data-testid="lesson-next"]');
        }
      }
      t.assert.deepEqual(t.errors(), []);
    },
  })),
  {
    name: 'score-range step 2: the scaled and the capped scores in one colour range, so a capped score pales',
    run: async (t) => {
      const page = await t.gotoApp('lesson=score-range&ls=1');
      const bar = async (step) => {
        const sel = `[data-testid="lesson-picture"] canvas[data-testid="heatmap"][data-step="${step}"]`;
        await page.waitForSelector(sel);
        return page.getAttribute(sel, 'data-bar');
      };
      const before = await bar('scaled');
      // "cat" · "cat" / √4 = 8, the largest scaled score
      t.assert.equal(before, '-8.00 8.00');
      await verdictFor(page, '4.61');
      const after = await bar('capped');
      await t.screenshot('score-range-2-capped');
      t.assert.equal(after, before, 'the colour bar\'s end labels before and after the cap');
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
