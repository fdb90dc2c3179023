// What to teach next: the word-order lesson, the lines view, the -1e9 leak, the first screen.
import { tableValues } from '../lib/canvas.mjs';
import { fitsPhone, noOverflow } from '../lib/layout.mjs';

const table = (step, head = 0, batch = 0) =>
  `table[data-testid="matrix-table"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;

async function numbers(page, step, head = 0, batch = 0) {
  await page.waitForSelector(table(step, head, batch), { state: 'attached' });
  return (await tableValues(page, table(step, head, batch))).map((r) => r.map(Number));
}

async function tokens(page, batch) {
  return page.$$eval(`[data-testid="tokens"][data-batch="${batch}"] li`, (els) => els.map((e) => e.textContent));
}

export const tests = [
  {
    name: 'teach: word order, without positions weights[i][j] of one order = weights[π(i)][π(j)] of the other; with PE they differ',
    run: async (t) => {
      const page = await t.open('lesson=word-order&ls=0', '[data-testid="lesson-text"]');
      const a = await tokens(page, 0);
      const b = await tokens(page, 1);
      t.assert.deepEqual(a, ['dog', 'bites', 'man']);
      t.assert.deepEqual(b, ['man', 'bites', 'dog']);
      const pi = a.map((w) => b.indexOf(w));
      // sentence 2's table is in the page once its tab is chosen
      const w0 = await numbers(page, 'weights', 0, 0);
      // the outlined cells: dog → man in sentence 1
      t.assert.equal(await page.locator('[data-testid="highlight"]').count(), 1);
      t.assert.equal(await page.locator(`${table('weights', 0, 0)} td.al-highlight`).count(), 1);
      await page.click('[data-testid="lesson-next"]');
      const w1 = await numbers(page, 'weights', 0, 1);
      for (let i = 0; i < a.length; i++) for (let j = 0; j < a.length; j++) {
        t.assert.ok(Math.abs(w0[i][j] - w1[pi[i]][pi[j]]) < 1e-12, `[${i}][${j}] ${w0[i][j]} vs [${pi[i]}][${pi[j]}] ${w1[pi[i]][pi[j]]}`);
      }
      // the highlighted cell of sentence 2 is dog → man there
      const hl = await page.$eval(`${table('weights', 0, 1)} td.al-highlight`, (td) => {
        const tr = td.parentElement;
        return [[...tr.parentElement.children].indexOf(tr), [...tr.children].indexOf(td) - 1];
      });
      t.assert.deepEqual(hl, [pi[0], pi[2]]);
      await t.screenshot('teach-word-order-1440');
      await page.click('[data-testid="lesson-next"]');
      await page.waitForSelector(`[data-testid="lesson-step-title"]:has-text("Add positions")`);
      const p0 = await numbers(page, 'weights', 0, 0);
      await page.waitForFunction(() => true);
      const text = await page.textContent('[data-testid="lesson-text"]');
      // the words quote the page's numbers: dog → man in sentence 1 and in sentence 2
      const short = (v) => v.toFixed(2);
      t.assert.ok(text.includes(`now gets ${short(p0[0][2])} in sentence 1`), text);
      t.assert.match(text, /different by up to/);
      // the PE step shows the encoding itself
      await page.click('[data-testid="lesson-next"]');
      await page.waitForSelector('canvas[data-testid="heatmap"][data-step="pe"]');
      await page.click('[data-testid="lesson-next"]'); // predict first: which position is most like 4?
      await page.click('[data-testid="quiz-choice"]:has-text("position 5")');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right: position 5\. PE\(4\)·PE\(10\) = \d\.\d\d, PE\(4\)·PE\(5\) = \d\.\d\d/);
      await page.click('[data-testid="lesson-next"]');
      const words = await page.textContent('[data-testid="lesson-text"]');
      const said = /with 5: (\d\.\d\d)/.exec(words);
      t.assert.ok(said, 'the words quote PE(4)·PE(5)');
      // nearness holds for the nearest few, then the dot product dips and rises: 7 < 9 < 10
      const [, d7, d9, d10] = /with 7: (\d\.\d\d)\..*with 9 it is (\d\.\d\d) and with 10 (\d\.\d\d)/.exec(words) ?? [];
      t.assert.ok(Number(d7) < Number(d9) && Number(d9) < Number(d10), words);
      // the picture is the table of PE · PEᵀ, and it holds the number the words quote
      const cell = await page.$eval('[data-testid="position-similarity"] tbody tr:nth-child(5) td:nth-of-type(6)', (td) => td.textContent);
      t.assert.equal(cell, said[1]);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  fitsPhone('teach: word order at 375 px fits, screenshot', 'lesson=word-order&ls=0', '[data-testid="highlight"]', 'word order at 375', 'teach-word-order-375'),
  {
    name: 'teach: lines view, hover a query shows its numbers; the text lists the top keys; URL view=lines',
    run: async (t) => {
      const page = await t.open('s=I%20bought%20a%20baseball%20bat&d=3&h=1&p=identity&pad=none', '[data-testid="lines-toggle"]');
      const w = await numbers(page, 'weights');
      await page.click('[data-testid="lines-toggle"]');
      await page.waitForSelector('[data-testid="lines-view"]:not([hidden])');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === 'lines');
      const items = await page.$$eval('[data-testid="lines-text"] li', (els) => els.map((e) => e.textContent));
      t.assert.equal(items.length, 5);
      // "bat → baseball 0.34, bat 0.34, I 0.11": the table's numbers, largest first
      t.assert.equal(items[4], `bat → baseball ${w[4][3].toFixed(2)}, bat ${w[4][4].toFixed(2)}, I ${w[4][0].toFixed(2)}`);
      await page.hover('[data-testid="lines-token"][data-side="query"][data-index="4"]');
      const readout = await page.textContent('[data-testid="lines-readout"]');
      t.assert.ok(readout.startsWith('bat → baseball'), readout);
      t.assert.ok(readout.includes(`bought ${w[4][1].toFixed(2)}`), readout);
      await t.screenshot('teach-lines-hover-1440');
      // keyboard: focus a query, ↓ moves to the next, → to the keys
      await page.focus('[data-testid="lines-token"][data-side="query"][data-index="0"]');
      await page.keyboard.press('ArrowDown');
      t.assert.equal(await page.evaluate(() => document.activeElement.dataset.index), '1');
      await page.keyboard.press('ArrowRight');
      t.assert.equal(await page.evaluate(() => document.activeElement.dataset.side), 'key');
      t.assert.match(await page.textContent('[data-testid="lines-readout"]'), /^bought ← I /);
      // the URL restores the view
      const page2 = await page.context().newPage();
      await page2.goto(page.url());
      await page2.waitForSelector('[data-testid="lines-view"]:not([hidden])');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teach: lines view of a padded causal batch: NaN row written NaN, blocked keys left out; 375 px fits',
    run: async (t) => {
      const page = await t.openAt({ width: 375, height: 800 }, 's=I%20bought%20a%20baseball%20bat%0Athe%20bat%20flew&d=3&h=1&p=identity&causal=1&pad=keys_and_queries&b=1&view=lines', '[data-testid="lines-view"]:not([hidden])');
      const items = await page.$$eval('[data-testid="lines-text"] li', (els) => els.map((e) => e.textContent));
      t.assert.equal(items.length, 3, 'the <pad> queries are not listed');
      t.assert.match(items[0], /^the → the 1\.00$/);
      await page.hover('[data-testid="lines-token"][data-side="query"][data-index="4"]');
      t.assert.match(await page.textContent('[data-testid="lines-readout"]'), /NaN/);
      await noOverflow(t, page, 'lines at 375');
      await t.screenshot('teach-lines-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teach: masks, -1e9 leaks (the causal query puts its weight on the future); -inf does not',
    run: async (t) => {
      const page = await t.open('lesson=masks&ls=6', '[data-testid="lesson-text"]');
      const w = await numbers(page, 'weights');
      t.assert.deepEqual(w[0], [0, 1], 'query "now" on the blocked future "later"');
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /"now" gives 1\.00 to the blocked future "later" and 0\.00 to itself/);
      await page.click('[data-testid="lesson-next"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="lesson-text"]').textContent.includes('does not leak') || document.querySelector('[data-testid="lesson-step-title"]').textContent.includes('-inf does not leak'));
      const w2 = await numbers(page, 'weights');
      t.assert.deepEqual(w2[0], [1, 0]);
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /scaled_dot_product_attention.*returns zeros/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teach: first screen, the caption reads the live weights, follows edits, and the lesson is one click away',
    run: async (t) => {
      const page = await t.open('', '[data-testid="caption"]');
      const w = await numbers(page, 'weights');
      t.assert.equal(await page.textContent('[data-testid="caption"]'), `“bat” attends to “baseball” as much as to itself: ${w[4][3].toFixed(2)} each. (Toy vectors, untrained.)`);
      // every token of the default text has a toy vector: nothing is marked
      t.assert.equal(await page.locator('[data-source="hashed"]').count(), 0);
      t.assert.ok(await page.isHidden('[data-testid="hashed-note"]'));
      await t.screenshot('teach-first-screen-1440');
      // sentence 2: bat looks at "flew"
      await page.locator('[data-testid="batch-tab"]').nth(1).click();
      await page.waitForFunction(() => document.querySelector('[data-testid="caption"]')?.textContent.includes('flew'));
      const w1 = await numbers(page, 'weights', 0, 1);
      t.assert.equal(await page.textContent('[data-testid="caption"]'), `“bat” attends most to “flew” after itself: ${w1[1][2].toFixed(2)} (itself ${w1[1][1].toFixed(2)}). (Toy vectors, untrained.)`);
      // an edit updates it; one word leaves nothing to say
      await page.fill('[data-testid="sentences"]', 'the cat sat on the mat');
      await page.waitForFunction(() => !document.querySelector('[data-testid="caption"]')?.textContent.includes('bat'));
      // a word outside the toy lexicon: marked in the tokens, explained, named in the caption
      await page.fill('[data-testid="sentences"]', 'the cat sat because it was tired');
      await page.waitForSelector('[data-testid="tokens"] [data-source="hashed"]');
      const hashed = await page.$$eval('[data-testid="tokens"] [data-source="hashed"]', (els) => els.map((e) => e.textContent));
      t.assert.ok(hashed.includes('tired'), `marked: ${hashed}`);
      t.assert.ok(!hashed.includes('cat'), `marked: ${hashed}`);
      t.assert.match(await page.textContent('[data-testid="hashed-note"]'), /no toy vector for this word.*Nothing here is trained/);
      t.assert.ok(await page.isVisible('[data-testid="hashed-note"]'));
      t.assert.match(await page.textContent('[data-testid="caption"]'), /no toy vector: its vector is random|have no toy vectors:/);
      await page.fill('[data-testid="sentences"]', 'hello');
      await page.waitForSelector('[data-testid="caption"]', { state: 'detached' });
      await page.fill('[data-testid="sentences"]', 'I bought a baseball bat');
      await page.waitForSelector('[data-testid="caption"]');
      t.assert.equal(await page.textContent('[data-testid="start-lesson"]'), 'Start the lesson: The baseball bat');
      await page.click('[data-testid="start-lesson"]');
      await page.waitForSelector('[data-testid="lesson-text"]');
      t.assert.match(page.url(), /lesson=baseball-bat/);
      t.assert.equal(await page.locator('[data-testid="caption"]').count(), 0);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'teach: a word typed into the sentences is unknown until complete, and the page above the box keeps its height',
    run: async (t) => {
      for (const width of [1440, 375]) {
        const page = await t.openAt({ width, height: 900 }, '', '[data-testid="caption"]');
        const box = page.locator('[data-testid="sentences"]');
        // on a phone the controls are folded under the picture
        await box.evaluate((el) => { const fold = el.closest('details'); if (fold) fold.open = true; });
        await box.evaluate((el) => el.scrollIntoView({ block: 'center' }));
        await box.focus();
        await box.evaluate((el) => el.setSelectionRange(1, 1)); // after "I"
        const where = () => page.evaluate(() => ({
          height: document.documentElement.scrollHeight,
          box: document.querySelector('[data-testid="sentences"]').getBoundingClientRect().top + scrollY,
        }));
        const before = await where();
        await page.keyboard.press('x'); // "Ix": no toy vector, marked and explained
        await page.waitForSelector('[data-testid="tokens"] [data-source="hashed"]', { state: 'attached' });
        t.assert.ok(await page.isVisible('[data-testid="hashed-note"]'));
        t.assert.deepEqual(await where(), before, `${width} px: the mark and its note moved the page`);
        await page.keyboard.press('Backspace');
        await page.waitForSelector('[data-testid="tokens"] [data-source="hashed"]', { state: 'detached' });
        t.assert.ok(await page.isHidden('[data-testid="hashed-note"]'));
        t.assert.deepEqual(await where(), before, `${width} px: the note's going moved the page`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  fitsPhone('teach: first screen at 375 px fits', '', '[data-testid="caption"]', 'first screen at 375', 'teach-first-screen-375'),
];
