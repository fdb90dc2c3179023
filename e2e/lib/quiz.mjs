// A lesson's question with a number to type: shared by the browser tests of the lessons.

/** Types `answer` into the question's field and presses Enter. */
export async function typeAnswer(page, answer) {
  await page.fill('[data-testid="quiz-number"]', answer);
  await page.keyboard.press('Enter');
}

/** Types `answer` and returns the verdict's text once it shows. */
export async function verdictFor(page, answer) {
  await typeAnswer(page, answer);
  await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
  return page.textContent('[data-testid="quiz-reveal"]');
}
