// The app loads, draws, and redraws when you type (issue 3's harness checks).
import { canvasHash, tableValues } from '../lib/canvas.mjs';

const heatmap = (step, head = 0, batch = 0) =>
  `canvas[data-testid="heatmap"][data-step="${step}"][data-head="${head}"][data-batch="${batch}"]`;

export const tests = [
  {
    name: 'page loads with no console error and no failed request, and draws a heatmap',
    run: async (t) => {
      const page = await t.open('', heatmap('weights'));
      const hash = await canvasHash(page, heatmap('weights'));
      t.assert.notEqual(hash, 'empty');
      // a drawn canvas is not one flat colour: its hash differs from a blank canvas of its size
      const blank = await page.$eval(heatmap('weights'), (c) => {
        const b = document.createElement('canvas');
        b.width = c.width; b.height = c.height;
        return b.toDataURL() === c.toDataURL();
      });
      t.assert.equal(blank, false, 'the heatmap canvas is blank');
      await t.screenshot('default-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'typing a sentence changes the tokens and the heatmap pixels',
    run: async (t) => {
      const page = await t.open('', heatmap('weights'));
      const before = await canvasHash(page, heatmap('weights'));
      const tokensBefore = await page.textContent('[data-testid="tokens"][data-batch="0"]');
      await page.fill('[data-testid="sentences"]', 'The cat sat on the mat');
      await page.waitForFunction(
        (prev) => document.querySelector('[data-testid="tokens"][data-batch="0"]')?.textContent !== prev,
        tokensBefore,
      );
      const tokens = await page.$$eval('[data-testid="tokens"][data-batch="0"] li', (els) => els.map((e) => e.textContent));
      t.assert.deepEqual(tokens, ['The', 'cat', 'sat', 'on', 'the', 'mat']);
      const after = await canvasHash(page, heatmap('weights'));
      t.assert.notEqual(after, before, 'canvas pixels did not change');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'the weights table agrees with seed 003 (baseball bat, identity, d_model 3)',
    run: async (t) => {
      const page = await t.open('s=baseball%20bat&d=3&h=1&p=identity&pad=none', 'table[data-testid="matrix-table"][data-step="weights"]', { state: 'attached' });
      const w = await tableValues(page, 'table[data-testid="matrix-table"][data-step="weights"][data-head="0"]');
      const num = w.map((r) => r.map(Number));
      const want = [[0.7604, 0.2396], [0.5, 0.5]];
      for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) {
        t.assert.ok(Math.abs(num[i][j] - want[i][j]) < 5e-5, `weights[${i}][${j}] = ${num[i][j]}`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'the app works under a sub-path (static hosting at /attention-lens/)',
    run: async (t) => {
      const page = t.page;
      await page.goto(t.url('/attention-lens/'));
      await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached', timeout: 20000 });
      await page.waitForSelector(heatmap('weights'));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'focusing a heatmap and using the arrow keys reads query, key, value (4 decimals) and row sum',
    run: async (t) => {
      const canvas = heatmap('weights');
      const page = await t.open('s=baseball%20bat&d=3&h=1&p=identity&pad=none', canvas);
      await page.focus(canvas);
      const readout = () => page.textContent('[data-testid="readout"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="readout"]').textContent.includes('query'));
      t.assert.match(await readout(), /query “baseball” → key “baseball”: 0\.7604 · row sum 1/);
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.querySelector('[data-testid="readout"]').textContent.includes('key “bat”'));
      t.assert.match(await readout(), /query “baseball” → key “bat”: 0\.2396/);
      await page.keyboard.press('ArrowDown');
      await page.waitForFunction(() => document.querySelector('[data-testid="readout"]').textContent.includes('query “bat”'));
      t.assert.match(await readout(), /query “bat” → key “bat”: 0\.5 · row sum 1/);
      // the pointer: the bottom-right cell is under the canvas's grid, left of the colour bar
      const box = await page.$eval(canvas, (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
      await page.mouse.move(box.x + 5, box.y + 5);
      await page.waitForFunction(() => !document.querySelector('[data-testid="readout"]').textContent.includes('→'));
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
