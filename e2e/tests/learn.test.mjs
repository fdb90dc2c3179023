// The Learn view (issues 39 and 40): a tab beside the others, linkable; training runs in
// the worker and the page shows the engine's numbers as they arrive.
import { readFileSync } from 'node:fs';
import { canvasHash } from '../lib/canvas.mjs';
import { typeAndLeave } from '../lib/fields.mjs';

const STEPS = '[data-testid="learn-steps"]';
const ACCURACY = '[data-testid="learn-accuracy"]';

/** The step counter on the page. */
const stepsShown = (page) => page.$eval(STEPS, (e) => Number(e.textContent));

/** The probe accuracy on the page, as a fraction (NaN before the first answer). */
const accuracyShown = (page) => page.$eval(ACCURACY, (e) => parseFloat(e.textContent) / 100);

export const tests = [
  {
    name: 'learn: the tab opens the view, Play trains previous-token to 95% on the probe, Pause stops the counter',
    run: async (t) => {
      const page = await t.gotoApp();
      await page.click('[data-testid="mode-learn"]');
      await page.waitForSelector('[data-testid="learn"]');
      t.assert.match(page.url(), /[?&]learn=previous-token\b/);
      t.assert.match(await page.textContent('[data-testid="learn-intro"]'), /token just before it/);
      // the run's start: step 0, the maps of the seeded model
      await page.waitForSelector('[data-testid="learn-head"] canvas');
      t.assert.equal(await stepsShown(page), 0);
      t.assert.equal(await page.locator('[data-testid="learn-head"]').count(), 2, 'one layer of 2 heads');
      const mapBefore = await canvasHash(page, '[data-testid="learn-head"][data-head="0"] canvas');
      // to watch: about 50 steps a second, a few answers a second
      await page.click('[data-testid="learn-play"]');
      await page.waitForTimeout(1000);
      const watched = await stepsShown(page);
      t.assert.ok(watched >= 10 && watched <= 100, `${watched} steps in a second of watching`);
      await page.selectOption('[data-testid="learn-speed"]', 'fast');
      // the page's thread stays free while it trains: the longest gap between timer ticks
      const lag = await page.evaluate(() => new Promise((done) => {
        let worst = 0, last = performance.now();
        const end = last + 1500;
        const tick = () => {
          const now = performance.now();
          worst = Math.max(worst, now - last);
          last = now;
          if (now < end) setTimeout(tick, 10); else done(worst);
        };
        setTimeout(tick, 10);
      }));
      t.assert.ok(lag < 250, `the page's thread was busy for ${lag.toFixed(0)} ms at a time while training`);
      const started = Date.now();
      await page.waitForFunction(
        (sel) => parseFloat(document.querySelector(sel)?.textContent ?? '') >= 95,
        ACCURACY,
        { timeout: 45000 },
      );
      const steps = await stepsShown(page);
      console.log(`# previous-token: ${(await accuracyShown(page) * 100).toFixed(1)}% at step ${steps}, ${(Date.now() - started) / 1000} s after the lag probe; status: ${await page.textContent('.al-learn-status')}`);
      t.assert.ok(steps > 0 && steps <= 5000, `steps ${steps}`);
      await page.click('[data-testid="learn-pause"]');
      // the slice in flight arrives, then nothing more
      await page.waitForSelector('[data-testid="learn-play"]:not([disabled])');
      await page.waitForSelector('[data-testid="learn-status"][data-busy="false"]');
      const paused = await stepsShown(page);
      await page.waitForTimeout(1000);
      t.assert.equal(await stepsShown(page), paused, 'the counter moved after Pause');
      // the maps changed, the head that learned says so in words, the curve has a table
      t.assert.notEqual(await canvasHash(page, '[data-testid="learn-head"][data-head="0"] canvas'), mapBefore);
      const scores = await page.$$eval('[data-testid="learn-head-score"]', (els) => els.map((e) => e.textContent));
      t.assert.ok(scores.some((s) => /([89]\d|100)(\.\d)?% of its weight on the previous token/.test(s)), scores.join(' | '));
      const rows = await page.$$eval('[data-testid="learn-curve-table"] tbody tr', (trs) => trs.length);
      t.assert.equal(rows, 8);
      t.assert.match(await page.textContent('[data-testid="learn-curve-summary"]'), new RegExp(`^Step ${paused} of 5000`));
      // stepping back, to any step: the model as it was after 30 updates, its map and the curve's marker
      const mapNow = await canvasHash(page, '[data-testid="learn-head"][data-head="0"] canvas');
      const curveNow = await canvasHash(page, '[data-testid="learn-curve"] canvas');
      await page.$eval('[data-testid="learn-scrub"]', (e) => {
        e.value = '30';
        e.dispatchEvent(new Event('input', { bubbles: true }));
      });
      await page.waitForFunction(() => /after 30 updates:/.test(document.querySelector('[data-testid="learn-scrub-words"]')?.textContent ?? ''));
      // the status line names the model shown and gives its numbers, not the run's last
      const status = await page.textContent('[data-testid="learn-status"]');
      const scrubbed = (await page.textContent('[data-testid="learn-scrub-words"]')).match(/loss ([\d.]+) and accuracy ([\d.]+%)/);
      t.assert.match(status, new RegExp(`^Step ${paused} of 5000 .* · showing the model after 30 updates: on the probe batch, loss ${scrubbed[1]}, accuracy ${scrubbed[2]}$`), status);
      await t.screenshot('learn-scrubbed-status-1440');
      t.assert.notEqual(await canvasHash(page, '[data-testid="learn-head"][data-head="0"] canvas'), mapNow);
      t.assert.notEqual(await canvasHash(page, '[data-testid="learn-curve"] canvas'), curveNow);
      await page.click('[data-testid="learn-now"]');
      await page.waitForFunction(() => /^Drag/.test(document.querySelector('[data-testid="learn-scrub-words"]')?.textContent ?? ''));
      t.assert.match(await page.textContent('[data-testid="learn-status"]'), / · on the probe batch: loss [\d.]+, accuracy/);
      t.assert.equal(await canvasHash(page, '[data-testid="learn-head"][data-head="0"] canvas'), mapNow);
      // One step moves the counter by one
      await page.click('[data-testid="learn-step"]');
      await page.waitForFunction((want) => document.querySelector('[data-testid="learn-steps"]')?.textContent === String(want), paused + 1);
      await t.screenshot('learn-previous-token-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'learn: a link restores the task and settings in a new page; the induction preset has two layers',
    run: async (t) => {
      const page = await t.open('learn=induction&learn_lr=0.02&learn_seed=3', '[data-testid="learn-head"][data-layer="1"] canvas');
      t.assert.equal(await page.$eval('[data-testid="learn-task"]', (e) => e.value), 'induction');
      t.assert.equal(await page.$eval('[data-testid="learn-lr"]', (e) => e.value), '0.02');
      t.assert.equal(await page.$eval('[data-testid="learn-seed"]', (e) => e.value), '3');
      t.assert.equal(await page.$eval('[data-testid="learn-layers"]', (e) => e.value), '2');
      t.assert.ok(await page.$('[data-testid="mode-learn"].al-selected'));
      // a setting changed on the page goes into the link, and the run starts again
      await page.click('[data-testid="learn-step"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="learn-steps"]')?.textContent === '1');
      await typeAndLeave(page, '[data-testid="learn-seed"]', '5');
      await page.waitForFunction(() => /learn_seed=5/.test(location.search));
      await page.waitForFunction(() => document.querySelector('[data-testid="learn-steps"]')?.textContent === '0');
      // Explorer leaves the view; its link has no learn key
      await page.click('[data-testid="mode-explorer"]');
      await page.waitForSelector('[data-testid="learn"]', { state: 'detached' });
      t.assert.doesNotMatch(page.url(), /learn/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'learn: a configuration the engine refuses is named, and a bad link value is a notice',
    run: async (t) => {
      const page = await t.gotoApp('learn=previous-token&learn_h=3&learn_T=999');
      await page.waitForFunction(() => /n_heads: must divide d_model = 16/.test(document.querySelector('[data-testid="learn-error"]')?.textContent ?? ''));
      t.assert.match(await page.textContent('body'), /learn_T="999" is not a whole number from 2 to 32/);
      await page.click('[data-testid="learn-play"]');
      await page.waitForTimeout(300);
      t.assert.equal(await stepsShown(page), 0);
      t.assert.equal(await page.$('[data-testid="panic"]'), null);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'learn: a diverging run says so in words; refused settings then show nothing of the old model',
    run: async (t) => {
      const page = await t.open('learn=previous-token&learn_lr=10', '[data-testid="learn-head"] canvas');
      t.assert.equal(await page.$('[data-testid="learn-diverged"]'), null, 'diverged before a step');
      await page.selectOption('[data-testid="learn-speed"]', 'fast');
      await page.click('[data-testid="learn-play"]');
      await page.waitForSelector('[data-testid="learn-diverged"]', { timeout: 30000 });
      await page.click('[data-testid="learn-pause"]');
      await page.waitForSelector('[data-testid="learn-status"][data-busy="false"]');
      t.assert.match(await page.textContent('[data-testid="learn-diverged"]'),
        /^Training diverged: the loss is now .+, more than 10 times the first step's \d+\.\d{3}\. The learning rate is likely too large/);
      await t.screenshot('learn-diverged-1440');
      // d_model 7 with 2 heads: the engine's message, and no number, map or curve of the old run
      await typeAndLeave(page, '[data-testid="learn-d"]', '7');
      await page.waitForFunction(() => /n_heads: must divide d_model = 7/.test(document.querySelector('[data-testid="learn-error"]')?.textContent ?? ''));
      await page.waitForSelector('[data-testid="learn-refused"]');
      t.assert.equal(await stepsShown(page), 0);
      t.assert.equal(await page.textContent('[data-testid="learn-loss"]'), '…');
      t.assert.equal(await page.textContent(ACCURACY), '…');
      t.assert.equal(await page.locator('[data-testid="learn-head"]').count(), 0, 'the old maps are gone');
      t.assert.equal(await page.$('[data-testid="learn-diverged"]'), null, 'the old run\'s divergence is gone');
      t.assert.equal(await page.locator('[data-testid="learn-curve-table"] tbody tr').count(), 0);
      t.assert.match(await page.textContent('[data-testid="learn-curve-summary"]'), /^No step taken yet/);
      await t.screenshot('learn-refused-1440');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'learn: a gradient cell is explained as the sum of its chain-rule terms; a cell out of range is named',
    run: async (t) => {
      const page = await t.open('learn=previous-token', '[data-testid="learn-head"] canvas');
      await page.click('[data-testid="learn-step"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="learn-steps"]')?.textContent === '1');
      await page.selectOption('[data-testid="learn-gradient-name"]', 'layers[0].W_Q');
      await typeAndLeave(page, '[data-testid="learn-gradient-i"]', '1');
      await typeAndLeave(page, '[data-testid="learn-gradient-j"]', '2');
      await page.click('[data-testid="learn-gradient-explain"]');
      await page.waitForSelector('[data-testid="learn-gradient-value"]');
      const value = await page.textContent('[data-testid="learn-gradient-value"]');
      t.assert.ok(Number.isFinite(Number(value)) && Number(value) !== 0, `dL/dW = ${value}`);
      t.assert.match(await page.textContent('[data-testid="learn-gradient-table"] caption'), /^dL\/dlayers\[0\]\.W_Q\[1, 2\] on the probe batch after step 1: /);
      t.assert.equal(await page.locator('[data-testid="learn-gradient-table"] tbody tr').count(), 5);
      const why = await page.textContent('[data-testid="learn-gradient-why"]');
      t.assert.ok(why.startsWith(`dL/dlayers[0].W_Q[1, 2] = ${value} is ${Number(value) > 0 ? 'positive' : 'negative'}: `), why);
      t.assert.match(why, Number(value) > 0 ? /gradient descent lowers it\.$/ : /gradient descent raises it\.$/);
      await page.locator('[data-testid="learn-gradient"]').scrollIntoViewIfNeeded();
      await t.screenshot('learn-gradient-cell-1440');
      await typeAndLeave(page, '[data-testid="learn-gradient-i"]', '99');
      await page.click('[data-testid="learn-gradient-explain"]');
      await page.waitForSelector('[data-testid="learn-gradient-error"]');
      t.assert.match(await page.textContent('[data-testid="learn-gradient-error"]'), /^layers\[0\]\.W_Q\[99, 2\]: not a weight cell of this model/);
      t.assert.equal(await page.textContent('[data-testid="learn-error"]'), '', 'the run is not stopped by a bad cell');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'learn: induction trained through the UI: the layer-2 head reads the token after the earlier occurrence, switching it off raises the loss, K-composition and the heads depended on are shown',
    run: async (t) => {
      const page = await t.open('learn=induction', '[data-testid="learn-head"][data-layer="1"] canvas');
      // before training: one head per layer, a toggle each, the composition panel's words
      t.assert.equal(await page.locator('[data-testid="learn-ablate"]').count(), 2);
      await page.waitForSelector('[data-testid="learn-composition-words"]');
      await page.selectOption('[data-testid="learn-speed"]', 'fast');
      await page.click('[data-testid="learn-play"]');
      // the loss drops (BENCHMARKS' preset falls below 0.5 near step 300); past 0.3 the
      // layer-2 head has formed, wherever the pause lands
      await page.waitForFunction(
        () => parseFloat(document.querySelector('[data-testid="learn-loss"]')?.textContent ?? '') < 0.3,
        null,
        { timeout: 60000 },
      );
      await page.click('[data-testid="learn-pause"]');
      await page.waitForSelector('[data-testid="learn-status"][data-busy="false"]');
      const steps = await stepsShown(page);
      // the layer-2 head's map: at least half its weight on the token after the earlier occurrence
      const score = await page.textContent('[data-testid="learn-head"][data-layer="1"] [data-testid="learn-head-score"]');
      const induction = parseFloat(score.match(/and ([\d.]+)% on the token after/)[1]);
      console.log(`# induction: step ${steps}, layer 2 head 1: ${score}`);
      t.assert.ok(induction >= 50, `layer 2's induction score ${induction}%`);
      // the toggle, by keyboard: focus it, Space switches layer 2's head off
      const layer2 = '[data-testid="learn-ablate"][data-layer="1"]';
      await page.focus(layer2);
      await page.keyboard.press('Space');
      await page.waitForSelector(`${layer2}[aria-pressed="true"]`);
      const words = await page.textContent('[data-testid="learn-ablation-words"]');
      const m = words.match(/^With layer 2, head 1 switched off \(its output zeroed\), the probe batch's loss is (\d+\.\d{3}) instead of (\d+\.\d{3}) \(\+(\d+\.\d{3})\), its accuracy [\d.]+% instead of [\d.]+%, and (\d+) of its scored predictions change\.$/);
      t.assert.ok(m, words);
      const [off, on, rise, changed] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
      t.assert.ok(off > on + 0.5 && rise > 0.5, `switched off ${off}, on ${on}`);
      t.assert.ok(changed > 0, `${changed} predictions changed`);
      // the head card and the toggle quote the same engine number
      t.assert.match(await page.textContent('[data-testid="learn-head"][data-layer="1"] [data-testid="learn-head-ablation"]'), new RegExp(`would be ${m[1]} instead of ${m[2]}`));
      // the table: four rows over the first probe sequence, changed predictions in bold
      t.assert.equal(await page.locator('[data-testid="learn-ablation-table"] tr').count(), 4);
      t.assert.ok(await page.locator('[data-testid="learn-ablation-table"] strong').count() > 0, 'a changed prediction is marked');
      // one head at a time: layer 1's toggle switches layer 2's back on
      await page.click('[data-testid="learn-ablate"][data-layer="0"]');
      await page.waitForSelector(`${layer2}[aria-pressed="false"]`);
      t.assert.match(await page.textContent('[data-testid="learn-ablation-words"]'), /^With layer 1, head 1 switched off/);
      await page.click('[data-testid="learn-ablate"][data-layer="0"]');
      await page.waitForFunction(() => !document.querySelector('[data-testid="learn-ablation-words"]'));
      // composition: layer 1's head out of layer 2's keys moves layer 2's attention and raises the loss
      const comp = await page.textContent('[data-testid="learn-composition-words"]');
      const c = comp.match(/^Take layer 1, head 1's output out of layer 2's keys only .*: the probe batch's loss is (\d+\.\d{3}) instead of (\d+\.\d{3}) \(\+[\d.]+\); layer 2, head 1's attention moves ([\d.]+)% of its weight elsewhere, and its weight on the token after the current token's earlier occurrence goes from ([\d.]+)% to ([\d.]+)%\.$/);
      t.assert.ok(c, comp);
      t.assert.equal(c[2], m[2], 'the same whole-model loss');
      t.assert.ok(Number(c[1]) > Number(c[2]) && Number(c[5]) < Number(c[4]), comp);
      t.assert.equal(await page.locator('[data-testid="learn-composition-table"] tbody tr').count(), 1);
      // both heads are needed, each named with its rise
      t.assert.match(await page.textContent('[data-testid="learn-depends"]'),
        /^The prediction depends on layer \d, head 1 \(off, the loss rises by \d+\.\d{3}\), then on layer \d, head 1 \(off, the loss rises by \d+\.\d{3}\)\.$/);
      await page.keyboard.press('Space');
      await page.waitForSelector('[data-testid="learn-ablation-table"]');
      await page.locator('[data-testid="learn-ablation"]').scrollIntoViewIfNeeded();
      await t.screenshot('learn-circuit-1440');
      await page.setViewportSize({ width: 375, height: 812 });
      await page.locator('[data-testid="learn-composition"]').scrollIntoViewIfNeeded();
      await t.screenshot('learn-circuit-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'learn: the induction preset trained in the worker is the recorded run of the lesson: the slider reaches every step the lesson quotes, one update at a time, with the file numbers there; at step 600 the probe loss and the loss with each head off are the file numbers, to the digit',
    timeoutMs: 180000,
    run: async (t) => {
      // assets/induction-run.json is the native engine's run of the same configuration; the
      // engine's training arithmetic is the same to the bit in wasm (src/train/ops.rs)
      const run = JSON.parse(readFileSync(new URL('../../assets/induction-run.json', import.meta.url), 'utf8'));
      // the steps the lesson quotes: where each head formed, and the loss's 150 and 300
      const lesson = await t.open('lesson=induction&ls=3', '[data-testid="induction-curve"]');
      const said = await lesson.textContent('[data-testid="lesson-text"]');
      const formed = said.match(/induction head had formed by (\d+).*previous-token head by (\d+)/);
      t.assert.ok(formed && /after 300 updates/.test(said), said);
      const page = await t.open('learn=induction', '[data-testid="learn-head"][data-layer="1"] canvas');
      await page.selectOption('[data-testid="learn-speed"]', 'fast');
      await page.click('[data-testid="learn-play"]');
      await page.waitForFunction((n) => Number(document.querySelector('[data-testid="learn-steps"]')?.textContent) === n,
        run.config.steps, { timeout: 90000 });
      await page.waitForSelector('[data-testid="learn-status"][data-busy="false"]');
      // the slider reaches every step the lesson quotes: the Learn view's numbers there are
      // the recorded run's (its probe loss and each head's score, as the file rounds them)
      const scrub = '[data-testid="learn-scrub"]';
      t.assert.equal(await page.$eval(scrub, (e) => e.step), '1');
      const words = () => page.textContent('[data-testid="learn-scrub-words"]');
      const at = async (want) => {
        await page.waitForFunction((w) => document.querySelector('[data-testid="learn-scrub-words"]')?.textContent.includes(`after ${w} updates:`), want);
        const c = run.checkpoints.find((x) => x.step === want);
        const m = (await words()).match(/loss (\d+\.\d{3}) and accuracy/);
        t.assert.equal(Number(m[1]), c.probe_loss, `the probe loss after ${want} updates`);
        const scores = await page.$$eval('[data-testid="learn-head-score"]', (els) => els.map((e) => e.textContent));
        const [prev, ind] = [scores[0].match(/([\d.]+)% of its weight on the previous/)[1], scores[1].match(/and ([\d.]+)% on the token after/)[1]];
        t.assert.equal((Number(prev) / 100).toFixed(3), c.heads[0].previous_token.toFixed(3), `layer 1 after ${want} updates`);
        t.assert.equal((Number(ind) / 100).toFixed(3), c.heads[1].induction.toFixed(3), `layer 2 after ${want} updates`);
        t.assert.equal(await page.$eval(scrub, (e) => e.getAttribute('aria-valuetext')), `after ${want} updates`);
      };
      // by keyboard: Home, then Page Up ten updates at a time, the arrows one
      await page.focus(scrub);
      await page.keyboard.press('Home');
      await at(0);
      const f2 = Number(formed[1]);
      for (let k = 0; k < f2 / 10; k++) await page.keyboard.press('PageUp');
      await at(f2);
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((w) => document.querySelector('[data-testid="learn-scrub-words"]')?.textContent.includes(`after ${w} updates:`), f2 + 1);
      await page.keyboard.press('ArrowLeft');
      await at(f2);
      await t.screenshot(`learn-induction-after-${f2}-1440`);
      for (const step of [Number(formed[2]), 150, 300]) {
        await page.$eval(scrub, (e, v) => {
          e.value = String(v);
          e.dispatchEvent(new Event('input', { bubbles: true }));
        }, step);
        await at(step);
      }
      await page.click('[data-testid="learn-now"]');
      for (const ablation of run.ablations) {
        const toggle = `[data-testid="learn-ablate"][data-layer="${ablation.head.layer}"][data-head="${ablation.head.head}"]`;
        await page.click(toggle);
        await page.waitForSelector(`${toggle}[aria-pressed="true"]`);
        const words = await page.textContent('[data-testid="learn-ablation-words"]');
        const m = words.match(/the probe batch's loss is (\d+\.\d{3}) instead of (\d+\.\d{3})/);
        t.assert.ok(m, words);
        t.assert.equal(Number(m[2]), run.loss, `the whole model's probe loss at step ${run.config.steps}`);
        t.assert.equal(Number(m[1]), ablation.loss, `layer ${ablation.head.layer + 1}, head ${ablation.head.head + 1} off`);
        await page.click(toggle);
        await page.waitForSelector(`${toggle}[aria-pressed="false"]`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
