// More than one layer in the explorer: the layers field and the layer picker, the steps
// named with their layer, the weights of the layer picked equal to the engine's (the
// command line on the page's own exported scenario), the link and the worker carrying
// both, errors beside their fields, axe clean, 1440 and 375 px.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { assertAxeClean } from '../lib/axe.mjs';
import { noOverflow } from '../lib/layout.mjs';
import { fieldError } from '../lib/fields.mjs';
import { table, values, waitStep, openAtStep } from '../lib/trace.mjs';

const CLI = 'target/debug/examples/trace';
const BASE = 's=the%20cat%20sat%20on%20the%20mat%0Aa%20dog%20ran&d=8&h=2&p=seeded&seed=5&causal=1&pad=keys&pe=sinusoidal';

const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));

/** The page's scenario (its "Export scenario JSON") and the engine's trace of it. */
async function engineTrace(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-scenario"]')]);
  const scenario = readFileSync(await download.path(), 'utf8');
  return { scenario: JSON.parse(scenario), trace: JSON.parse(execFileSync(CLI, ['-'], { input: scenario, encoding: 'utf8' })) };
}

/** Every head of sentence `b` of the page's weights tables against the trace's weights. */
async function sameWeights(t, page, trace, b) {
  const w = trace.steps.find((s) => s.name === 'weights');
  const [, H, T, K] = w.shape;
  let compared = 0;
  for (let h = 0; h < H; h++) {
    await page.waitForSelector(table('weights', h, b), { state: 'attached' });
    const got = await values(page, 'weights', h, b);
    t.assert.equal(got.length, T);
    for (let i = 0; i < T; i++) for (let j = 0; j < K; j++) {
      const want = w.data[((b * H + h) * T + i) * K + j];
      t.assert.ok(close(got[i][j], want), `weights[${b},${h},${i},${j}]: page ${got[i][j]}, engine ${want}`);
      compared++;
    }
  }
  return compared;
}

/** Waits until the pipeline titles the weights `title`. */
const waitTitle = (page, title) => page.waitForFunction((want) =>
  document.querySelector('[data-testid="trace-step"][data-step="weights"] .al-step-name')?.textContent === want, title);

async function pickLayers(page) {
  await page.fill('[data-testid="n-layers"]', '2');
  await waitStep(page, 'resid_in');
  await waitTitle(page, 'layer 2 · weights');
}

