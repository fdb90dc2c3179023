// A box whose table is wider than itself says so (index.html marks it data-more="right",
// "left" or "both", and the stylesheet fades that edge). The marks are kept by a
// ResizeObserver, not by a pass over the page after every change, so these tests hold
// that they stay right where the page changes under them: on a new step, after the
// learner's edit, on a resize and after a scroll.

const SEL = '.al-table-wrap, .al-table-scroll, .al-similarity, .al-tiles-figure, .al-conventions figure';

// For every box on the page that is drawn (not inside a closed <details>, whose content the
// browser does not lay out, so has nothing to fade): the mark it has and the one its sizes
// call for now.
const marks = (page) => page.evaluate((sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility()).map((el) => {
  const hidden = el.scrollWidth - el.clientWidth > 1;
  const left = el.scrollLeft > 1;
  const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
  const want = !hidden ? '' : left && right ? 'both' : right ? 'right' : 'left';
  return { cls: el.className, have: el.getAttribute('data-more') || '', want };
}), SEL);

// Open every table on the page, as a learner opening each card's numbers.
const openAll = (page) => page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));

// Two frames: the ResizeObserver reports after the layout of the frame that changed.
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function holds(t, page, where) {
  await settle(page);
  const all = await marks(page);
  const wrong = all.filter((m) => m.have !== m.want);
  t.assert.deepEqual(wrong, [], `${where}: marks that do not match the box (${all.length} boxes)`);
  return all;
}

export const tests = [
  {
    name: 'scroll hint: on a phone, opening a card\'s cut table marks it "right", then "left" when scrolled to the end, then "right" again when scrolled back',
    run: async (t) => {
      const page = await t.openAt({ width: 375, height: 812 }, 'lesson=shapes&ls=0', 'details.al-table > summary');
      t.assert.deepEqual((await holds(t, page, 'shapes step 1 at 375, table closed')).map((m) => m.have), []);
      await page.click('details.al-table > summary');
      const all = await holds(t, page, 'shapes step 1 at 375, table open');
      t.assert.deepEqual(all.map((m) => m.have), ['right']);
      const box = await page.$(`:is(${SEL})[data-more="right"]`);
      await box.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
      await settle(page);
      t.assert.equal(await box.getAttribute('data-more'), 'left');
      await box.evaluate((el) => { el.scrollLeft = 40; });
      await settle(page);
      t.assert.equal(await box.getAttribute('data-more'), 'both');
      await box.evaluate((el) => { el.scrollLeft = 0; });
      await settle(page);
      t.assert.equal(await box.getAttribute('data-more'), 'right');
      await t.screenshot('scroll-hint-shapes-375', { fullPage: false });
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'scroll hint: the marks follow the page through steps, a resize and the learner\'s edits',
    run: async (t) => {
      const page = await t.openAt({ width: 375, height: 812 }, 'lesson=shapes&ls=0', '[data-testid="lesson-text"]');
      for (let ls = 0; ls < 4; ls++) {
        await t.gotoApp(`lesson=shapes&ls=${ls}`);
        await page.waitForSelector('[data-testid="lesson-text"]');
        await openAll(page);
        await holds(t, page, `shapes step ${ls + 1} at 375`);
      }
      // a wider window shows the whole table: the marks go
      await page.setViewportSize({ width: 1440, height: 900 });
      await holds(t, page, 'shapes after a resize to 1440');
      await page.setViewportSize({ width: 375, height: 812 });
      await holds(t, page, 'shapes after a resize back to 375');
      // the explorer: each edit changes the tables' widths in place
      await t.openAt({ width: 375, height: 812 }, 'd=16&h=2', 'canvas[data-testid="heatmap"]');
      await openAll(page);
      const before = await holds(t, page, 'explorer at 375');
      t.assert.ok(before.some((m) => m.have === 'right'), `the explorer's tables at d_model 16 on a phone: ${JSON.stringify(before)}`);
      const ta = page.locator('[data-testid="sentences"]');
      for (const text of ['The cat sat on the mat', 'The extraordinarily long-winded cat sat on the mat', 'a b']) {
        await ta.evaluate((el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, text);
        await page.waitForTimeout(300);
        await openAll(page);
        await holds(t, page, `explorer after typing "${text}"`);
      }
      // the step's table of X (token × feature), cut on a phone, scrolled to its end: more
      // features (the same rows) make the table wider, and the box now hides a part on
      // both sides
      await t.openAt({ width: 375, height: 812 }, 's=the+cat+sat&d=8&h=1&step=x', 'canvas[data-testid="heatmap"]');
      await openAll(page);
      const cut = await holds(t, page, 'explorer X at d_model 8');
      t.assert.ok(cut.some((m) => m.have === 'right'), JSON.stringify(cut));
      const box = await page.$(`:is(${SEL})[data-more="right"]`);
      await box.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
      await settle(page);
      t.assert.equal(await box.getAttribute('data-more'), 'left');
      const size = () => box.evaluate((el) => ({ sw: el.scrollWidth, w: el.clientWidth, h: el.clientHeight }));
      const was = await size();
      await page.$eval('[data-testid="d-model"]', (el) => { el.value = '16'; el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true })); });
      await page.waitForTimeout(300);
      await holds(t, page, 'explorer X at d_model 16 after 8');
      const now = await size();
      t.assert.ok(now.sw > was.sw, `the table grew: ${JSON.stringify([was, now])}`);
      t.assert.equal(await box.evaluate((el) => `${el.isConnected} ${el.getAttribute('data-more')}`), 'true both');
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
