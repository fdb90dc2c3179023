// The two lessons on how a model runs attention (kv-cache, online-softmax): every step at
// 1440 and 375 px shows its words and the picture they talk about (the decode view, the
// tiles view, the causal corners or the heatmaps), nothing wider than a phone, no page
// error; their questions answered through the page; the arrows step the panel while it
// has the focus and the lesson after a click on one of its buttons; the window's rolling
// buffer in the last kv-cache step.
import { noOverflow } from '../lib/layout.mjs';
import { verdictFor } from '../lib/quiz.mjs';

// the picture each step shows, by test id
const PICTURES = {
  'kv-cache': ['heatmap', 'decode-view', 'heatmap', 'decode-view', 'causal-corners', 'decode-view'],
  'online-softmax': ['tiles-view', 'tiles-view', 'tiles-view', 'tiles-view', 'tiles-view', 'tiles-view'],
};

async function visitAll(t, width, height) {
  await t.page.setViewportSize({ width, height });
  for (const [id, pictures] of Object.entries(PICTURES)) {
    const page = await t.gotoApp(`lesson=${id}&ls=0`);
    for (let s = 0; s < pictures.length; s++) {
      await page.waitForFunction((k) => new URLSearchParams(location.search).get('ls') === String(k), s);
      const text = await page.textContent('[data-testid="lesson-text"]');
      // (the last online-softmax step explains the NaN of a fully masked row)
      const nan = /NaN/.test(text) && !(id === 'online-softmax' && s === 5);
      t.assert.ok(text.length > 20 && !nan && !/\[\]/.test(text), `${id} step ${s + 1}: ${text}`);
      await page.waitForSelector(`[data-testid="lesson-picture"] [data-testid="${pictures[s]}"]`);
      await noOverflow(t, page, `${id} step ${s + 1} at ${width} px`, 1);
      await t.screenshot(`lesson-${id}-${s + 1}-${width}`);
      if (s + 1 < pictures.length) await page.click('[data-testid="lesson-next"]');
    }
  }
  t.assert.deepEqual(t.errors(), []);
}