export const tests = [
  {
    name: 'layers: 2 layers, pick a layer, its weights are the engine\'s; the link and the worker carry it',
    run: async (t) => {
      t.assert.ok(existsSync(CLI), `${CLI} missing: cargo test builds it`);
      const page = await openAtStep(t, BASE, 'weights');
      t.assert.ok(await page.isDisabled('[data-testid="layer"]'), 'one layer: nothing to pick');
      const one = await values(page, 'weights', 1, 0);
      await pickLayers(page);
      t.assert.equal(await page.inputValue('[data-testid="layer"]'), '2', 'the last layer is shown');
      // layer 1 is the one-layer run: its weights are those of before
      await page.fill('[data-testid="layer"]', '1');
      await waitTitle(page, 'layer 1 · weights');
      t.assert.deepEqual(await values(page, 'weights', 1, 0), one);
      // pick layer 2: every weight of every head and sentence is the engine's
      await page.fill('[data-testid="layer"]', '2');
      await waitTitle(page, 'layer 2 · weights');
      const { scenario, trace } = await engineTrace(page);
      t.assert.equal(scenario.n_layers, 2);
      t.assert.equal(scenario.layer, 2);
      t.assert.equal(trace.layer, 2);
      const compared = await sameWeights(t, page, trace, 0);
      t.assert.equal(compared, 2 * 6 * 6);
      t.assert.notDeepEqual(await values(page, 'weights', 1, 0), one, 'layer 2 is not layer 1');
      // the residual stream: resid_out = resid_in + output, as the pipeline shows them
      for (const name of ['resid_in', 'resid_out']) {
        t.assert.match(await page.textContent(`[data-testid="trace-step"][data-step="${name}"] .al-step-name`), /^layer 2 · /);
      }
      t.assert.equal(await page.textContent('[data-testid="trace-step"][data-step="x_pe"] .al-step-name'), 'x_pe');
      // the first screen's number says which layer it is from
      await page.click('[data-testid="trace-step"][data-step="weights"] button');
      t.assert.match(await page.textContent('[data-testid="caption"]'), /\(layer 2 of 2, head 1\)/);
      // the Python export runs both layers and checks layer 2's steps and the whole stream
      t.assert.equal(await page.locator('[data-testid="export-refusal"]').count(), 0);
      const [py] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-python"]')]);
      const script = readFileSync(await py.path(), 'utf8');
      t.assert.match(script, /\nn_layers = 2 {2}#/);
      t.assert.match(script, /\nshown = 1 {2}# the page's layer, counted from 0 \(layer 2 on the page\)/);
      t.assert.match(script, /resid_out = resid_in \+ output {2}# the residual add/);
      t.assert.match(script, /\nEXPECTED_RESID = /);
      await assertAxeClean(t, page, 'two layers, layer 2 shown');
      await page.setViewportSize({ width: 1440, height: 900 });
      await t.screenshot('layers-1440');

      // the link carries both, and a new page on the worker engine shows the same numbers
      // (of the second sentence there)
      const url = new URL(page.url());
      t.assert.equal(url.searchParams.get('layers'), '2');
      t.assert.equal(url.searchParams.get('layer'), '2');
      const again = await t.page.context().newPage();
      url.searchParams.set('b', '1');
      await again.goto(t.url(`/?${url.searchParams}&engine=worker`));
      await again.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
      await waitTitle(again, 'layer 2 · weights');
      t.assert.equal(await again.inputValue('[data-testid="n-layers"]'), '2');
      t.assert.equal(await sameWeights(t, again, trace, 1), 2 * 6 * 6);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'layers: bad values are messages beside their fields; the decode view refuses by name',
    run: async (t) => {
      const page = await openAtStep(t, BASE, 'weights');
      await page.fill('[data-testid="n-layers"]', '5');
      await fieldError(page, 'n-layers').waitFor();
      // the page's words: the field is "layers", not the engine's n_layers; a count the
      // explorer does not run is not applied (nor written into the link)
      t.assert.equal(await fieldError(page, 'n-layers').textContent(), 'layers must be a whole number from 1 to 4, not "5"; until then the page uses layers = 1');
      // a text that does not parse replaces the old message: one message, the newer
      await page.fill('[data-testid="n-layers"]', '-1');
      await page.waitForFunction(() => /"-1"/.test(document.querySelector('.al-field-group:has([data-testid="n-layers"])')?.textContent ?? ''));
      t.assert.equal(await fieldError(page, 'n-layers').count(), 1, 'one message beside the layers field');
      t.assert.match(await fieldError(page, 'n-layers').textContent(), /^layers must be a whole number from 1 to 4, not "-1"/);
      await pickLayers(page);
      await fieldError(page, 'n-layers').waitFor({ state: 'detached' });
      await page.fill('[data-testid="layer"]', '3');
      await fieldError(page, 'layer').waitFor();
      t.assert.equal(await fieldError(page, 'layer').textContent(), 'layer shown = 3, but the run has layers = 2: pick a layer from 1 to 2');
      await page.fill('[data-testid="layer"]', '1');
      await waitTitle(page, 'layer 1 · weights');
      // fewer layers than the one shown: the last is shown
      await page.fill('[data-testid="layer"]', '2');
      await waitTitle(page, 'layer 2 · weights');
      await page.fill('[data-testid="n-layers"]', '1');
      await waitStep(page, 'resid_in', false);
      t.assert.equal(await page.inputValue('[data-testid="layer"]'), '1');
      // the decoding view runs one layer: it says so, with no numbers
      const decoded = await t.page.context().newPage();
      await decoded.goto(t.url(`/?${BASE}&layers=2&view=decode`));
      await decoded.waitForSelector('[data-testid="decode-error"]');
      t.assert.match(await decoded.textContent('[data-testid="decode-error"]'), /^layers = 2: the decoding and tiles views run one layer.*set layers to 1/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'layers: at 375 px the layer fields and the cards fit, axe clean',
    run: async (t) => {
      await t.page.setViewportSize({ width: 375, height: 800 });
      const page = await t.gotoApp(`${BASE}&layers=3&layer=2`);
      await waitTitle(page, 'layer 2 · weights');
      await page.waitForSelector('canvas[data-testid="heatmap"]');
      await noOverflow(t, page, 'the explorer with 3 layers');
      await assertAxeClean(t, page, '375 px, three layers');
      await t.screenshot('layers-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
