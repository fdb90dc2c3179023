// Layout checks shared by the browser tests.

/**
 * Fails when the page is wider than its window by more than `slack` CSS px; `what` names
 * the page in the message.
 */
export async function noOverflow(t, page, what, slack = 0) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  t.assert.ok(overflow <= slack, `${what}: ${overflow} px too wide`);
}

/**
 * A test named `name`: in a 375 × 800 window, the app at `query`, once `selector` is on
 * the page, is no wider than the window (`what` names it); screenshot `shot`; no errors.
 */
export function fitsPhone(name, query, selector, what, shot) {
  return {
    name,
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      const page = await t.open(query, selector);
      await noOverflow(t, page, what);
      await t.screenshot(shot);
      t.assert.deepEqual(t.errors(), []);
    },
  };
}
