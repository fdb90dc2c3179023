// The reading layer (issue 26): every heatmap says in words what its rows and columns are.

const card = (step) => `figure.al-card:has(canvas[data-testid="heatmap"][data-step="${step}"])`;

export const tests = [
  {
    name: 'reading: every heatmap has axis titles in words (queries ↓, tokens ↓, keys →, features →)',
    run: async (t) => {
      let page = await t.gotoApp('s=the%20cat%20sat&d=4&h=2&p=seeded&step=weights');
      await page.waitForSelector(card('weights'));
      const titles = await page.$$eval(`${card('weights')} [data-testid="axis-titles"]`, (els) => els.map((e) => e.textContent));
      t.assert.ok(titles.length >= 2, 'one per head');
      for (const text of titles) t.assert.equal(text, 'rows: queries ↓ (who is looking) · columns: keys → (who is looked at)');
      page = await t.gotoApp('s=the%20cat%20sat&d=4&h=2&p=seeded&step=x');
      await page.waitForSelector(card('x'));
      // x's rows are tokens, not queries looking: only a map whose columns are keys has those
      t.assert.equal(await page.textContent(`${card('x')} [data-testid="axis-titles"]`), 'rows: tokens ↓ · columns: features →');
      page = await t.gotoApp('s=the%20cat%20sat&d=4&h=2&p=seeded&step=v');
      await page.waitForSelector(card('v'));
      t.assert.equal(await page.textContent(`${card('v')} [data-testid="axis-titles"]`), 'rows: tokens\' values ↓ · columns: features →');
      // a lesson's picture too, and every card on the page has its line
      page = await t.open('lesson=baseball-bat&ls=0', '[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      const [cards, lines] = await page.$$eval('[data-testid="lesson-picture"] figure.al-card:not([hidden]):has(canvas[data-testid="heatmap"])', (els) =>
        [els.length, els.filter((e) => e.querySelector('[data-testid="axis-titles"]')?.textContent.includes('↓')).length]);
      t.assert.ok(cards >= 1 && lines === cards, `${lines} of ${cards} cards have axis titles`);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'reading: a term\'s first use in a lesson opens its meaning, and the glossary and sources are listed',
    run: async (t) => {
      const page = await t.open('lesson=baseball-bat&ls=0', '[data-testid="lesson-text"] [data-testid="term-link"]');
      const terms = await page.$$eval('[data-testid="lesson-text"] [data-testid="term-link"]', (els) => els.map((e) => e.dataset.term));
      for (const term of ['query', 'key', 'value']) t.assert.ok(terms.includes(term), `${term} in ${terms}`);
      // the words read as before: a link is the word itself
      t.assert.match(await page.textContent('[data-testid="lesson-text"]'), /its query says what it is looking for/);
      t.assert.equal(await page.locator('[data-testid="term-def"]').count(), 0);
      const link = page.locator('[data-testid="lesson-text"] [data-testid="term-link"][data-term="query"]');
      await link.focus();
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid="term-def"]');
      t.assert.match(await page.textContent('[data-testid="term-def"]'), /^query: What a word is looking for/);
      t.assert.equal(await link.getAttribute('aria-expanded'), 'true');
      await link.click();
      await page.waitForSelector('[data-testid="term-def"]', { state: 'detached' });
      // each term is linked once per lesson: step 2 does not link "query" again
      await page.click('[data-testid="lesson-next"]');
      await page.waitForFunction(() => /QKᵀ/.test(document.querySelector('[data-testid="lesson-text"]').textContent));
      const again = await page.$$eval('[data-testid="lesson-text"] [data-testid="term-link"]', (els) => els.map((e) => e.dataset.term));
      t.assert.ok(!again.includes('query'), String(again));
      // the glossary and the four sources
      await page.click('[data-testid="glossary"] > summary');
      t.assert.ok((await page.$$eval('[data-testid="glossary"] dt', (els) => els.length)) >= 10);
      await page.click('[data-testid="sources"] > summary');
      const sources = await page.$$eval('[data-testid="sources"] li b', (els) => els.map((e) => e.textContent));
      t.assert.deepEqual(sources, ['the baseball-bat tutorial', 'the multi-head attention article', 'the Masterclass chapter', 'the Annotated Transformer']);
      await t.screenshot('reading-glossary-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'reading: after a question is answered, the picture shows what it asked about',
    run: async (t) => {
      const shown = (page) => page.$$eval('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]', (els) => [...new Set(els.map((e) => e.dataset.step))]);
      // masks: the masked scores, then the weights the question asked for
      let page = await t.open('lesson=masks&ls=1', '[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      t.assert.deepEqual(await shown(page), ['masked']);
      await page.fill('[data-testid="quiz-number"]', '0.47');
      await page.press('[data-testid="quiz-number"]', 'Enter');
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"][data-step="weights"]');
      t.assert.deepEqual(await shown(page), ['weights']);
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right/);
      // cross-attention: the question about the output's shape shows the output
      page = await t.open('lesson=cross&ls=1', '[data-testid="quiz-choice"]');
      await page.click('[data-testid="quiz-choice"][data-choice="0"]');
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"][data-step="output"]');
      // word order: the dot products the answer quotes, in their own table
      page = await t.open('lesson=word-order&ls=4', '[data-testid="quiz-choice"]');
      t.assert.equal(await page.locator('[data-testid="position-similarity"]').count(), 0);
      await page.click('[data-testid="quiz-choice"] >> nth=0');
      await page.waitForSelector('[data-testid="position-similarity"]');
      const reveal = await page.textContent('[data-testid="quiz-reveal"]');
      const table = await page.textContent('[data-testid="position-similarity"]');
      for (const n of reveal.match(/\d+\.\d\d/g) ?? []) t.assert.ok(table.includes(n), `${n} of the answer is in the table`);
      await t.screenshot('reveal-word-order-1440');
      // back and forth: a step asks afresh, with its own picture
      await page.click('[data-testid="lesson-back"]');
      await page.click('[data-testid="lesson-next"]');
      await page.waitForSelector('[data-testid="position-similarity"]', { state: 'detached' });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'phone: the explorer opened at 375 px shows a heatmap on the first screen, the controls folded',
    run: async (t) => {
      const page = await t.openAt({ width: 375, height: 812 }, '', 'canvas[data-testid="heatmap"]');
      t.assert.equal(await page.$eval('[data-testid="change-numbers"]', (d) => d.open), false, 'the controls are folded');
      t.assert.equal(await page.isVisible('[data-testid="sentences"]'), false);
      const box = await page.$eval('canvas[data-testid="heatmap"]', (c) => {
        const b = c.getBoundingClientRect();
        return { top: b.top + window.scrollY, bottom: b.bottom + window.scrollY };
      });
      t.assert.ok(box.bottom <= 812, `the first heatmap ends at ${Math.round(box.bottom)} px: the whole of it on the 812 px screen`);
      t.assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll');
      // the fold opens and the controls work
      await page.click('[data-testid="change-numbers"] > summary');
      await page.fill('[data-testid="sentences"]', 'the cat sat');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="tokens"][data-batch="0"] li').length === 3);
      await t.screenshot('phone-first-screen-375');
      // a window made narrow after the page opened keeps its controls open
      await page.setViewportSize({ width: 1440, height: 900 });
      await t.gotoApp();
      await page.setViewportSize({ width: 375, height: 812 });
      t.assert.equal(await page.$('[data-testid="change-numbers"]'), null);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'reading: the ALiBi step shows BLOOM\'s row beside the words, with every number its words quote',
    run: async (t) => {
      const page = await t.open('lesson=local&ls=4', '[data-testid="lesson-aside"] table');
      const words = await page.textContent('[data-testid="lesson-text"]');
      const table = await page.textContent('[data-testid="lesson-aside"]');
      const quoted = words.match(/-?\d+\.\d\d/g) ?? [];
      t.assert.ok(quoted.length >= 20, String(quoted.length));
      for (const n of quoted) t.assert.ok(table.includes(n), `${n} of the words is in the table`);
      const rows = await page.$$eval('[data-testid="lesson-aside"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      t.assert.deepEqual(rows[2], rows[3], 'the same weights both ways');
      t.assert.notDeepEqual(rows[0], rows[1], 'different scores');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'reading: the reach step tables what "eight" can have heard of after each of the run\'s layers',
    run: async (t) => {
      const page = await t.open('lesson=local&ls=2', '[data-testid="lesson-aside"] table');
      const words = await page.textContent('[data-testid="lesson-text"]');
      // the words give the rule and point at the table, which counts each layer
      t.assert.match(words, /W − 1 = 2 positions per layer, so after L layers "eight" can have heard of L·\(W − 1\) \+ 1 positions, back to the sentence's start \(the table\)/);
      const rows = await page.$$eval('[data-testid="lesson-aside"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent)));
      t.assert.deepEqual(rows.map((r) => r.at(-1)), ['3', '5', '7', '8']);
      t.assert.deepEqual(rows[1], ['2 layers', '·', '·', '·', '●', '●', '●', '●', '●', '5']);
      for (const width of [375, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        await t.screenshot(`local-reach-${width}`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'reading: a step whose words quote numbers its heatmaps lack shows them in a table beside the words',
    run: async (t) => {
      // baseball-bat step 2 quotes QKᵀ = [[4.00, 2.00], [2.00, 2.00]] while its heatmap shows the scaled scores
      const page = await t.open('lesson=baseball-bat&ls=1', '[data-testid="lesson-aside"] table');
      const rows = await page.$$eval('[data-testid="lesson-aside"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
      t.assert.deepEqual(rows, [['"baseball"', '4.00', '2.00'], ['"bat"', '2.00', '2.00']]);
      const words = await page.textContent('[data-testid="lesson-text"]');
      t.assert.ok(words.includes('QKᵀ = [[4.00, 2.00], [2.00, 2.00]]'), words);
      // the step before has no aside
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '0');
      t.assert.equal(await page.$('[data-testid="lesson-aside"]'), null);
      // word order step 4: the slow column to four decimals, as the words write it
      await page.goto(t.url('/?lesson=word-order&ls=3'));
      await page.waitForSelector('[data-testid="lesson-aside"] table');
      const cells = await page.$$eval('[data-testid="lesson-aside"] td', (tds) => tds.map((c) => c.textContent.trim()));
      const text = await page.textContent('[data-testid="lesson-text"]');
      const fours = cells.filter((c) => /^-?\d+\.\d{4}$/.test(c));
      t.assert.equal(fours.length, 3);
      for (const c of fours) t.assert.ok(text.includes(c), `the words quote ${c}`);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
