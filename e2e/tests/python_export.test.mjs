// Issue 15: the page's "Download Python" and "Download notebook" recompute the page's
// numbers with NumPy and check them. Needs the project's .venv (scripts/python-check.sh,
// which `make test` runs before the browser tests, creates it).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { holdRequests, refuseRequests } from '../lib/network.mjs';

const PYTHON = '.venv/bin/python';

async function grab(page, testid) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid="${testid}"]`)]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

export const tests = [
  {
    name: 'Download Python: the script recomputes every step with NumPy and ends "N passed, 0 failed"; a changed number fails it',
    run: async (t) => {
      t.assert.ok(existsSync(PYTHON), `${PYTHON} missing: scripts/python-check.sh creates it`);
      // cross-attention, a padded batch, causal + key/query padding under -inf (NaN rows), seeded weights
      const page = await t.gotoApp(
        's=I%20bought%20a%20baseball%20bat%0Athe%20bat&kv=le%20chat%20noir%0Aune%20batte&d=6&h=3&p=seeded&seed=9&causal=1&pad=keys_and_queries&fill=neg_inf&pe=sinusoidal',
      );
      await page.waitForSelector('canvas[data-testid="heatmap"]');
      const script = await grab(page, 'export-python');
      t.assert.equal(script.name, 'attention_lens.py');
      const dir = mkdtempSync(path.join(tmpdir(), 'al-py-'));
      const file = path.join(dir, 'attention_lens.py');
      writeFileSync(file, script.text);
      const out = execFileSync(PYTHON, [file], { encoding: 'utf8' });
      const last = out.trim().split('\n').pop();
      const m = /^(\d+) passed, 0 failed$/.exec(last);
      t.assert.ok(m && Number(m[1]) >= 14, `last line: ${last}`);
      // one expected number changed: the check must fail
      const broken = script.text.replace(/(EXPECTED\["output"\] = [\s\S]*?)(-?\d+\.\d+)/, (_, a, b) => a + (b.startsWith('-') ? '7.125' : '-7.125'));
      t.assert.notEqual(broken, script.text, 'could not find a number of EXPECTED["output"] to change');
      writeFileSync(file, broken);
      const failed = spawnSync(PYTHON, [file], { encoding: 'utf8' });
      t.assert.notEqual(failed.status, 0, 'a changed EXPECTED number must fail the script');

      const nb = await grab(page, 'export-notebook');
      t.assert.equal(nb.name, 'attention_lens.ipynb');
      const notebook = JSON.parse(nb.text);
      t.assert.equal(notebook.nbformat, 4);
      t.assert.ok(notebook.cells.some((c) => c.cell_type === 'markdown'));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'Download Python: the engine worker writes the file; the button says so while it does, and why when the worker cannot start',
    run: async (t) => {
      const page = t.page;
      const release = await holdRequests(page, '**/engine_worker_loader.js');
      await t.open('s=the%20cat%20sat&d=4&h=2', 'canvas[data-testid="heatmap"]');
      const download = page.waitForEvent('download');
      await page.click('[data-testid="export-python"]');
      await page.waitForSelector('[data-testid="export-python"][aria-busy="true"]:disabled');
      t.assert.equal((await page.textContent('[data-testid="export-python"]')).trim(), 'Writing the file…');
      t.assert.ok(await page.isDisabled('[data-testid="export-notebook"]'));
      await t.screenshot('export-writing');
      release();
      const file = await download;
      t.assert.equal(file.suggestedFilename(), 'attention_lens.py');
      t.assert.match(readFileSync(await file.path(), 'utf8'), /passed, .* failed/);
      await page.waitForSelector('[data-testid="export-python"]:enabled');
      t.assert.equal((await page.textContent('[data-testid="export-python"]')).trim(), 'Download Python');
      await t.screenshot('export-written');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'Download Python: when the worker cannot start, the page says why beside the buttons',
    run: async (t) => {
      const page = t.page;
      await refuseRequests(page, '**/engine_worker_loader.js');
      await t.open('s=the%20cat%20sat&d=4&h=2&engine=sync', 'canvas[data-testid="heatmap"]');
      await page.click('[data-testid="export-notebook"]');
      const error = await page.waitForSelector('[data-testid="export-error"][role="alert"]');
      t.assert.match(await error.textContent(), /The Python export is written by the engine worker, which is not available/);
      await page.waitForSelector('[data-testid="export-notebook"]:enabled');
      await t.screenshot('export-failed');
      t.assert.ok(t.errors().every((e) => /engine_worker_loader/.test(e)), t.errors().join('\n'));
    },
  },
];
