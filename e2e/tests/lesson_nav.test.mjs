// The last step of a lesson leads on to the next lesson (issue 26: no dead ends), in the
// normal view and in presenter mode, where the lesson tabs are hidden; by mouse and key.

const stepOf = (page) => page.$eval('.al-lesson-meta', (el) => el.textContent);

export const tests = [
  {
    name: 'presenter mode at 1280x720: Next stays in one place on every step of a lesson (it heads the words), clicked without aiming again',
    run: async (t) => {
      const page = t.page;
      await page.setViewportSize({ width: 1280, height: 720 });
      for (const id of ['sinks', 'mla']) {
        await t.gotoApp(`lesson=${id}&ls=0&present=1`);
        const next = page.locator('[data-testid="lesson-next"]');
        await next.waitFor();
        const where = await next.boundingBox();
        const n = Number((await stepOf(page)).match(/of (\d+)/)[1]);
        // the pointer stays where Next was on the first step, and each click moves one step
        for (let s = 1; s < n; s++) {
          await page.mouse.click(where.x + where.width / 2, where.y + where.height / 2);
          await page.waitForFunction((want) => document.querySelector('.al-lesson-meta')?.textContent.includes(`step ${want} of`), s + 1);
          const box = await next.boundingBox();
          t.assert.ok(Math.abs(box.y - where.y) < 1 && Math.abs(box.x - where.x) < 1, `${id} step ${s + 1}: Next at ${box.x},${box.y}, was ${where.x},${where.y}`);
        }
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson navigation: "Next lesson →" on the last step only, here and in presenter mode',
    run: async (t) => {
      let page = await t.gotoApp('lesson=baseball-bat&ls=0');
      const ids = await page.$$eval('[data-testid="lesson-tab"]', (tabs) => tabs.map((b) => [b.dataset.lesson, b.textContent]));
      // not before the last step
      t.assert.equal(await page.locator('[data-testid="lesson-next-lesson"]').count(), 0);
      await page.keyboard.press('End');
      await page.waitForSelector('[data-testid="lesson-next-lesson"]');
      t.assert.ok(await page.isDisabled('[data-testid="lesson-next"]'));
      const label = await page.textContent('[data-testid="lesson-next-lesson"]');
      t.assert.ok(label.includes(ids[1][1].replace(/^\d+\.\s*/, '')), `${label} names ${ids[1][1]}`);
      await page.click('[data-testid="lesson-next-lesson"]');
      await page.waitForFunction((want) => document.querySelector('.al-tab.al-selected[data-lesson]')?.dataset.lesson === want, ids[1][0]);
      t.assert.match(await stepOf(page), /step 1 of/);
      t.assert.match(page.url(), new RegExp(`lesson=${ids[1][0]}&ls=0`));
      // presenter mode at 1280 × 720, by keyboard: End, then Tab to the button and Enter
      await page.setViewportSize({ width: 1280, height: 720 });
      page = await t.gotoApp(`lesson=${ids[1][0]}&ls=0&present=1`);
      await page.keyboard.press('End');
      const button = page.locator('[data-testid="lesson-next-lesson"]');
      await button.waitFor();
      t.assert.ok(await button.isVisible());
      await button.focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction((want) => document.querySelector('.al-tab.al-selected[data-lesson]')?.dataset.lesson === want, ids[2][0]);
      t.assert.match(await stepOf(page), /step 1 of/);
      // the last lesson's last step has nowhere further to go
      page = await t.gotoApp(`lesson=${ids[ids.length - 1][0]}&ls=0`);
      await page.keyboard.press('End');
      await page.waitForFunction(() => /step (\d+) of \1/.test(document.querySelector('.al-lesson-meta')?.textContent ?? ''));
      t.assert.equal(await page.locator('[data-testid="lesson-next-lesson"]').count(), 0);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'presenter mode: a lesson menu in place of the hidden tabs; no pointer hint under the pictures',
    run: async (t) => {
      const page = await t.openAt({ width: 1280, height: 720 }, 'lesson=baseball-bat&ls=2&present=1', '[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      t.assert.equal(await page.isVisible('[data-testid="lesson-tab"]'), false, 'the tabs are hidden');
      t.assert.equal(await page.isVisible('[data-testid="readout"]'), false, 'the hint is hidden');
      const menu = page.locator('[data-testid="lesson-menu"]');
      t.assert.ok(await menu.isVisible());
      t.assert.equal(await menu.inputValue(), '0');
      // the menu and the exit button are read from the back of the room: at least the
      // words' size
      const sizes = await page.evaluate(() => {
        const px = (sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize);
        return { body: px('.al-lesson-text'), menu: px('[data-testid="lesson-menu"]'), exit: px('.al-lesson-tools [data-testid="present"]') };
      });
      t.assert.ok(sizes.menu >= sizes.body && sizes.exit >= sizes.body, JSON.stringify(sizes));
      // no lesson's title is cut: with each lesson open, the menu is at least as wide as
      // a copy of it, free to grow, showing that title (to 2 px: the two sizings round
      // differently), and it is on the screen
      const ids = JSON.parse(await (await page.request.get(t.url('/lesson-words.json'))).text()).lessons.map((l) => l.id);
      const cut = [];
      for (const id of ids) {
        await page.goto(t.url(`/?lesson=${id}&ls=0&present=1`));
        await page.waitForSelector('[data-testid="lesson-menu"]');
        cut.push(...await page.$eval('[data-testid="lesson-menu"]', (select) => {
          const box = select.getBoundingClientRect();
          const option = select.options[select.selectedIndex];
          const copy = select.cloneNode(false);
          copy.style.cssText = 'position: absolute; visibility: hidden; max-width: none; width: auto; field-sizing: fixed';
          copy.append(option.cloneNode(true));
          select.parentElement.append(copy);
          const needs = copy.getBoundingClientRect().width;
          copy.remove();
          return [
            ...(needs > box.width + 2 ? [`"${option.text}" needs ${needs.toFixed(0)} px of ${box.width.toFixed(0)}`] : []),
            ...(box.right > window.innerWidth ? [`"${option.text}": the menu ends at ${box.right.toFixed(0)} px`] : []),
          ];
        }));
      }
      t.assert.deepEqual(cut, [], 'lesson titles cut in the presenter menu at 1280 x 720');
      await page.goto(t.url('/?lesson=baseball-bat&ls=2&present=1'));
      await page.waitForSelector('[data-testid="lesson-menu"]');
      await menu.selectOption({ label: '3. Masks' });
      await page.waitForFunction(() => new URLSearchParams(location.search).get('lesson') === 'masks');
      t.assert.equal(new URL(page.url()).searchParams.get('ls'), '0');
      t.assert.equal(new URL(page.url()).searchParams.get('present'), '1');
      // a cell under the keyboard cursor is still read out
      await page.locator('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]').first().focus();
      await page.waitForSelector('[data-testid="readout"]:visible');
      // not in the normal view, where the tabs are
      await page.setViewportSize({ width: 1440, height: 900 });
      await t.gotoApp('lesson=masks&ls=0');
      t.assert.equal(await page.isVisible('[data-testid="lesson-menu"]'), false);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson navigation: a double click on Next moves one step, in every lesson, and answers nothing',
    timeoutMs: 180000,
    run: async (t) => {
      let page = await t.gotoApp('lesson=mla&ls=0');
      const ids = await page.$$eval('[data-testid="lesson-tab"]', (tabs) => tabs.map((b) => b.dataset.lesson));
      t.assert.ok(ids.includes('mla'));
      const ls = () => new URL(page.url()).searchParams.get('ls');
      for (const id of ['mla', ...ids.filter((i) => i !== 'mla')]) {
        page = await t.open(`lesson=${id}&ls=0`, '[data-testid="lesson-text"]');
        // a real double click: mousedown, mouseup, click (detail 1), then again (detail 2), dblclick
        await page.dblclick('[data-testid="lesson-next"]');
        await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '1');
        await page.waitForTimeout(400);
        t.assert.equal(ls(), '1', `${id}: a double click moved to step ${Number(ls()) + 1}`);
        t.assert.equal(await page.locator('[data-testid="quiz-reveal"]:not([hidden])').count(), 0, `${id}: a question was answered`);
        // two separate clicks still move two steps
        if (id === 'mla') {
          await page.click('[data-testid="lesson-next"]');
          await page.waitForTimeout(600);
          await page.click('[data-testid="lesson-next"]');
          await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '3');
          // and a double click on Back moves one step back
          await page.dblclick('[data-testid="lesson-back"]');
          await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '2');
          await page.waitForTimeout(400);
          t.assert.equal(ls(), '2');
          // at 1440 px, Next of step 3 sits where step 4's "Present" link comes: not followed
          page = await t.open('lesson=mla&ls=2', '[data-testid="lesson-text"]');
          await page.dblclick('[data-testid="lesson-next"]');
          await page.waitForFunction(() => new URLSearchParams(location.search).get('ls') === '3');
          await page.waitForTimeout(400);
          t.assert.equal(new URL(page.url()).searchParams.get('present'), null, 'the double click opened presenter mode');
          // into the question step: the second click lands on an answer, which it does not pick
          page = await t.open('lesson=mla&ls=4', '[data-testid="lesson-text"]');
          await page.dblclick('[data-testid="lesson-next"]');
          await page.waitForSelector('[data-testid="quiz-choice"]');
          await page.waitForTimeout(400);
          t.assert.equal(ls(), '5');
          t.assert.equal(await page.locator('[data-testid="quiz-reveal"]:not([hidden])').count(), 0, 'the double click answered the question');
          t.assert.equal(await page.locator('[data-testid="quiz-choice"][aria-pressed="true"]').count(), 0);
          // one click picks
          await page.click('[data-testid="quiz-choice"] >> nth=1');
          await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
        }
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'presenter mode at 1280x720: the baseball bat\'s five-key map has cells a room can read (the plot gives way), two keys keep the plot beside',
    run: async (t) => {
      await t.page.setViewportSize({ width: 1280, height: 720 });
      const MAP = '[data-testid="lesson-picture"] canvas[data-testid="heatmap"]';
      const PLOT = '[data-testid="lesson-picture"] [data-testid="embedding-plot"]';
      const page = await t.open('lesson=baseball-bat&ls=5&present=1', MAP);
      await page.waitForTimeout(300);
      const maps = await page.$$eval(MAP, (els) => els.map((e) => ({ cell: Number(e.dataset.cellPx), numbers: e.dataset.numbers })));
      t.assert.ok(maps.length > 0);
      for (const m of maps) {
        t.assert.ok(m.cell >= 40, `a ${m.cell} px cell`);
        t.assert.equal(m.numbers, 'shown');
      }
      t.assert.equal(await page.$(PLOT), null, 'the plot is left out beside five keys');
      const size = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
      t.assert.ok(size[0] <= 1281 && size[1] <= 721, `the page is ${size.join(' × ')} px`);
      await t.screenshot('present-baseball-6-1280');
      await page.goto(t.url('/?lesson=baseball-bat&ls=4&present=1'));
      await page.waitForSelector(PLOT);
      await page.waitForSelector(MAP);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
