// The reading layer (issue 26): every heatmap says in words what its rows and columns are.

const card = (step) => `figure.al-card:has(canvas[data-testid="heatmap"][data-step="${step}"])`;

export const tests = [
  {
    name: 'reading: every heatmap has axis titles in words (queries ↓, keys →, features →)',
    run: async (t) => {
      let page = await t.gotoApp('s=the%20cat%20sat&d=4&h=2&p=seeded&step=weights');
      await page.waitForSelector(card('weights'));
      const titles = await page.$$eval(`${card('weights')} [data-testid="axis-titles"]`, (els) => els.map((e) => e.textContent));
      t.assert.ok(titles.length >= 2, 'one per head');
      for (const text of titles) t.assert.equal(text, 'rows: queries ↓ (who is looking) · columns: keys → (who is looked at)');
      page = await t.gotoApp('s=the%20cat%20sat&d=4&h=2&p=seeded&step=x');
      await page.waitForSelector(card('x'));
      t.assert.equal(await page.textContent(`${card('x')} [data-testid="axis-titles"]`), 'rows: queries ↓ (who is looking) · columns: features →');
      // a lesson's picture too, and every card on the page has its line
      page = await t.gotoApp('lesson=baseball-bat&ls=0');
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      const [cards, lines] = await page.$$eval('[data-testid="lesson-picture"] figure.al-card:not([hidden]):has(canvas[data-testid="heatmap"])', (els) =>
        [els.length, els.filter((e) => e.querySelector('[data-testid="axis-titles"]')?.textContent.includes('↓')).length]);
      t.assert.ok(cards >= 1 && lines === cards, `${lines} of ${cards} cards have axis titles`);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
