// The lesson "Induction heads" (?lesson=induction): every step at 1440 px, 375 px and in
// presenter mode at 1280 × 720 shows its words and its figure (the sequence, the trained
// heads' maps drawn, the loss curve), nothing wider than the page, axe-core clean, no page
// error; the question is answered through the page and reveals the heads; the figure's
// link opens the Learn view's induction run.
import { assertAxeClean } from '../lib/axe.mjs';
import { noOverflow } from '../lib/layout.mjs';
import { canvasHash } from '../lib/canvas.mjs';

// the figure each step shows, by test id
const FIGURES = ['induction-sequence', 'induction-heads', 'induction-heads', 'induction-curve'];

/** Every step at `width × height` (with `extra` in the query), each checked and photographed. */
async function visitAll(t, width, height, extra, tag) {
  await t.page.setViewportSize({ width, height });
  const page = await t.open(`lesson=induction&ls=0${extra}`, '[data-testid="lesson-text"]');
  for (let s = 0; s < FIGURES.length; s++) {
    await page.waitForFunction((k) => new URLSearchParams(location.search).get('ls') === String(k), s);
    const text = await page.textContent('[data-testid="lesson-text"]');
    t.assert.ok(text.length > 100 && !/NaN|missing/.test(text), `step ${s + 1}: ${text}`);
    await page.waitForSelector(`[data-testid="lesson-picture"] [data-testid="${FIGURES[s]}"]`);
    for (const canvas of await page.$$(`[data-testid="${FIGURES[s]}"] canvas`)) {
      const box = await canvas.boundingBox();
      t.assert.ok(box && box.width > 100 && box.height > 100, `step ${s + 1}: a canvas of ${JSON.stringify(box)}`);
    }
    await page.waitForTimeout(150);
    await noOverflow(t, page, `induction step ${s + 1} at ${width} px${extra}`, 1);
    await assertAxeClean(t, page, `induction step ${s + 1} at ${width} px${extra}`);
    await t.screenshot(`lesson-induction-${s + 1}-${tag}`);
    if (s + 1 < FIGURES.length) await page.click('[data-testid="lesson-next"]');
  }
  t.assert.deepEqual(t.errors(), []);
}

export const tests = [
  {
    name: 'induction lesson: every step at 1440 px',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 1440, 900, '', '1440'),
  },
  {
    name: 'induction lesson: every step at 375 px',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 375, 812, '', '375'),
  },
  {
    name: 'induction lesson: every step in presenter mode at 1280 x 720',
    timeoutMs: 120000,
    run: (t) => visitAll(t, 1280, 720, '&present=1', 'present-1280'),
  },
  {
    name: 'induction lesson: the question first, then the heads; the maps are the trained ones',
    run: async (t) => {
      const page = await t.open('lesson=induction&ls=0', '[data-testid="quiz"]');
      t.assert.match(await page.textContent('[data-testid="quiz"]'), /second B/);
      // before the answer, the picture is the sequence, not the heads that answer it
      t.assert.equal(await page.$('[data-testid="induction-heads"]'), null);
      await page.click('[data-testid="quiz-choice"] >> nth=0');
      await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right: At the C after the first B\. Layer 2's head/);
      await page.waitForSelector('[data-testid="induction-heads"] canvas');
      // two maps, drawn (not blank) and different from each other
      const maps = await page.$$eval('[data-testid="induction-head"]', (f) => f.map((x) => x.dataset.layer));
      t.assert.deepEqual(maps, ['0', '1']);
      const a = await canvasHash(page, '[data-testid="induction-head"][data-layer="0"] canvas');
      const b = await canvasHash(page, '[data-testid="induction-head"][data-layer="1"] canvas');
      t.assert.ok(a !== 'empty' && b !== 'empty' && a !== b, `${a} ${b}`);
      // the ablation step's table: layer 2's head off raises the loss
      await page.goto(t.url('/?lesson=induction&ls=2'));
      await page.waitForSelector('[data-testid="lesson-text"]');
      const text = await page.textContent('[data-testid="lesson-text"]');
      const m = /loss on the probe batch is ([\d.]+).*Without layer 2's head the loss is ([\d.]+)/.exec(text);
      t.assert.ok(m && Number(m[2]) > Number(m[1]) + 1, text);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction lesson: the curve links to the Learn view\'s induction run',
    run: async (t) => {
      const page = await t.open('lesson=induction&ls=3', '[data-testid="induction-learn-link"]');
      const text = await page.textContent('[data-testid="lesson-text"]');
      t.assert.match(text, /formed at step \d+/);
      await page.click('[data-testid="induction-learn-link"]');
      await page.waitForSelector('[data-testid="learn"]');
      t.assert.equal(new URL(page.url()).searchParams.get('learn'), 'induction');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'induction challenge: built by hand through the page, the engine judges it',
    run: async (t) => {
      const page = await t.open('challenge=induction-by-hand', '[data-testid="induction-challenge"]');
      t.assert.match(await page.textContent('[data-testid="induction-verdict"]'), /^Not yet\./);
      // the tempting wrong answer: layer 2 matching the same token
      for (const [id, v] of [['induction-q1', 'position'], ['induction-k1', 'next-position'], ['induction-q2', 'token'], ['induction-k2', 'token']]) {
        await page.selectOption(`[data-testid="${id}"]`, v);
      }
      await page.fill('[data-testid="induction-strength"]', '8');
      await page.press('[data-testid="induction-strength"]', 'Enter');
      await page.waitForFunction(() => /layer 2 puts 0\.0%/.test(document.querySelector('[data-testid="induction-verdict"]')?.textContent ?? ''));
      t.assert.match(await page.textContent('[data-testid="induction-verdict"]'), /^Not yet\. Layer 1 puts 100\.0%/);
      await page.selectOption('[data-testid="induction-k2"]', 'previous');
      await page.waitForFunction(() => /^Goal met\./.test(document.querySelector('[data-testid="induction-verdict"]')?.textContent ?? ''));
      await page.waitForSelector('[data-testid="induction-why"]');
      await page.click('[data-testid="induction-hint"]');
      await assertAxeClean(t, page, 'the induction challenge, solved, one hint shown');
      await t.screenshot('challenge-induction-1440');
      await page.setViewportSize({ width: 375, height: 812 });
      await page.waitForTimeout(150);
      await noOverflow(t, page, 'the induction challenge at 375 px', 1);
      await t.screenshot('challenge-induction-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
