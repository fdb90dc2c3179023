// Layout checks shared by the browser tests.

/**
 * Fails when the page is wider than its window by more than `slack` CSS px; `what` names
 * the page in the message.
 */
export async function noOverflow(t, page, what, slack = 0) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  t.assert.ok(overflow <= slack, `${what}: ${overflow} px too wide`);
}
