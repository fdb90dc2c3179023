// The engine worker (issue 14): large inputs are computed off the main thread, the page
// keeps the last picture marked as computing, and only the newest input's picture is shown.
// These tests check which picture is shown, never how long anything took.
import { tableValues } from '../lib/canvas.mjs';

const SENTENCES = '[data-testid="sentences"]';
const N_HEADS = '[data-testid="n-heads"]';
// a number field's message follows its label (in the field's group); a menu's is inside it
const errorBy = (control) => `label:has(${control}) [data-testid="error"], .al-field-group:has(${control}) [data-testid="error"]`;

/** `n` sentences of `t` words each, as the latency benchmark's stress page has them. */
function sentences(n, t) {
  return Array.from({ length: n }, (_, b) =>
    Array.from({ length: t }, (_, i) => `w${(i * 7 + b * 13) % 101}`).join(' ')).join('\n');
}
const STRESS = `s=${encodeURIComponent(sentences(4, 128))}&d=256&h=8&p=seeded&pad=keys&step=weights`;
const SEED = '[data-testid="seed"]';

/** The tokens the page shows for sentence `b`. */
const tokens = (page, b = 0) => page.$$eval(`[data-testid="tokens"][data-batch="${b}"] li`,
  (lis) => lis.map((li) => li.textContent.trim()));

/** Waits until nothing is computing and sentence 1's first token is `word`. */
async function waitForFirstToken(page, word) {
  await page.waitForFunction((w) => {
    const li = document.querySelector('[data-testid="tokens"][data-batch="0"] li');
    return !document.querySelector('[data-testid="computing"]') && li && li.textContent.trim() === w;
  }, word, { timeout: 30000 });
}

/** Records warnings (the fallback says so on the console) and the worker's requests. */
function watch(page) {
  const seen = { warnings: [], workerFiles: [] };
  page.on('console', (m) => { if (m.type() === 'warning') seen.warnings.push(m.text()); });
  page.on('response', (r) => { if (/engine_worker/.test(r.url())) seen.workerFiles.push([r.url(), r.status()]); });
  return seen;
}

const workerPosts = (page) => page.evaluate(() => performance.getEntriesByName('al-worker-post').length);

// The app on the worker engine, once the worker has answered an edit ("a dog ran").
async function workerAnswered(t) {
  const page = t.page;
  await t.gotoApp('s=the%20cat%20sat&d=8&h=2&engine=worker');
  await page.fill(SENTENCES, 'a dog ran');
  await waitForFirstToken(page, 'a');
  return page;
}

// h = 3 with d_model = 8: waits for the engine's error next to h.
async function headsNotDividing(page) {
  await page.fill(N_HEADS, '3');
  await page.waitForFunction((sel) => /d_model = 8 is not divisible by h = 3/.test(document.querySelector(sel)?.textContent ?? ''),
    errorBy(N_HEADS), { timeout: 30000 });
}

