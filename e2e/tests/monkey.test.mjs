// A seeded random walk of ordinary UI actions: no action, in any order, may stop the page.
// First every awkward import in every lesson, then MONKEY_ACTIONS random actions in all
// (tabs, lessons, Back/Next and arrow keys, pipeline steps, batch tabs, heatmap cursors,
// typing, cross-attention, h, d_model, the mask, positions, shared scale, embedding edits
// and drags, imports, d_head, scale, softcap, QK-norm and sinks). After each action: no
// panic banner; at the end: no page or console error, and the page still answers an edit.
//
//   MONKEY_SEED=7 MONKEY_ACTIONS=1000 node e2e/run.mjs --filter monkey   (or: make monkey SEED=7 ACTIONS=1000)

import fs from 'node:fs';

const SEED = Number(process.env.MONKEY_SEED ?? 20261122) >>> 0;
const ACTIONS = Math.max(1, Number(process.env.MONKEY_ACTIONS ?? 300) | 0);

/** mulberry32: a small seeded PRNG, the same walk for the same seed. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const scenario = (o) => JSON.stringify({ d_model: 3, n_heads: 1, ...o });
/** Valid and invalid scenario files, by name. */
const IMPORTS = {
  'd_model 1': scenario({ sentences: ['I bought a baseball bat'], d_model: 1, embeddings: { baseball: [2], bat: [1] } }),
  'd_model 2': scenario({ sentences: ['baseball bat'], d_model: 2, n_heads: 2, embeddings: { baseball: [2, 0], bat: [1, 1] } }),
  'cross, one query': scenario({ sentences: ['bat'], kv_sentences: ['I bought a baseball bat'], embeddings: { baseball: [2, 0, 0], bat: [1, 1, 0] } }),
  'B = 3': scenario({
    sentences: ['the bat flew', 'baseball bat', 'a'], d_model: 6, n_heads: 3,
    mask: { causal: true, padding: 'keys_and_queries', fill: 'neg_inf' },
  }),
  'explicit weights': scenario({
    sentences: ['bat baseball', 'bat'], d_model: 2, n_heads: 2, embeddings: { bat: [1e30, -1e30], baseball: [0.5, 5e-324] },
    projections: { w_q: [[1, 0], [0, 1]], b_q: [0.1, -0.1], w_k: [[0, 1], [1, 0]], w_v: [[2, 0], [0, 2]], b_v: [1, 1], w_o: [[1, 1], [1, -1]], b_o: [0, 0] },
    mask: { padding: 'keys_and_queries' },
  }),
  'cross, B = 2, T_k = 1': scenario({ sentences: ['baseball bat', 'bat'], kv_sentences: ['x', 'y'], d_model: 4, n_heads: 2 }),
  'vector longer than d_model': scenario({ sentences: ['bat'], d_model: 1, embeddings: { bat: [1, 2, 3] } }),
  'bad JSON': '{"sentences": ["a b", ',
  'not an object': '[1, 2, 3]',
  'non-finite (1e999)': '{"sentences": ["bat"], "d_model": 3, "n_heads": 1, "embeddings": {"bat": [1e999, 0, 0]}}',
  'NaN as text': '{"sentences": ["bat"], "d_model": 3, "n_heads": 1, "embeddings": {"bat": ["NaN", 0, 0]}}',
  'h does not divide d_model': scenario({ sentences: ['baseball bat'], d_model: 5, n_heads: 2 }),
  'empty file': '',
  // the score-range options together, under GQA, cross-attention and padding
  'GQA, cross, scale, softcap, QK-norm, sinks': scenario({
    sentences: ['the cat sat', 'a dog'], kv_sentences: ['warm mat a dog ran', 'x'], d_model: 8, n_heads: 4, n_kv_heads: 2,
    d_head: 3, scale: 0.25, softcap: 2, qk_norm: { eps: 1e-6 }, sinks: [0.5, -1, 0, 2],
    mask: { padding: 'keys_and_queries', fill: 'large_negative', window: 1 }, rope: { style: 'half', base: 100 },
  }),
  'd_model 2, softcap, sinks, ALiBi': scenario({
    sentences: ['baseball bat bat'], d_model: 2, n_heads: 2, softcap: 0.5, sinks: [0, 1], alibi: true,
  }),
  'MLA (DeepSeek-V3), B = 2': JSON.stringify(JSON.parse(fs.readFileSync(new URL('../../crates/engine/tests/fixtures/mla_cross_sinks_softcap_window.scenario.json', import.meta.url)))),
  'MLA, no weights': scenario({
    sentences: ['the bat flew'], d_model: 4, n_heads: 2, mask: { causal: true },
    rope: { style: 'interleaved', base: 10000 }, mla: { kv_lora_rank: 2, qk_nope_head_dim: 2, qk_rope_head_dim: 2, v_head_dim: 3 },
  }),
  'sinks of the wrong length': scenario({ sentences: ['bat'], d_model: 4, n_heads: 2, sinks: [1] }),
  'softcap 0': scenario({ sentences: ['bat'], d_model: 4, n_heads: 2, softcap: 0 }),
};

