// Challenges mode (issue 25): solve challenges by typing numbers, hints one at a time,
// progress kept across a reload, 375 px.

const GOAL = '[data-testid="challenge-goal"]';

/** Types `value` into `selector` and leaves the field (Tab), as a learner would. */
async function type(page, selector, value) {
  const input = page.locator(selector);
  await input.click();
  await input.fill(String(value));
  await input.press('Tab');
}

const met = (page) => page.getAttribute(GOAL, 'data-met');

async function open(t, id) {
  const page = await t.open(`challenge=${id}`, id ? '[data-testid="challenge"]' : '[data-testid="challenges"]');
  return page;
}

const emb = (word, dim) => `[data-testid="challenge-embedding"][data-word="${word}"][data-dim="${dim}"]`;
const cell = (m, i, j) => `[data-testid="challenge-matrix-input"][data-matrix="${m}"][data-row="${i}"][data-col="${j}"]`;

export const tests = [
  {
    name: 'challenge: cat-mat solved by typing an embedding; a wrong attempt stays false',
    run: async (t) => {
      const page = await open(t, 'cat-mat');
      t.assert.equal(await met(page), 'false');
      // a wrong attempt: mat's animal number 1 (cat · mat = 2 < cat · cat = 4)
      await type(page, emb('mat', 1), 1);
      t.assert.equal(await met(page), 'false');
      t.assert.equal(await page.locator('[data-testid="challenge-solution"]').count(), 0);
      await type(page, emb('mat', 1), 3);
      await page.waitForSelector(`${GOAL}[data-met="true"]`);
      t.assert.ok((await page.textContent('[data-testid="challenge-why"]')).includes('q'));
      t.assert.equal(await page.locator('[data-testid="challenge-solution"]').count(), 1);
      await t.screenshot('challenge-cat-mat-met');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: a number applies as it is typed (no blur), in the text colour; every token\'s vector is shown',
    run: async (t) => {
      const page = await open(t, 'cat-mat');
      // cat's own vector, which the story and the hints reason with, is in the inputs table
      const inputs = page.locator('[data-testid="challenge-inputs"]');
      t.assert.equal(await inputs.count(), 1);
      t.assert.deepEqual(
        await inputs.locator('tr:has(th:text-is("cat")) td').allTextContents(),
        ['0', '2', '0'],
      );
      // the field keeps the focus and the goal follows each keystroke
      const field = page.locator(emb('mat', 1));
      await field.click();
      await field.fill('');
      await page.keyboard.type('3');
      await page.waitForSelector(`${GOAL}[data-met="true"]`);
      t.assert.ok(await field.evaluate((el) => el === document.activeElement), 'still typing in the field');
      t.assert.match(await page.textContent('[data-testid="challenge-progress"]'), /^query cat → key mat: /);
      // a value is drawn in the text colour, not a placeholder's grey
      const [value, text] = await field.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(document.body).color]);
      t.assert.equal(value, text);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: a lone "-" in an editor marks the field invalid with what it expects; the last number stays in use until the text is a number',
    run: async (t) => {
      const page = await open(t, 'cat-mat');
      const field = page.locator(emb('mat', 1));
      const matRow = page.locator('[data-testid="challenge-inputs"] tr:has(th:text-is("mat")) td');
      await field.click();
      await field.fill('');
      await page.keyboard.type('3');
      await page.waitForSelector(`${GOAL}[data-met="true"]`);
      t.assert.equal(await field.getAttribute('aria-invalid'), null);
      // start a negative number: the field holds "-", which is not a number yet
      await field.fill('');
      await page.keyboard.type('-');
      await page.waitForSelector(`${emb('mat', 1)}[aria-invalid="true"]`);
      const id = await field.getAttribute('aria-describedby');
      const message = page.locator(`#${id}`);
      t.assert.ok(await message.isVisible(), 'the message is shown');
      t.assert.equal(await message.textContent(), 'Type a number, e.g. -0.5; 3 is still in use.');
      // the last number is still the one in use: the goal and the tables are unchanged
      t.assert.equal(await met(page), 'true');
      t.assert.equal((await matRow.allTextContents())[1], '3');
      const box = await message.boundingBox();
      t.assert.ok(box && box.width > 0 && box.height > 0, 'the message has a box');
      await t.screenshot('challenge-entry-invalid');
      // "-2" reads: the mark and the message go, and -2 is used
      await page.keyboard.type('2');
      await page.waitForFunction((sel) => !document.querySelector(sel).hasAttribute('aria-invalid'), emb('mat', 1));
      t.assert.equal(await field.getAttribute('aria-describedby'), null);
      t.assert.equal(await message.isVisible(), false);
      t.assert.equal((await matRow.allTextContents())[1], '-2');
      t.assert.equal(await met(page), 'false');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: a number entry reads a decimal comma as the lesson answers do; "1 5" is marked, never another number',
    run: async (t) => {
      const page = await open(t, 'cat-mat');
      const field = page.locator(emb('mat', 0));
      const sports = async () => (await page.locator('[data-testid="challenge-inputs"] tr:has(th:text-is("mat")) td').allTextContents())[0];
      // typed with the keyboard, as a person would: each text is read as meant, or marked
      for (const [typed, read] of [['1,5', '1.5'], ['1.5', '1.5'], ['-1,5', '-1.5'], ['1,000', '1000'], ['1 5', null], ['0,25', '0.25']]) {
        await field.click();
        await page.keyboard.press('Control+A');
        await page.keyboard.type(typed);
        if (read === null) {
          await page.waitForSelector(`${emb('mat', 0)}[aria-invalid="true"]`);
          const message = page.locator(`#${await field.getAttribute('aria-describedby')}`);
          // typed key by key, "1" read as 1 before the space; "1 5" could be 15 or 1.5: neither is guessed
          t.assert.equal(await message.textContent(), 'Type a number, e.g. -0.5; 1 is still in use.', typed);
          t.assert.equal(await sports(), '1', `${typed}: the last number stays`);
        } else {
          await page.waitForFunction((want) => [...document.querySelectorAll('[data-testid="challenge-inputs"] tr')]
            .find((tr) => tr.querySelector('th')?.textContent === 'mat')?.querySelector('td')?.textContent === want, read);
          t.assert.equal(await sports(), read, typed);
          t.assert.equal(await field.getAttribute('aria-invalid'), null, typed);
          t.assert.equal(await field.inputValue(), typed, `${typed}: the text stays as typed`);
        }
      }
      // the arrows step by 0.1 from the number in use
      await page.keyboard.press('ArrowUp');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="challenge-inputs"] tr')]
        .find((tr) => tr.querySelector('th')?.textContent === 'mat')?.querySelector('td')?.textContent === '0.35');
      t.assert.equal(await field.inputValue(), '0.35');
      t.assert.equal(await field.getAttribute('inputmode'), 'decimal');
      await t.screenshot('challenge-entry-comma');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: the message under an entry moves no field of its row (1440 and 375 px)',
    run: async (t) => {
      for (const width of [1440, 375]) {
        const page = await t.openAt({ width, height: 900 }, 'challenge=cat-mat', '[data-testid="challenge"]');
        const tops = () => page.$$eval('[data-testid="challenge-embedding"]', (els) => els.map((e) => {
          const r = e.getBoundingClientRect();
          return [Math.round(r.left), Math.round(r.top)];
        }));
        const before = await tops();
        const field = page.locator(emb('mat', 0));
        await field.click();
        await page.keyboard.press('Control+A');
        await page.keyboard.type('-');
        await page.waitForSelector(`${emb('mat', 0)}[aria-invalid="true"]`);
        t.assert.deepEqual(await tops(), before, `${width} px: the fields stay put, neither pushed aside nor down`);
        // the brackets (and, on a wide screen, the word) stay on the fields' line
        const line = await page.$eval('.al-emb-row', (row) => {
          const mid = (e) => { const r = e.getBoundingClientRect(); return Math.round(r.top + r.height / 2); };
          const on = [...row.querySelectorAll('.al-emb-bracket, input')];
          if (window.innerWidth > 480) on.push(row.querySelector('code'));
          return on.map(mid);
        });
        t.assert.ok(Math.max(...line) - Math.min(...line) <= 3, `${width} px: ${line}`);
        await t.screenshot(`challenge-entry-message-${width}`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: previous-token shows PE and x + PE once the positions are on; its goal names the first query',
    run: async (t) => {
      const page = await open(t, 'previous-token');
      t.assert.match(await page.textContent(GOAL), /every query after the first/);
      t.assert.equal(await page.locator('[data-testid="challenge-inputs"]').count(), 1);
      await page.check('[data-testid="challenge-positions"]');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="challenge-inputs"]').length === 3);
      const captions = await page.locator('[data-testid="challenge-inputs"] caption').allTextContents();
      t.assert.ok(captions[1].startsWith('PE') && captions[2].startsWith('x + PE'), captions.join(' | '));
      // PE(1) = [sin 1, cos 1]
      t.assert.deepEqual(
        await page.locator('[data-testid="challenge-inputs"] >> nth=1').locator('tbody tr >> nth=1').locator('td').allTextContents(),
        ['0.84', '0.54'],
      );
      await t.screenshot('challenge-previous-token-positions');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: uniform solved by typing zeros into W_Q',
    run: async (t) => {
      const page = await open(t, 'uniform');
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) {
          if (i === 2 && j === 2) t.assert.equal(await met(page), 'false');
          await type(page, cell('w_q', i, j), 0);
        }
      }
      await page.waitForSelector(`${GOAL}[data-met="true"]`);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: previous-token solved with positions and W_Q',
    run: async (t) => {
      const page = await open(t, 'previous-token');
      await page.check('[data-testid="challenge-positions"]');
      t.assert.equal(await met(page), 'false');
      await type(page, cell('w_q', 0, 0), 5.4);
      await type(page, cell('w_q', 0, 1), 8.4);
      await type(page, cell('w_q', 1, 0), -8.4);
      await type(page, cell('w_q', 1, 1), 5.4);
      await page.waitForSelector(`${GOAL}[data-met="true"]`);
      await t.screenshot('challenge-previous-token-met');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: hints one at a time, solution on request',
    run: async (t) => {
      const page = await open(t, 'bat-baseball');
      const hints = () => page.locator('[data-testid="challenge-hint"]').count();
      t.assert.equal(await hints(), 0);
      await page.click('[data-testid="challenge-next-hint"]');
      t.assert.equal(await hints(), 1);
      await page.click('[data-testid="challenge-next-hint"]');
      t.assert.equal(await hints(), 2);
      await page.click('[data-testid="challenge-next-hint"]');
      t.assert.equal(await hints(), 3);
      t.assert.ok(await page.isDisabled('[data-testid="challenge-next-hint"]'));
      t.assert.equal(await page.locator('[data-testid="challenge-solution"]').count(), 0);
      await page.click('[data-testid="challenge-show-solution"]');
      t.assert.ok(await page.isVisible('[data-testid="challenge-solution"]'));
      t.assert.equal(await met(page), 'false');
      await t.screenshot('challenge-hints');
    },
  },
  {
    name: 'challenge: progress survives a reload and can be cleared; the tab opens the list',
    run: async (t) => {
      const page = await open(t, 'cat-mat');
      await type(page, emb('mat', 1), 3);
      await page.waitForSelector(`${GOAL}[data-met="true"]`);
      await page.reload();
      await page.waitForSelector('[data-testid="challenge"]');
      t.assert.equal(await page.locator('[data-testid="challenge-item"][data-id="cat-mat"] .al-solved').count(), 1);
      await page.click('[data-testid="challenge-clear"]');
      t.assert.equal(await page.locator('.al-solved').count(), 0);
      await page.reload();
      await page.waitForSelector('[data-testid="challenge"]');
      t.assert.equal(await page.locator('.al-solved').count(), 0);
      // the mode tabs
      await page.click('[data-testid="mode-explorer"]');
      t.assert.equal(await page.locator('[data-testid="challenge"]').count(), 0);
      await page.click('[data-testid="mode-challenges"]');
      await page.click('[data-testid="challenge-item"][data-id="uniform"]');
      await page.waitForSelector('[data-testid="challenge"]');
      t.assert.ok(page.url().includes('challenge=uniform'));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: works without storage',
    run: async (t) => {
      await t.page.addInitScript(() => {
        Object.defineProperty(window, 'localStorage', { get() { throw new Error('denied'); } });
      });
      const page = await open(t, 'cat-mat');
      await type(page, emb('mat', 1), 3);
      await page.waitForSelector(`${GOAL}[data-met="true"]`);
      await page.click('[data-testid="challenge-clear"]');
      t.assert.equal(await page.locator('[data-testid="panic"]').count(), 0);
    },
  },
  {
    name: 'challenge: import as JSON, bad JSON gives a clear error, the link carries it',
    run: async (t) => {
      const page = await open(t, '');
      await page.click('summary:has-text("Import a challenge")');
      await page.fill('[data-testid="challenge-import"]', '{"id": 3}');
      await page.click('[data-testid="challenge-import-go"]');
      t.assert.ok((await page.textContent('[data-testid="challenge-import-error"]')).startsWith('not a challenge'));
      const json = JSON.stringify({
        id: 'my-one', title: 'Mine', story: 'Make the look at flew.',
        scenario: { sentences: ['the bat flew'], d_model: 3, n_heads: 1, projections: 'identity' },
        editable: { embeddings: ['flew'] },
        goal: { kind: 'attend_most', query: 'the', key: 'flew' },
        hints: ['the = [0, 0, 1]'],
        solution: [{ edit: 'embedding', word: 'flew', vector: [0, 0, 3] }],
      });
      await page.fill('[data-testid="challenge-import"]', json);
      await page.click('[data-testid="challenge-import-go"]');
      await page.waitForSelector('[data-testid="challenge"] h2:has-text("Mine")');
      const url = page.url();
      t.assert.ok(url.includes('#c=1.'), url);
      const again = await t.page.context().newPage();
      await again.goto(url);
      await again.waitForSelector('[data-testid="challenge"] h2:has-text("Mine")');
      await type(again, emb('flew', 2), 3);
      await again.waitForSelector(`${GOAL}[data-met="true"]`);
    },
  },
  {
    name: 'challenge: 375 px, no horizontal scroll, the goal visible',
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      for (const id of ['gqa-heads', 'two-heads', 'fill-leak']) {
        const page = await open(t, id);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
        t.assert.equal(wide, false, id);
        await page.locator(GOAL).scrollIntoViewIfNeeded();
        t.assert.ok(await page.isVisible(GOAL));
        await t.screenshot(`challenge-375-${id}`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'challenge: on a phone, a challenge picked from the list below it scrolls up into view',
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 700 });
      const page = await open(t, 'cat-mat');
      // the open challenge sits above the list on a phone: scroll down to the list and pick another
      const item = page.locator('[data-testid="challenge-item"][data-id="uniform"]');
      await item.scrollIntoViewIfNeeded();
      t.assert.ok(await page.evaluate(() => document.querySelector('#al-challenge-title').getBoundingClientRect().bottom < 0), 'the list is scrolled past the challenge');
      await item.click();
      await page.waitForFunction(() => {
        const h = document.querySelector('#al-challenge-title');
        const r = h && h.getBoundingClientRect();
        return r && /Everyone looks everywhere/.test(h.textContent) && r.top >= 0 && r.top < innerHeight;
      });
      await t.screenshot('challenge-375-picked', { fullPage: false });
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