export const tests = [
  {
    name: 'generation lessons: every step of kv-cache and online-softmax at 1440 px',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 1440, 900),
  },
  {
    name: 'generation lessons: every step of kv-cache and online-softmax at 375 px',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 375, 812),
  },
  {
    name: 'generation lessons: the words and the panels open at the same position and tile',
    run: async (t) => {
      let page = await t.open('lesson=kv-cache&ls=1', '[data-testid="decode-view"]');
      t.assert.match(await page.textContent('[data-testid="decode-position"]'), /^t = 3 /);
      // the words' weights are the panel's
      const words = await page.textContent('[data-testid="lesson-text"]');
      const listed = await page.$$eval('[data-testid="decode-weights"] tbody td[data-value]', (tds) => tds.map((td) => td.textContent));
      t.assert.ok(listed.length === 4 && words.includes(`[${listed.join(', ')}]`), `${words} / ${listed}`);
      // the last step: a window of 3 and one K/V head; "sat" has just left the buffer
      page = await t.open('lesson=kv-cache&ls=5', '[data-testid="decode-evicted"]');
      t.assert.match(await page.textContent('[data-testid="decode-evicted"]'), /sat/);
      t.assert.match(await page.textContent('[data-testid="decode-cache-shape"]'), /\(1, 1, 3, 4\)/);
      t.assert.match(await page.textContent('[data-testid="decode-check"]'), /Equals row 5 of the full run/);
      // online softmax: the raising tile, with the words' m′ and correction in its table
      page = await t.open('lesson=online-softmax&ls=3', '[data-testid="tiles-view"]');
      t.assert.match(await page.textContent('[data-testid="tiles-position"]'), /^Tile 8 of 9: query rows 4–5, key columns 2–3/);
      const row = await page.$$eval('[data-testid="tile-rows"] tr[data-row="5"] td', (tds) => tds.map((td) => td.textContent));
      const text = await page.textContent('[data-testid="lesson-text"]');
      t.assert.ok(text.includes(`m′ = ${row[0]}`) && text.includes(`e^(m − m′) = ${row[2]}`), `${text} / ${row}`);
      t.assert.equal(await page.inputValue('[data-testid="tile-block"]'), '2');
      // the lesson's block is the view's own: the explorer's block= is not written
      t.assert.equal(new URL(page.url()).searchParams.get('block'), null);
      // Block 3: the words follow it, with the engine's numbers for tiles of three keys
      await page.fill('[data-testid="tile-block"]', '3');
      await page.press('[data-testid="tile-block"]', 'Enter');
      await page.waitForFunction(() => document.querySelector('[data-testid="tiles-position"]').textContent.startsWith('Tile 4 of 4'));
      await page.waitForFunction(() => document.querySelector('[data-testid="lesson-text"]').textContent.startsWith('With Block = 3'));
      const three = await page.textContent('[data-testid="lesson-text"]');
      t.assert.match(three, /^With Block = 3 the second tile, keys 3–5 \("on", "the" and "mat"\), does not raise "mat"'s maximum: the correction is 1\.0000 and m′ stays /);
      t.assert.ok(three.endsWith('With Block = 2 the second tile raises it.'), three);
      t.assert.equal(await page.$('[data-testid="tiles-lesson-block"]'), null, 'no note: the words are the block\'s');
      // the panel shows the tile the words describe, the second of mat's row (rows 3–5, keys 3–5)
      t.assert.match(await page.textContent('[data-testid="tiles-position"]'), /^Tile 4 of 4: query rows 3–5, key columns 3–5/);
      const row3 = await page.$$eval('[data-testid="tile-rows"] tr[data-row="5"] td', (tds) => tds.map((td) => td.textContent));
      t.assert.ok(three.includes(`m′ stays ${row3[0]}`) && three.includes(`correction is ${row3[2]}`), `${three} / ${row3}`);
      // the step's embed: its words follow the block too, the same words as the page's
      page = await t.open('lesson=online-softmax&ls=3&embed=1', '[data-testid="tiles-view"]');
      t.assert.ok((await page.textContent('[data-testid="embed-text"]')).includes(`m′ = ${row[0]}`));
      await page.fill('[data-testid="tile-block"]', '3');
      await page.press('[data-testid="tile-block"]', 'Enter');
      await page.waitForFunction(() => document.querySelector('[data-testid="embed-text"]').textContent.startsWith('With Block = 3'));
      t.assert.equal((await page.textContent('[data-testid="embed-text"]')).trim(), three.trim());
      t.assert.match(await page.textContent('[data-testid="tiles-position"]'), /^Tile 4 of 4: query rows 3–5, key columns 3–5/);
      t.assert.equal(await page.$('[data-testid="tiles-lesson-block"]'), null);
    },
  },
  {
    name: 'generation lessons: the questions are answered through the page',
    run: async (t) => {
      let page = await t.gotoApp('lesson=kv-cache&ls=2');
      t.assert.match(await verdictFor(page, '21'), /^Not quite: it is 78 \(you were 57 away\)/);
      page = await t.gotoApp('lesson=kv-cache&ls=2');
      t.assert.match(await verdictFor(page, '78'), /^Right: 78\. 1 \+ 2 \+ … \+ 12 = 78/);
      page = await t.gotoApp('lesson=kv-cache&ls=3');
      await page.click('[data-testid="quiz-choice"]:has-text("only \\"the\\"")');
      await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right: only "the", the first\. PyTorch builds is_causal's mask/);
      page = await t.gotoApp('lesson=online-softmax&ls=1');
      await page.click('[data-testid="quiz-choice"]:has-text("the largest grows")');
      await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Not quite: the answer is they stay the same/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'generation lessons: the arrows step the panel while it has the focus, the lesson after a click on its buttons',
    run: async (t) => {
      let page = await t.open('lesson=kv-cache&ls=1', '[data-testid="decode-view"]');
      await page.focus('[data-testid="decode-view"]');
      await page.keyboard.press('ArrowRight');
      t.assert.match(await page.textContent('[data-testid="decode-position"]'), /^t = 4 /);
      t.assert.equal(new URL(page.url()).searchParams.get('ls'), '1', 'the lesson stays');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      t.assert.match(await page.textContent('[data-testid="decode-position"]'), /^t = 2 /);
      // a click on the panel's own button, then →: the lesson moves on
      await page.click('[data-testid="decode-next"]');
      t.assert.match(await page.textContent('[data-testid="decode-position"]'), /^t = 3 /);
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '2');
      // the tiles view the same way
      page = await t.open('lesson=online-softmax&ls=2', '[data-testid="tiles-view"]');
      t.assert.match(await page.textContent('[data-testid="tiles-position"]'), /^Tile 7 of 9/);
      await page.focus('[data-testid="tiles-view"]');
      await page.keyboard.press('ArrowRight');
      t.assert.match(await page.textContent('[data-testid="tiles-position"]'), /^Tile 8 of 9/);
      t.assert.equal(new URL(page.url()).searchParams.get('ls'), '2');
      await page.click('[data-testid="tiles-prev"]');
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '1');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'generation lessons: a decoded output number opens its explanation; a running sum lists its terms',
    run: async (t) => {
      let page = await t.open('lesson=kv-cache&ls=1', '[data-testid="decode-view"]');
      const shown = await page.textContent('[data-testid="decode-output"] [data-testid="decode-explain"] >> nth=1');
      await page.click('[data-testid="decode-output"] [data-testid="decode-explain"] >> nth=1');
      await page.waitForSelector('[data-testid="decode-view"] [data-testid="explain"]');
      t.assert.match(await page.textContent('[data-testid="decode-explain-note"]'), /equals row 3 of the full run/);
      // the panel explains output[0,3,1], the number clicked
      t.assert.match(await page.textContent('[data-testid="explain"]'), /output\[0,3,1\]/);
      // the panel writes four decimals at most; its data-value is exact, and rounds to the number clicked
      const exactValue = Number(await page.getAttribute('[data-testid="explain-result"]', 'data-value'));
      t.assert.equal(exactValue.toFixed(2).replace(/^-(0\.00)$/, '$1'), shown.trim().replace('−', '-'));
      await page.click('[data-testid="explain-close"]');
      await page.waitForSelector('[data-testid="decode-view"] [data-testid="explain"]', { state: 'detached' });
      // the raising tile: mat's ℓ′ is e^(m − m′)·ℓ plus the tile's two exps
      page = await t.open('lesson=online-softmax&ls=3', '[data-testid="tile-rows"]');
      const l = await page.textContent('[data-testid="tile-rows"] tr[data-row="5"] [data-testid="running-sum-open"]');
      await page.click('[data-testid="tile-rows"] tr[data-row="5"] [data-testid="running-sum-open"]');
      await page.waitForSelector('[data-testid="running-sum"]');
      t.assert.match(await page.textContent('[data-testid="running-sum-carried"]'), /^carried: e\^\(m − m′\) · ℓ = 0\.4915 × 1\.4982 = /);
      t.assert.equal(await page.locator('[data-testid="running-sum"] li[data-key]').count(), 2);
      const total = await page.textContent('[data-testid="running-sum-total"]');
      t.assert.ok(total.endsWith(`= ${l}`), `${total} / ${l}`);
      const terms = total.replace(/^ℓ′ = /, '').split(' = ')[0].split(' + ').map(Number);
      t.assert.ok(Math.abs(terms.reduce((a, b) => a + b, 0) - Number(l)) < 2e-4, `${terms} / ${l}`);
      // a click on the same number closes it
      await page.click('[data-testid="tile-rows"] tr[data-row="5"] [data-testid="running-sum-open"]');
      await page.waitForSelector('[data-testid="running-sum"]', { state: 'detached' });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'generation lessons: presenter mode keeps the tables the pictures are made of, and hides a heatmap\'s table fold',
    run: async (t) => {
      await t.page.setViewportSize({ width: 1280, height: 720 });
      let page = await t.gotoApp('lesson=kv-cache&ls=1&present=1');
      for (const id of ['k-cache', 'v-cache', 'decode-weights', 'decode-output']) {
        t.assert.ok(await page.isVisible(`[data-testid="${id}"]`), `${id} in presenter mode`);
      }
      page = await t.gotoApp('lesson=online-softmax&ls=3&present=1');
      t.assert.ok(await page.isVisible('[data-testid="tile-rows"]'));
      page = await t.gotoApp('lesson=word-order&ls=5&present=1');
      t.assert.ok(await page.isVisible('[data-testid="position-similarity"] table'));
      page = await t.open('lesson=baseball-bat&ls=2&present=1', '[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      t.assert.equal(await page.locator('[data-testid="lesson-picture"] details.al-table').first().isVisible(), false);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
