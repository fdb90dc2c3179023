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
      const page = await t.openAt({ width: 375, height: 800 }, query, selector);
      await noOverflow(t, page, what);
      await t.screenshot(shot);
      t.assert.deepEqual(t.errors(), []);
    },
  };
}

/**
 * The tables on the page that are cut: a table wider than a box that clips it, unless that
 * box is its own labelled scroll region (role="region", aria-label, overflow auto), which
 * must then fit in turn; and the page wider than its window. Tables in a closed <details>
 * are not shown and not counted. Each problem as a sentence.
 */
export async function cutTables(page) {
  return page.evaluate(() => {
    const out = [];
    for (const table of document.querySelectorAll('table')) {
      if (!table.getClientRects().length || table.closest('details:not([open])')) continue;
      let box = table.getBoundingClientRect();
      if (box.width === 0) continue;
      const what = table.dataset.testid || (table.caption && table.caption.textContent.slice(0, 50)) || table.className;
      for (let el = table.parentElement; el && el !== document.body; el = el.parentElement) {
        const style = getComputedStyle(el);
        if (style.overflowX === 'visible') continue;
        const clip = el.getBoundingClientRect();
        if (box.right <= clip.right + 1 && box.left >= clip.left - 1) continue;
        const region = (style.overflowX === 'auto' || style.overflowX === 'scroll')
          && el.getAttribute('role') === 'region' && el.getAttribute('aria-label');
        if (!region) {
          out.push(`"${what}" is cut by ${Math.round(box.right - clip.right)} px (${el.className || el.tagName})`);
          break;
        }
        box = clip;
      }
      if (box.right > window.innerWidth + 1) out.push(`"${what}" ends ${Math.round(box.right - window.innerWidth)} px past the window`);
    }
    const wide = document.documentElement.scrollWidth - window.innerWidth;
    if (wide > 1) out.push(`the page is ${wide} px wider than the window`);
    return out;
  });
}

/** The labelled scroll regions on the page whose table does not fit: their names. */
export async function scrollingRegions(page) {
  return page.$$eval('.al-table-wrap[role="region"]', (els) => els
    .filter((e) => e.getClientRects().length && !e.closest('details:not([open])') && e.scrollWidth > e.clientWidth + 1)
    .map((e) => `${e.getAttribute('aria-label')}: ${e.scrollWidth} px in ${e.clientWidth}`));
}