const SENTENCES = [
  'I bought a baseball bat', 'baseball bat', 'bat', 'a', '', 'the bat flew\nbaseball bat\nx',
  'The creek was cold and the spunky dog wanted to jump over it', '<pad> <pad>', '🦇 bat, baseball!', 'a\n\nb',
];
const KV = ['one two three four five', 'x', '', 'baseball\nbat bat bat', 'the spunky dog wanted to jump high'];
const D_MODEL = ['1', '2', '3', '4', '5', '7', '8', '16', '0', '', '-1', '2.5', '9999'];
const HEADS = ['1', '2', '3', '4', '0', '', '65', '1.5'];

export const tests = [
  {
    name: `monkey: a seeded random walk of UI actions never stops the page`,
    timeoutMs: 110_000 + ACTIONS * 400,
    run: async (t) => {
      console.log(`  # monkey: MONKEY_SEED=${SEED} MONKEY_ACTIONS=${ACTIONS}`);
      const random = prng(SEED);
      const int = (n) => Math.floor(random() * n);
      const choose = (xs) => xs[int(xs.length)];
      const page = await t.gotoApp('');
      page.setDefaultTimeout(5_000);
      const log = [];

      /** A visible, enabled element of `selector`, chosen at random, or null. */
      const pick = async (selector) => {
        const all = page.locator(selector).filter({ visible: true });
        const n = await all.count();
        if (n === 0) return null;
        const el = all.nth(int(n));
        return (await el.isEnabled({ timeout: 1500 }).catch(() => false)) ? el : null;
      };
      /** Runs a Playwright action; one whose element went away or was covered in the
       *  meantime (a re-render) is skipped: only page errors and panics fail the walk. */
      const tolerant = async (fn) => {
        try {
          await fn();
          return true;
        } catch (e) {
          if (e?.name === 'TimeoutError') return false;
          throw e;
        }
      };
      const clickSome = async (selector) => {
        const el = await pick(selector);
        return el !== null && tolerant(() => el.click({ timeout: 1500 }));
      };
      /** `fn(element)` on the control, if the page shows it (a missing control is skipped). */
      const on = async (selector, fn) => {
        const el = await pick(selector);
        if (el) await tolerant(() => fn(el));
      };
      const importFile = async (name) => {
        // a lesson of recorded runs (induction) has no explorer folds, so no import field
        if (!(await page.$('[data-testid="import-scenario"]'))) return;
        await page.setInputFiles('[data-testid="import-scenario"]', {
          name: 'scenario.json', mimeType: 'application/json', buffer: Buffer.from(IMPORTS[name]),
        });
        await page.waitForTimeout(60); // the file is read asynchronously
      };
      /** Focuses one of `selector`, if the page shows it, and presses 1 to `most` arrow keys. */
      const arrowsOn = async (selector, most) => {
        const el = await pick(selector);
        if (!el) return;
        await el.focus();
        for (let i = int(most); i >= 0; i--) await page.keyboard.press(choose(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']));
      };
      const blurThenPress = async (key) => {
        await page.evaluate(() => document.activeElement?.blur?.());
        await page.keyboard.press(key);
      };

      const actions = [
        ['mode tab', 2, () => clickSome(choose(['[data-testid="mode-explorer"]', '[data-testid="mode-lessons"]']))],
        ['lesson tab', 3, () => clickSome('[data-testid="lesson-tab"]')],
        ['Back or Next', 4, () => clickSome(choose(['[data-testid="lesson-back"]', '[data-testid="lesson-next"]']))],
        ['arrow key', 3, () => blurThenPress(choose(['ArrowLeft', 'ArrowRight']))],
        ['pipeline step', 4, () => clickSome('[data-testid="trace-step"] button')],
        ['pipeline arrows', 2, async () => {
          if (await clickSome('[data-testid="trace-step"] button')) {
            for (let i = int(4); i >= 0; i--) await page.keyboard.press(choose(['ArrowDown', 'ArrowUp']));
          }
        }],
        ['batch tab', 2, () => clickSome('[data-testid="batch-tab"]')],
        ['heatmap cursor', 3, () => arrowsOn('canvas[data-testid="heatmap"]', 6)],
        ['heatmap hover', 1, async () => {
          const el = await pick('canvas[data-testid="heatmap"]');
          const box = el && (await el.boundingBox());
          if (box) await page.mouse.move(box.x + random() * box.width, box.y + random() * box.height);
        }],
        ['type sentences', 4, () => on('[data-testid="sentences"]', (el) => el.fill(choose(SENTENCES)))],
        ['cross toggle', 2, () => on('[data-testid="cross"]', (el) => el.click())],
        ['kv text', 2, async () => {
          const el = await pick('[data-testid="kv-sentences"]');
          if (el) await el.fill(choose(KV));
        }],
        ['h', 2, () => on('[data-testid="n-heads"]', (el) => el.fill(choose(HEADS)))],
        ['d_model', 3, () => on('[data-testid="d-model"]', (el) => el.fill(choose(D_MODEL)))],
        ['causal', 1, () => on('[data-testid="mask-causal"]', (el) => el.click())],
        ['padding', 1, () => on('[data-testid="mask-padding"]', (el) => el.selectOption(choose(['none', 'keys', 'keys_and_queries'])))],
        ['fill', 1, () => on('[data-testid="mask-fill"]', (el) => el.selectOption(choose(['neg_inf', 'large_negative'])))],
        ['positions', 1, () => on('[data-testid="positional"]', (el) => el.selectOption(choose(['none', 'sinusoidal'])))],
        ['projections', 1, () => on('[data-testid="projections"]', (el) => el.selectOption(choose(['identity', 'seeded'])))],
        ['h_kv', 2, () => on('[data-testid="n-kv-heads"]', (el) => el.fill(choose(['', '1', '2', '3', '0', '8'])))],
        ['rope', 2, () => on('[data-testid="rope"]', (el) => el.selectOption(choose(['none', 'half', 'interleaved'])))],
        ['rope base', 1, () => on('[data-testid="rope-base"]', async (el) => { if (await el.isEnabled()) await el.fill(choose(['10000', '100', '0.5', '-3', '1e40'])); })],
        ['alibi', 1, () => on('[data-testid="alibi"]', (el) => el.click())],
        ['window', 2, () => on('[data-testid="mask-window"]', (el) => el.fill(choose(['', '1', '2', '3', '0', '64'])))],
        ['keep first', 1, () => on('[data-testid="mask-keep-first"]', (el) => el.fill(choose(['', '0', '1', '2', '-1', '99'])))],
        ['d_head', 1, () => on('[data-testid="d-head"]', (el) => el.fill(choose(['', '0', '1', '3', '6', '-2', '1.5', '9999'])))],
        ['scale', 1, () => on('[data-testid="scale"]', (el) => el.fill(choose(['', '0.125', '1', '0', '-1', '1e308', '1e-320'])))],
        ['softcap', 1, () => on('[data-testid="softcap"]', (el) => el.fill(choose(['', '0.5', '2', '50', '0', '-1', '1e-300'])))],
        ['QK-norm', 1, () => on('[data-testid="qk-norm"]', (el) => el.click())],
        ['sinks', 1, () => on('[data-testid="sinks"]', async (el) => {
          await el.fill(choose(['', '0', '0.5, -1', '0, 0, 0, 0', '1, 2, 3', 'x', '1e400']));
          await el.press('Enter');
        })],
        ['shared scale', 1, () => on('[data-testid="shared-scale"]', (el) => el.click())],
        ['embedding edit', 2, async () => {
          const el = await pick('[data-testid="embedding-input"]');
          if (el) {
            await el.fill(choose(['0', '2', '-1.5', '3', '0.25', '1e30', '-0']));
            await el.press('Enter');
            await el.evaluate((e) => e.dispatchEvent(new Event('change', { bubbles: true })));
          }
        }],
        ['embedding drag', 2, async () => {
          const el = await pick('[data-testid="embedding-plot"]');
          const box = el && (await el.boundingBox());
          if (!box) return;
          await page.mouse.move(box.x + random() * box.width, box.y + random() * box.height);
          await page.mouse.down();
          await page.mouse.move(box.x + random() * box.width, box.y + random() * box.height, { steps: 3 });
          await page.mouse.up();
        }],
        ['import', 3, () => importFile(choose(Object.keys(IMPORTS)))],
        // this round's views: folds, explanations, lines, questions, presenter mode
        ['fold', 2, () => clickSome(choose(['[data-testid="change-numbers"] > summary', '[data-testid="pipeline-fold"] > summary']))],
        ['explain by key', 3, async () => {
          const el = await pick('canvas[data-testid="heatmap"]');
          if (!el) return;
          await el.focus();
          await page.keyboard.press('Enter');
          for (let i = int(5); i >= 0; i--) await page.keyboard.press(choose(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']));
          if (random() < 0.3) await page.keyboard.press('Escape');
        }],
        ['explain a table cell', 1, async () => {
          if (await clickSome('details.al-table > summary')) await clickSome('table[data-testid="matrix-table"] td');
        }],
        ['explain extras', 1, () => clickSome(choose(['[data-testid="explain-show-all"]', '[data-testid="explain-guess-toggle"]', '[data-testid="explain-reveal"]', '[data-testid="explain-close"]']))],
        ['lines view', 2, () => clickSome('[data-testid="lines-toggle"]')],
        ['lines token', 1, () => arrowsOn('[data-testid="lines-token"]', 4)],
        ['quiz', 2, async () => {
          const number = await pick('[data-testid="quiz-number"]');
          if (number) await number.fill(choose(['0.5', '1', '-3', 'abc', '']));
          await clickSome('[data-testid="quiz-choice"]');
        }],
        ['present', 1, async () => {
          if (await clickSome('[data-testid="present"]')) {
            for (let i = int(3); i >= 0; i--) await blurThenPress(choose(['ArrowRight', 'ArrowLeft', ' ']));
            if (random() < 0.7) await blurThenPress('Escape');
          }
        }],
      ];
      const total = actions.reduce((s, a) => s + a[1], 0);
      const weighted = () => {
        let r = random() * total;
        for (const a of actions) if ((r -= a[1]) < 0) return a;
        return actions[actions.length - 1];
      };

      const check = async (what) => {
        log.push(what);
        if (log.length > 12) log.shift();
        const panics = await page.locator('[data-testid="panic"]').count();
        const errors = t.errors();
        if (panics > 0 || errors.length > 0) {
          t.assert.fail(`after ${what} (the last actions: ${log.join(' | ')}):\n${errors.join('\n')}${panics ? '\npanic banner shown' : ''}`);
        }
      };

      // Every awkward import in every lesson, at one of its steps.
      let done = 0;
      await page.click('[data-testid="mode-lessons"]');
      const lessons = await page.locator('[data-testid="lesson-tab"]').count();
      t.assert.ok(lessons >= 5, `only ${lessons} lessons`);
      for (let l = 0; l < lessons; l++) {
        for (const name of Object.keys(IMPORTS)) {
          await page.locator('[data-testid="lesson-tab"]').nth(l).click();
          for (let s = int(4); s > 0; s--) await clickSome('[data-testid="lesson-next"]');
          await importFile(name);
          done++;
          await check(`lesson ${l + 1}, import "${name}"`);
        }
      }
      // Then a random walk.
      for (; done < ACTIONS; done++) {
        const [name, , act] = weighted();
        await tolerant(act);
        await page.waitForTimeout(5);
        await check(`#${done + 1} ${name}`);
      }

      // The page still answers an edit: a plain scenario in (the walk may have left
      // explicit vectors that no d_model fits), then new words.
      if (!(await page.isVisible('[data-testid="mode-explorer"]'))) await blurThenPress('Escape'); // presenter mode
      await page.click('[data-testid="mode-explorer"]');
      IMPORTS.plain = scenario({ sentences: ['x'], d_model: 8, n_heads: 2 });
      await importFile('plain');
      await page.fill('[data-testid="sentences"]', 'still here after the walk');
      const words = () => page.$$eval('[data-testid="tokens"][data-batch="0"] li', (els) => els.map((e) => e.textContent).join(' '));
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid="tokens"][data-batch="0"] li')].map((e) => e.textContent).join(' ')
          === 'still here after the walk').catch(async () => {
        const shown = await page.$$eval('[data-testid="error"], [data-testid="notice"]', (els) => els.map((e) => e.textContent));
        t.assert.fail(`the page did not answer the final edit: tokens "${await words()}", messages ${JSON.stringify(shown)}`);
      });
      await page.click('[data-testid="trace-step"][data-step="weights"] button');
      if (await page.isVisible('[data-testid="lines-view"]')) await page.click('[data-testid="lines-toggle"]');
      await page.waitForSelector('canvas[data-testid="heatmap"][data-step="weights"]');
      t.assert.equal(await page.locator('[data-testid="stale"]').count(), 0, 'still stale after a valid edit');
      await check('the final edit');
      console.log(`  # monkey: ${done} actions, no page error, no panic`);
    },
  },
];
