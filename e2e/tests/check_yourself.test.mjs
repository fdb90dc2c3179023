// Check yourself: every lesson's last step ends with two or three fresh questions made
// and answered by the engine; a choice or a typed number gets its verdict and why.

const questions = (page) => page.$$eval('[data-testid="check-yourself"] [data-testid="check-question"]', (q) => q.length);

export const tests = [
  {
    name: 'check yourself: every lesson\'s last step has two or three questions, and only the last step',
    run: async (t) => {
      const page = await t.gotoApp('lesson=baseball-bat&ls=0');
      const ids = await page.$$eval('[data-testid="lesson-tab"]', (b) => b.map((e) => e.dataset.lesson));
      t.assert.ok(ids.length >= 12, `${ids.length} lessons`);
      for (const id of ids) {
        await page.goto(t.url(`/?lesson=${id}&ls=0`));
        await page.waitForSelector('[data-testid="lesson-text"]');
        const meta = await page.textContent('.al-lesson-meta');
        const last = Number(/step 1 of (\d+)/.exec(meta)[1]);
        t.assert.equal(await page.$('[data-testid="check-yourself"]'), null, `${id}: step 1 of ${last} has no check`);
        await page.goto(t.url(`/?lesson=${id}&ls=${last - 1}`));
        await page.waitForSelector('[data-testid="check-yourself"]');
        const n = await questions(page);
        t.assert.ok(n >= 2 && n <= 3, `${id}: ${n} questions`);
      }
    },
  },
  {
    name: 'check yourself: a wrong choice says the answer and why, a right one says right; a typed number by keyboard',
    run: async (t) => {
      const page = await t.open('lesson=baseball-bat&ls=5', '[data-testid="check-yourself"]');
      const first = page.locator('[data-testid="check-question"]').nth(0);
      t.assert.equal(await first.locator('[data-testid="check-verdict"]').isHidden(), true);
      // the right answer here is the first button (no lesson keeps its answers in one place)
      t.assert.equal(await first.locator('[data-testid="check-choice"]').first().textContent(), '"cave"');
      await first.locator('[data-testid="check-choice"]', { hasText: '"the"' }).click();
      t.assert.match(await first.locator('[data-testid="check-verdict"]').textContent(), /^Not quite: the answer is "cave"\. Its scaled scores are \[1\.73, 0\.00, 1\.15\]/);
      await first.locator('[data-testid="check-choice"]', { hasText: '"cave"' }).click();
      t.assert.match(await first.locator('[data-testid="check-verdict"]').textContent(), /^Right: "cave"\./);
      t.assert.equal(await first.locator('[data-testid="check-choice"][aria-pressed="true"]').textContent(), '"cave"');
      // the number: focus by keyboard, type, Enter
      const second = page.locator('[data-testid="check-question"]').nth(1);
      await second.locator('[data-testid="check-number"]').focus();
      await page.keyboard.type('0.5');
      await page.keyboard.press('Enter');
      t.assert.match(await second.locator('[data-testid="check-verdict"]').textContent(), /^Not quite: the answer is 0\.58\./);
      await second.locator('[data-testid="check-number"]').fill('0.575');
      await page.keyboard.press('Enter');
      t.assert.match(await second.locator('[data-testid="check-verdict"]').textContent(), /^Right: 0\.58\./);
      await second.locator('[data-testid="check-number"]').fill('lots');
      await page.keyboard.press('Enter');
      t.assert.equal(await second.locator('[data-testid="check-verdict"]').textContent(), 'Type a number, e.g. 0.25, 1/8 or 0,25.');
      await t.screenshot('check-yourself-1440');
      // presenter mode projects the step, not the check
      await page.goto(t.url('/?lesson=baseball-bat&ls=5&present=1'));
      await page.waitForSelector('[data-testid="lesson-text"]');
      t.assert.equal(await page.$('[data-testid="check-yourself"]'), null);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
