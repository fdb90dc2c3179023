// Reading the explorer's trace in a page: a step's table of numbers, whether a pipeline
// step is listed, and a step's shape line. Shared by the browser tests of the options.

/** The table of numbers of `step`, for one head and sentence. */
export const table = (step, head = 0, batch = 0) =>
  `table[data-testid="matrix-table"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;

/** The numbers of that table, row by row, as the page holds them (data-value). */
export const values = (page, step, head = 0, batch = 0) =>
  page.$$eval(`${table(step, head, batch)} tbody tr`, (rows) =>
    rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));

/** Waits until the pipeline lists `step` (or, with `present` false, no longer lists it). */
export const waitStep = (page, step, present = true) =>
  page.waitForFunction(([s, p]) => !!document.querySelector(`[data-testid="trace-step"][data-step="${s}"]`) === p, [step, present]);

/** The app at `query`, once the pipeline lists `step`. */
export async function openAtStep(t, query, step) {
  const page = await t.gotoApp(query);
  await waitStep(page, step);
  return page;
}

/** The shape line of pipeline step `step`. */
export const shape = (page, step) =>
  page.textContent(`[data-testid="trace-step"][data-step="${step}"] [data-testid="step-shape"]`);
