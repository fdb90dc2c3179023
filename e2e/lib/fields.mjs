// A control's message in the explorer: the error beside a field, and a bad value typed,
// refused and then fixed; and a value typed as a learner types it. Shared by the browser
// tests of the options.

/** The message beside the field holding `testid`. */
export const fieldError = (page, testid) =>
  page.locator(`.al-field:has([data-testid="${testid}"]) [data-testid="error"], .al-field-group:has([data-testid="${testid}"]) [data-testid="error"]`);

/** Types `bad` into the field `testid` and waits for its message, which must match
 *  `message`; then types `good` and waits for the message to go. */
export async function refusedThenFixed(t, page, testid, bad, message, good) {
  await page.fill(`[data-testid="${testid}"]`, bad);
  await fieldError(page, testid).waitFor();
  t.assert.match(await fieldError(page, testid).textContent(), message);
  await page.fill(`[data-testid="${testid}"]`, good);
  await fieldError(page, testid).waitFor({ state: 'detached' });
}

/** Types `value` into `selector` and leaves the field (Tab), as a learner would. */
export async function typeAndLeave(page, selector, value) {
  await page.fill(selector, value);
  await page.press(selector, 'Tab');
}