export const tests = [
  {
    name: 'worker: typing fast at the stress size keeps every keystroke and shows the newest input',
    timeoutMs: 120000,
    run: async (t) => {
      const page = t.page;
      const seen = watch(page);
      // in the worker whatever the size (the page itself types at this size: next test)
      await t.open(`${STRESS}&engine=worker`, 'canvas[data-testid="heatmap"]');
      t.assert.equal((await tokens(page))[0], 'w0');
      // note whether the computing notice ever appears, and that it is announced
      await page.evaluate(() => {
        window.__alComputing = [];
        new MutationObserver(() => {
          const el = document.querySelector('[data-testid="computing"]');
          if (el) window.__alComputing.push(!!el.closest('[aria-live]') && el.offsetHeight > 0);
        }).observe(document.body, { childList: true, subtree: true });
      });
      const ta = page.locator(SENTENCES);
      await ta.evaluate((el) => { el.focus(); el.setSelectionRange(0, 0); });
      await page.keyboard.type('quick', { delay: 15 });
      // the box has every keystroke, in order, at once
      t.assert.ok((await ta.inputValue()).startsWith('quickw0 w7'), 'every keystroke arrived');
      await waitForFirstToken(page, 'quickw0');
      t.assert.equal((await tokens(page)).length, 128);
      t.assert.equal((await tokens(page, 3))[0], 'w39');
      // more edits, the last one different from all before it
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('er', { delay: 5 });
      t.assert.ok((await ta.inputValue()).startsWith('quierw0 w7'));
      await waitForFirstToken(page, 'quierw0');
      // the picture is the newest input's, and it stays so (no late, stale answer replaces it)
      await page.waitForTimeout(600);
      t.assert.equal((await tokens(page))[0], 'quierw0');
      t.assert.equal(await page.$('[data-testid="computing"]'), null);
      const computing = await page.evaluate(() => window.__alComputing);
      t.assert.ok(computing.length > 0, 'the computing notice appeared');
      t.assert.ok(computing.some((visible) => visible), 'visible, inside an aria-live region');
      t.assert.ok(await workerPosts(page) > 0, 'the worker was asked');
      t.assert.ok(seen.workerFiles.some(([u, s]) => /engine_worker_bg\.wasm$/.test(u) && s === 200));
      t.assert.deepEqual(seen.warnings.filter((w) => /worker/.test(w)), []);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'stress size, engine chosen by size: typing is computed on the page, a new seed in the worker; the newest input is shown',
    timeoutMs: 120000,
    run: async (t) => {
      const page = t.page;
      const seen = watch(page);
      await t.open(STRESS, 'canvas[data-testid="heatmap"]');
      // typing changes one sentence of four: a quarter of the work, less than the
      // worker's round trip, so the page computes it (state::work_to_do)
      const ta = page.locator(SENTENCES);
      await ta.evaluate((el) => { el.focus(); el.setSelectionRange(0, 0); });
      await page.keyboard.type('fast', { delay: 15 });
      t.assert.ok((await ta.inputValue()).startsWith('fastw0 w7'), 'every keystroke arrived');
      await waitForFirstToken(page, 'fastw0');
      t.assert.equal(await workerPosts(page), 0, 'no keystroke went to the worker');
      t.assert.equal((await tokens(page, 3))[0], 'w39');
      // a new seed changes every number: the whole run, in the worker
      await page.fill(SEED, '7');
      await page.waitForFunction(() => performance.getEntriesByName('al-worker-post').length > 0, null, { timeout: 30000 });
      await page.waitForFunction(() => !document.querySelector('[data-testid="computing"]'), null, { timeout: 30000 });
      await ta.evaluate((el) => { el.focus(); el.setSelectionRange(0, 0); });
      await page.keyboard.type('z', { delay: 15 });
      await waitForFirstToken(page, 'zfastw0');
      await page.waitForTimeout(600);
      t.assert.equal((await tokens(page))[0], 'zfastw0', 'the newest input stays on screen');
      t.assert.ok(seen.workerFiles.some(([u, s]) => /engine_worker_bg\.wasm$/.test(u) && s === 200));
      t.assert.deepEqual(seen.warnings.filter((w) => /worker/.test(w)), []);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'worker: its picture is the page engine\'s, number for number',
    run: async (t) => {
      const page = t.page;
      // the worker starts without a warning (its loader passes wasm-bindgen one object)
      const warnings = [];
      page.on('console', (m) => { if (/deprecated/i.test(m.text())) warnings.push(m.text()); });
      const text = 'the cat sat on the mat\nI bought a baseball bat';
      // computed in the worker (forced for a small input) ...
      await t.gotoApp('s=a%20b&d=6&h=3&p=seeded&seed=5&causal=1&fill=neg_inf&engine=worker');
      await page.fill(SENTENCES, text);
      await waitForFirstToken(page, 'the');
      t.assert.ok(await workerPosts(page) > 0, 'the worker was asked');
      const fromWorker = await tableValues(page, '[data-testid="matrix-table"]');
      t.assert.ok(fromWorker.length > 0);
      // ... and on the page
      await t.open(`s=${encodeURIComponent(text)}&d=6&h=3&p=seeded&seed=5&causal=1&fill=neg_inf&engine=sync`, '[data-testid="matrix-table"]', { state: 'attached' });
      t.assert.equal(await workerPosts(page), 0);
      t.assert.deepEqual(await tableValues(page, '[data-testid="matrix-table"]'), fromWorker);
      t.assert.deepEqual(warnings, []);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'worker: an engine error still shows next to its control, the last picture kept',
    run: async (t) => {
      const page = await workerAnswered(t);
      await headsNotDividing(page);
      await page.waitForSelector('[data-testid="stale"]');
      t.assert.equal((await tokens(page))[0], 'a');
      await page.fill(N_HEADS, '4');
      await page.waitForSelector('[data-testid="stale"]', { state: 'detached' });
      await page.waitForFunction(() => !document.querySelector('[data-testid="computing"]'));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'worker: its typed error shows by its control with no second engine run on the page',
    run: async (t) => {
      const page = await workerAnswered(t);
      const runs = () => page.evaluate(() => performance.getEntriesByName('al-page-run').length);
      const before = await runs();
      await headsNotDividing(page);
      // the h_kv control's error slot stays empty: the error is the worker's, by its field
      await page.fill('[data-testid="n-kv-heads"]', '5');
      await page.waitForFunction(() => /h_kv = 5 does not divide h = 3|is not divisible/.test(document.body.textContent), null, { timeout: 30000 });
      t.assert.equal(await runs(), before, 'the page did not run the engine again after the worker\'s errors');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'worker: works under a sub-path (/attention-lens/)',
    run: async (t) => {
      const page = t.page;
      const seen = watch(page);
      await page.goto(t.url('/attention-lens/?s=a%20b&d=4&h=2&engine=worker'));
      await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached', timeout: 20000 });
      await page.fill(SENTENCES, 'under a sub path');
      await waitForFirstToken(page, 'under');
      t.assert.ok(await workerPosts(page) > 0);
      const files = seen.workerFiles.map(([u, s]) => `${new URL(u).pathname} ${s}`).sort();
      t.assert.deepEqual(files, [
        '/attention-lens/engine_worker.js 200',
        '/attention-lens/engine_worker_bg.wasm 200',
        '/attention-lens/engine_worker_loader.js 200',
      ]);
      t.assert.deepEqual(seen.warnings.filter((w) => /worker/.test(w)), []);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'worker: when it cannot start, the page computes quietly itself',
    run: async (t) => {
      const page = t.page;
      // as a strict content security policy or a failed download would
      await page.route('**/engine_worker_loader.js', (route) => route.abort());
      await t.gotoApp('s=a%20b&d=4&h=2&engine=worker');
      await page.fill(SENTENCES, 'still works here');
      await waitForFirstToken(page, 'still');
      await page.fill(SENTENCES, 'and again');
      await waitForFirstToken(page, 'and');
      // the aborted request is the only complaint
      t.assert.ok(t.errors().every((e) => /engine_worker_loader/.test(e)), t.errors().join('\n'));
    },
  },
];
