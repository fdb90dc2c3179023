// Keys a teacher presses and what the explain panel and the tables say: lesson keys after
// any click (→ after "Lessons", PageDown/PageUp after "Next", Home/End), the explain
// panel's guess box empty on a new cell, heads numbered from 1, and feature columns of
// steps without heads labelled by feature, not by head.

const step = (page) => page.evaluate(() => Number(new URL(location.href).searchParams.get('ls')));
const waitStep = (page, n) =>
  page.waitForFunction((want) => Number(new URL(location.href).searchParams.get('ls')) === want, n);

export const tests = [
  {
    name: 'keys: after a click on Lessons, ArrowRight moves to the next step',
    run: async (t) => {
      const page = await t.gotoApp('');
      await page.click('[data-testid="mode-lessons"]');
      await page.waitForSelector('[data-testid="lesson"]');
      t.assert.equal(await step(page), 0);
      await page.keyboard.press('ArrowRight');
      await waitStep(page, 1);
      // a lesson tab is a button too
      await page.click('[data-testid="lesson-tab"][data-lesson="masks"]');
      await waitStep(page, 0);
      await page.keyboard.press('ArrowRight');
      await waitStep(page, 1);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'keys: after a click on Next, a remote\'s PageDown and PageUp move; Home and End jump',
    run: async (t) => {
      const page = await t.gotoApp('lesson=baseball-bat&ls=0');
      await page.click('[data-testid="lesson-next"]');
      await waitStep(page, 1);
      await page.keyboard.press('PageDown');
      await waitStep(page, 2);
      await page.keyboard.press('PageUp');
      await waitStep(page, 1);
      await page.keyboard.press('End');
      const last = Number(/of (\d+)/.exec(await page.textContent('.al-lesson-meta'))[1]) - 1;
      await waitStep(page, last);
      await page.keyboard.press('Home');
      await waitStep(page, 0);
      // space moves on, unless a button has the focus (space presses it)
      await page.focus('[data-testid="lesson-text"]').catch(() => {});
      await page.evaluate(() => document.activeElement?.blur());
      await page.keyboard.press(' ');
      await waitStep(page, 1);
      // a field keeps its keys: the arrows move its caret, not the lesson
      await page.click('summary:has-text("Change the numbers")');
      await page.focus('[data-testid="sentences"]');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('PageDown');
      t.assert.equal(await step(page), 1);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'keys: the explain panel\'s guess starts empty on every new cell, and heads count from 1',
    run: async (t) => {
      const canvas = 'canvas[data-testid="heatmap"][data-step="scores"][data-head="1"]';
      const page = await t.open('s=a%20b%20c&d=4&h=2&p=seeded&seed=3&step=scores', canvas);
      await page.focus(canvas);
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid="explain"]');
      await page.check('[data-testid="explain-guess-toggle"]');
      await page.fill('[data-testid="explain-guess-input"]', '0.123');
      await page.focus(canvas);
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.querySelector('[data-testid="explain"] .al-ex-title')?.textContent === 'scores[0,1,0,1]');
      t.assert.equal(await page.inputValue('[data-testid="explain-guess-input"]'), '');
      // the words say head 2 for index h = 1, as the card's title does, and say so once
      await page.uncheck('[data-testid="explain-guess-toggle"]');
      const text = await page.textContent('[data-testid="explain"]');
      t.assert.match(text, /in head 2:/);
      t.assert.doesNotMatch(text, /in head 1:/);
      t.assert.match(await page.textContent('[data-testid="explain-index-note"]'), /head 1 is h = 0/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'labels: the x columns are features, not heads; q columns keep their heads; pe rows are positions',
    run: async (t) => {
      const cols = (page, s) => page.$$eval(`table[data-testid="matrix-table"][data-step="${s}"][data-head="0"][data-batch="0"] thead th`,
        (ths) => ths.slice(1).map((th) => th.textContent));
      const rows = (page, s) => page.$$eval(`table[data-testid="matrix-table"][data-step="${s}"][data-head="0"][data-batch="0"] tbody th`,
        (ths) => ths.map((th) => th.textContent));
      let page = await t.gotoApp('s=a%20b&d=4&h=2&step=x');
      await page.waitForSelector('table[data-testid="matrix-table"][data-step="x"]', { state: 'attached' });
      t.assert.deepEqual(await cols(page, 'x'), ['f0', 'f1', 'f2', 'f3']);
      page = await t.gotoApp('s=a%20b&d=4&h=2&step=q');
      await page.waitForSelector('table[data-testid="matrix-table"][data-step="q"]', { state: 'attached' });
      t.assert.deepEqual(await cols(page, 'q'), ['h1 · 0', 'h1 · 1', 'h2 · 0', 'h2 · 1']);
      page = await t.gotoApp('s=a%20b%20c&d=4&h=2&pe=sinusoidal&step=pe');
      await page.waitForSelector('table[data-testid="matrix-table"][data-step="pe"]', { state: 'attached' });
      t.assert.deepEqual(await cols(page, 'pe'), ['sin 0', 'cos 0', 'sin 1', 'cos 1']);
      t.assert.deepEqual(await rows(page, 'pe'), ['0 (a)', '1 (b)', '2 (c)']);
      // the toy space: the baseball-bat sentence's x and output by sports, animal, other
      page = await t.gotoApp('s=I%20bought%20a%20baseball%20bat&d=3&h=1&p=identity&step=output');
      await page.waitForSelector('table[data-testid="matrix-table"][data-step="output"]', { state: 'attached' });
      t.assert.deepEqual(await cols(page, 'output'), ['sports', 'animal', 'other']);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
