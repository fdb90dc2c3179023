// Does the browser's wasm engine train exactly as the native one? Runs the induction
// configuration (the lesson's recorded run and the Learn view's preset) and the
// previous-token one in headless Chromium and natively (`train_bench losses`), and
// compares the loss before every step, bit for bit. Needs the harness built by run.sh
// (pkg/; any PROFILE) and the native example built (any optimisation level: they round
// alike):
//   cargo build --release -p attention-engine --example train_bench
//   node e2e/bench/wasm-engine/same.mjs [DIR] [STEPS]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch } from '../lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const dir = process.argv[2] ?? path.join(here, 'pkg');
const steps = Number(process.argv[3] ?? 600);
const configs = {
  induction: {
    task: 'induction', vocab: 32, T: 20, batch: 16, seed: 7, steps, d_model: 16, n_heads: 1,
    n_layers: 2, positions: 'learned', causal: true, optimizer: { kind: 'adam', lr: 0.01 },
  },
  'previous-token': {
    task: 'previous-token', vocab: 16, T: 8, batch: 32, seed: 1, steps, d_model: 16, n_heads: 2,
    n_layers: 1, positions: 'learned', causal: true, optimizer: { kind: 'adam', lr: 0.01 },
  },
};
const tmp = mkdtempSync(path.join(os.tmpdir(), 'same-'));
const server = await serve(dir);
const browser = await launch();
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.waitForFunction(() => window.ready === true);
let differ = 0;
for (const [name, config] of Object.entries(configs)) {
  const file = path.join(tmp, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const native = JSON.parse(execFileSync(path.join(root, 'target/release/examples/train_bench'),
    ['losses', file, String(steps)], { encoding: 'utf8' }));
  const wasm = await page.evaluate(([c, n]) => Array.from(window.trainLosses(c, n)), [JSON.stringify(config), steps]);
  const first = wasm.findIndex((l, i) => !Object.is(l, native[i]));
  if (first < 0 && wasm.length === native.length) {
    console.log(`${name}: ${steps} steps, every loss equal to the bit (last ${native.at(-1)})`);
  } else {
    differ += 1;
    console.log(`${name}: first differs before step ${first}: wasm ${wasm[first]}, native ${native[first]}; ` +
      `at the end wasm ${wasm.at(-1)}, native ${native.at(-1)}`);
  }
}
await browser.close();
server.close();
process.exit(differ ? 1 : 0);
