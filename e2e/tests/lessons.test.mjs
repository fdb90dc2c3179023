// Issue 5: the lessons show the seeds' numbers, from the engine, in the right cells.
import { tableValues } from '../lib/canvas.mjs';
import { noOverflow } from '../lib/layout.mjs';

const table = (step, head = 0, batch = 0) =>
  `table[data-testid="matrix-table"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;

async function shortCells(page, step, head = 0) {
  await page.waitForSelector(table(step, head), { state: 'attached' });
  return page.$$eval(`${table(step, head)} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

export const tests = [
  {
    name: 'lesson 1: scores 2.31/1.15, weights .76/.24, output 1.76/.24 in the right cells',
    run: async (t) => {
      const page = await t.open('lesson=baseball-bat&ls=1', '[data-testid="lesson-text"]');
      t.assert.deepEqual(await shortCells(page, 'scaled'), [['2.31', '1.15'], ['1.15', '1.15']]);
      await page.click('[data-testid="lesson-next"]'); // the question step (predict first)
      await page.waitForSelector('[data-testid="quiz"]');
      await page.click('[data-testid="lesson-next"]');
      t.assert.deepEqual(await shortCells(page, 'weights'), [['0.76', '0.24'], ['0.50', '0.50']]);
      await page.click('[data-testid="lesson-next"]');
      t.assert.deepEqual(await shortCells(page, 'output'), [['1.76', '0.24', '0.00'], ['1.50', '0.50', '0.00']]);
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /bat \[1\.50, 0\.50, 0\.00\]/);
      await t.screenshot('lesson1-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 1: editing bat toward animal changes the weights and the words',
    run: async (t) => {
      const page = await t.open('lesson=baseball-bat&ls=3', '[data-testid="embedding-plot"]');
      const before = await page.textContent('[data-testid="lesson-text"]');
      await page.fill('[data-testid="embedding-input"][data-word="bat"][data-dim="1"]', '3');
      await page.press('[data-testid="embedding-input"][data-word="bat"][data-dim="1"]', 'Enter');
      await page.waitForFunction((b) => document.querySelector('[data-testid="lesson-text"]').textContent !== b, before);
      const w = await shortCells(page, 'weights');
      t.assert.notDeepEqual(w, [['0.76', '0.24'], ['0.50', '0.50']]);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 1: the embedding editor reads a decimal comma as the challenges do; "1 5" is marked and changes nothing',
    run: async (t) => {
      const input = '[data-testid="embedding-input"][data-word="bat"][data-dim="1"]';
      const page = await t.open('lesson=baseball-bat&ls=3', input);
      const before = await page.textContent('[data-testid="lesson-text"]');
      await page.fill(input, '1,5');
      await page.press(input, 'Enter');
      // the editor is drawn afresh from the settings: 1.5 is what they hold, not 15
      await page.waitForFunction((sel) => document.querySelector(sel).value === '1.5', input);
      t.assert.notEqual(await page.textContent('[data-testid="lesson-text"]'), before);
      const edited = await page.textContent('[data-testid="lesson-text"]');
      await page.fill(input, '1 5');
      await page.press(input, 'Enter');
      await page.waitForSelector(`${input}[aria-invalid="true"]`);
      const message = page.locator(`#${await page.getAttribute(input, 'aria-describedby')}`);
      t.assert.equal(await message.textContent(), 'Type a number, e.g. -0.5; 1.5 is still in use.');
      t.assert.equal(await page.textContent('[data-testid="lesson-text"]'), edited);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 1: an edit to bat survives Next and Back, until "Reset this lesson\'s vectors"',
    run: async (t) => {
      const input = '[data-testid="embedding-input"][data-word="bat"][data-dim="1"]';
      const page = await t.open('lesson=baseball-bat&ls=3', input);
      t.assert.equal(await page.$('[data-testid="lesson-reset"]'), null, 'nothing to reset before an edit');
      const own = await page.inputValue(input);
      await page.fill(input, '3');
      await page.press(input, 'Enter');
      await page.waitForSelector('[data-testid="lesson-reset"]');
      const edited = await page.textContent('[data-testid="lesson-text"]');
      await page.click('[data-testid="lesson-next"]');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '4');
      t.assert.equal(await page.inputValue(input), '3', 'Next keeps the edit');
      t.assert.ok(await page.$('[data-testid="lesson-reset"]'));
      await page.click('[data-testid="lesson-back"]');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '3');
      t.assert.equal(await page.inputValue(input), '3', 'Back keeps it too');
      t.assert.equal(await page.textContent('[data-testid="lesson-text"]'), edited);
      await page.click('[data-testid="lesson-reset"]');
      await page.waitForSelector('[data-testid="lesson-reset"]', { state: 'detached' });
      t.assert.equal(await page.inputValue(input), own, 'reset puts the lesson\'s own vector back');
      // another lesson starts from its own vectors
      await page.fill(input, '3');
      await page.press(input, 'Enter');
      await page.waitForSelector('[data-testid="lesson-reset"]');
      await page.click('[data-testid="lesson-tab"][data-lesson="masks"]');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('lesson') === 'masks');
      t.assert.equal(await page.$('[data-testid="lesson-reset"]'), null);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'masks step 4: the fully-masked-row notes follow the picture instead of pushing it down',
    run: async (t) => {
      const page = await t.open('lesson=masks&ls=3', '[data-testid="lesson-picture"] [data-testid="masked-row-note"]');
      const heatmap = await page.$eval('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]', (e) => e.getBoundingClientRect().top);
      const note = await page.$eval('[data-testid="lesson-picture"] [data-testid="masked-row-note"]', (e) => e.getBoundingClientRect().top);
      t.assert.ok(heatmap < note, `heatmap at ${heatmap}, note at ${note}`);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 2: "jump" has a sharp peak in each of two heads, and one head splits its row between them',
    run: async (t) => {
      const page = await t.gotoApp('lesson=why-heads&ls=1');
      const tokens = await page.$$eval('[data-testid="tokens"][data-batch="0"] li', (els) => els.map((e) => e.textContent));
      const argmax = (row) => row.indexOf(Math.max(...row));
      const rows = async (head) => {
        await page.waitForSelector(table('weights', head), { state: 'attached' });
        return (await tableValues(page, table('weights', head))).map((r) => r.map(Number));
      };
      const [jump, dog, it] = ['jump', 'dog', 'it'].map((w) => tokens.indexOf(w));
      const h1 = await rows(0);
      const h2 = await rows(1);
      t.assert.equal(tokens[argmax(h1[jump])], 'dog');
      t.assert.equal(tokens[argmax(h2[jump])], 'it');
      t.assert.ok(h1[jump][dog] > 0.85 && h2[jump][it] > 0.85, `${h1[jump][dog]} ${h2[jump][it]}`);
      // one head (step 5): one row, split evenly, neither half above 0.5
      await page.goto(t.url('/?lesson=why-heads&ls=4'));
      await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      t.assert.equal(await page.locator(table('weights', 1)).count(), 0, 'h = 1: no second head');
      const one = await rows(0);
      t.assert.equal(one[jump][dog], one[jump][it]);
      t.assert.ok(one[jump][dog] < 0.5 && one[jump][dog] > 0.35, String(one[jump][dog]));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 3: the pad row is NaN under -inf and 1/T under -1e9',
    run: async (t) => {
      const page = await t.open('lesson=masks&ls=4', '[data-testid="mask-conventions"]');
      let w = await tableValues(page, table('weights'));
      t.assert.ok(w[6].every((v) => v === 'NaN'), w[6].join(','));
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /NaN/);
      await page.click('[data-testid="lesson-next"]');
      await page.waitForFunction((sel) => document.querySelector(sel)?.querySelector('tbody tr:nth-of-type(7) td')?.dataset.value !== 'NaN', table('weights'));
      w = (await tableValues(page, table('weights'))).map((r) => r.map(Number));
      for (const v of w[6]) t.assert.ok(Math.abs(v - 1 / 7) < 1e-12, String(v));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 5: cross-attention, English queries against French keys: a 6×7 table, each word finds its translation',
    run: async (t) => {
      const page = await t.gotoApp('lesson=cross&ls=0');
      const w = (await tableValues(page, table('weights'))).map((r) => r.map(Number));
      t.assert.equal(w.length, 6);
      for (const row of w) t.assert.equal(row.length, 7);
      const queries = await page.$$eval('[data-testid="tokens"][data-batch="0"] li', (els) => els.map((e) => e.textContent));
      const keys = await page.$$eval('[data-testid="kv-tokens"][data-batch="0"] li', (els) => els.map((e) => e.textContent));
      t.assert.deepEqual(keys, ['le', 'chat', "s'est", 'assis', 'sur', 'le', 'tapis']);
      const top = (i) => keys[w[i].indexOf(Math.max(...w[i]))];
      for (const [en, fr] of [['cat', 'chat'], ['sat', 'assis'], ['mat', 'tapis']]) t.assert.equal(top(queries.indexOf(en)), fr, en);
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /"cat" gives 0\.\d\d to "chat".*T_q = 6 query tokens meet T_k = 7/);
      // no French word is a random (hashed) vector
      t.assert.equal(await page.locator('[data-testid="kv-tokens"] li[data-source="hashed"]').count(), 0);
      await t.screenshot('lesson5-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 4: the shapes lesson quotes view and transpose from the trace',
    run: async (t) => {
      const page = await t.gotoApp('lesson=shapes&ls=1');
      const text = await page.textContent('[data-testid="lesson-text"]');
      t.assert.match(text, /view → \(1, 6, 2, 4\), then transpose\(1, 2\) → \(1, 2, 6, 4\)/);
      await page.click('[data-testid="lesson-next"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="lesson-text"]').textContent.includes('wrong numbers'));
      await page.click('[data-testid="lesson-exit"]');
      await page.waitForSelector('[data-testid="lesson"]', { state: 'detached' });
      t.assert.equal(await page.inputValue('[data-testid="sentences"]'), 'the cat sat on the mat');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lessons: arrow keys move through the steps, and each step has its own URL',
    run: async (t) => {
      const page = await t.gotoApp('lesson=baseball-bat&ls=0');
      const title = () => page.textContent('[data-testid="lesson-step-title"]');
      const first = await title();
      await page.click('h1');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((f) => document.querySelector('[data-testid="lesson-step-title"]').textContent !== f, first);
      t.assert.match(page.url(), /lesson=baseball-bat/);
      t.assert.match(page.url(), /ls=1/);
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction((f) => document.querySelector('[data-testid="lesson-step-title"]').textContent === f, first);
      await page.setViewportSize({ width: 375, height: 800 });
      await t.screenshot('lesson1-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson 1: dragging "bat" in the plot moves its embedding',
    run: async (t) => {
      const plot = '[data-testid="embedding-plot"]';
      const page = await t.open('lesson=baseball-bat&ls=4', plot);
      await page.$eval(plot, (c) => c.scrollIntoView({ block: 'center' }));
      const box = await page.$eval(plot, (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
      const input = '[data-testid="embedding-input"][data-word="bat"][data-dim="1"]';
      t.assert.equal(await page.inputValue(input), '1');
      // drag toward the top of the plot: more "animal"
      await page.mouse.move(box.x + box.w * 0.4, box.y + box.h * 0.5);
      await page.mouse.down();
      await page.mouse.move(box.x + box.w * 0.4, box.y + box.h * 0.15, { steps: 5 });
      await page.mouse.up();
      await page.waitForFunction((sel) => Number(document.querySelector(sel).value) > 2, input);
      t.assert.doesNotMatch(await page.textContent('[data-testid="lesson-text"]'), /bat \[1\.50, 0\.50, 0\.00\]/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'every lesson step renders at 1440 px and 375 px without horizontal scrolling',
    run: async (t) => {
      const page = t.page;
      const ids = ['baseball-bat', 'why-heads', 'masks', 'shapes', 'cross', 'word-order'];
      for (const width of [1440, 375]) {
        await page.setViewportSize({ width, height: 900 });
        for (const id of ids) {
          await page.goto(t.url(`/?lesson=${id}&ls=0`));
          await page.waitForSelector('[data-testid="lesson-text"]');
          for (let step = 0; ; step++) {
            await page.waitForSelector('canvas[data-testid="heatmap"], [data-testid="position-similarity"], [data-testid="split-both-ways"]');
            const text = await page.textContent('[data-testid="lesson-text"]');
            t.assert.ok(text.length > 80, `${id} step ${step}: ${text}`);
            await noOverflow(t, page, `${id} step ${step} at ${width}px`);
            if (step === 1) await t.screenshot(`lesson-${id}-${width}`);
            if (await page.$eval('[data-testid="lesson-next"]', (b) => b.disabled)) break;
            await page.click('[data-testid="lesson-next"]');
            await page.waitForFunction((prev) => document.querySelector('[data-testid="lesson-text"]').textContent !== prev, text);
          }
        }
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'a lesson step\'s copied link says when it leaves the learner\'s changes behind; the padding words follow the edited sentence',
    run: async (t) => {
      const page = await t.open('lesson=masks&ls=2', '[data-testid="lesson-text"]');
      await page.waitForSelector('[data-testid="copy-link"]');
      await page.click('[data-testid="copy-link"]');
      // the step as the lesson wrote it: the link opens what the page shows
      await page.waitForFunction(() => document.querySelector('[data-testid="copy-link"]').textContent === 'Link copied');
      t.assert.match(page.url(), /lesson=masks&ls=2/);
      await page.click('[data-testid="change-numbers"] summary');
      await page.fill('[data-testid="sentences"]', 'this is a sample\nthe spunky dog wanted to jump high');
      await page.press('[data-testid="sentences"]', 'Tab');
      await page.waitForFunction(() => /"this is a sample" gets 3 <pad> tokens/.test(document.querySelector('[data-testid="lesson-text"]').textContent));
      const words = await page.textContent('[data-testid="lesson-text"]');
      t.assert.match(words, /the 4 real words share all of it/);
      t.assert.doesNotMatch(words, /sample sequence|five/);
      // the edit took "Link copied" back to the button's own words
      t.assert.equal(await page.textContent('[data-testid="copy-link"]'), 'Copy link to this step');
      await page.click('[data-testid="copy-link"]');
      await page.waitForFunction(() => /without your changes/.test(document.querySelector('[data-testid="copy-link"]').textContent));
      t.assert.deepEqual(t.errors(), []);
    },
  },
{
    name: 'a step whose words the learner\'s sentences no longer fit hides its table and question, and one button puts its sentences back',
    run: async (t) => {
      // RoPE step 3 asks a question, step 4 has a table: both are about "bat" and "ball" at 0, 1, 4 and 5
      for (const [ls, what] of [[2, '[data-testid="quiz"]'], [3, '[data-testid="lesson-aside"]']]) {
        const page = await t.open(`lesson=rope&ls=${ls}`, what);
        await page.click('[data-testid="change-numbers"] summary');
        await page.fill('[data-testid="sentences"]', 'bat ball and bat ball');
        await page.press('[data-testid="sentences"]', 'Tab');
        await page.waitForFunction(() => /^Your sentences no longer fit this step/.test(document.querySelector('[data-testid="lesson-text"]').textContent));
        const words = await page.textContent('[data-testid="lesson-text"]');
        t.assert.match(words, /“ball” at position 5 \(positions count from 0\)/);
        t.assert.equal(await page.$(what), null, `${what} left out on step ${ls + 1}`);
        await t.screenshot(`unfit-sentences-rope-${ls + 1}`, { fullPage: false });
        await page.click('[data-testid="restore-sentences"]');
        await page.waitForSelector(what);
        t.assert.equal(await page.inputValue('[data-testid="sentences"]'), 'bat ball and a bat ball');
        t.assert.doesNotMatch(await page.textContent('[data-testid="lesson-text"]'), /no longer fit/);
        t.assert.equal(await page.$('[data-testid="restore-sentences"]'), null);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
{
    name: 'a step whose story the learner\'s vectors changed offers its own numbers back in one click',
    run: async (t) => {
      // a scale of 0.01 shrinks the scores: "cat" no longer gives itself nearly all
      const page = await t.open('lesson=score-range&ls=0', '[data-testid="lesson-text"]');
      const scale = '[data-testid="scale"]';
      await page.click('[data-testid="change-numbers"] summary');
      await page.fill(scale, '0.01');
      await page.press(scale, 'Tab');
      await page.waitForSelector('[data-testid="story-changed"]');
      t.assert.match(await page.textContent('[data-testid="story-changed"]'), /no longer hold for yours\. Use this step's own numbers$/);
      await page.click('[data-testid="reset-step"]');
      await page.waitForSelector('[data-testid="story-changed"]', { state: 'detached' });
      t.assert.equal(await page.inputValue(scale), '');
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
