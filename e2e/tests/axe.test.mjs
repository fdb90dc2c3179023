// axe-core over the states a learner meets (issue 22): the WCAG 2.1 A and AA rules, and
// the suite fails on any violation. Each test names its state in the failure.
import { assertAxeClean, MAIN_LANDMARK_RULES } from '../lib/axe.mjs';

const SMALL = 's=the%20cat%20sat%20on%20the%20mat&d=8&h=2&p=seeded&seed=3&pad=none';
const SENTENCES = '[data-testid="sentences"]';
const canvas = (step) => `canvas[data-testid="heatmap"][data-step="${step}"][data-head="0"][data-batch="0"]`;
const cell = (step, r, c) =>
  `table[data-testid="matrix-table"][data-step="${step}"][data-head="0"][data-batch="0"] td[data-r="${r}"][data-c="${c}"]`;

/** Waits until the page has drawn: the app is ready and a heatmap (if any) is on the page. */
async function settled(page) {
  await page.waitForSelector('[data-testid="app-ready"]', { state: 'attached' });
  await page.waitForTimeout(150);
}

/** Once the page has drawn, fails naming `state` when axe-core finds any violation. */
async function drawnAndClean(t, page, state) {
  await settled(page);
  await assertAxeClean(t, page, state);
}

/** The lesson ids, from the lesson tabs. */
async function lessonIds(t) {
  const page = await t.open('lesson=baseball-bat', '[data-testid="lesson-tab"]');
  return page.$$eval('[data-testid="lesson-tab"]', (tabs) => tabs.map((b) => b.dataset.lesson));
}

/** The number of steps of the open lesson, from "step N of M". */
async function stepCount(page) {
  const meta = await page.textContent('.al-lesson-meta');
  const m = /step \d+ of (\d+)/.exec(meta ?? '');
  if (!m) throw new Error(`no step count in "${meta}"`);
  return Number(m[1]);
}

/**
 * Every step of every lesson, with `extra` added to the query (e.g. presenter mode): axe
 * clean, and no seed cited by number in the lesson's words and picture.
 */
async function everyStep(t, extra, state) {
  const ids = await lessonIds(t);
  t.assert.ok(ids.length >= 9, `lesson tabs: ${ids.join(', ')}`);
  let checked = 0;
  for (const id of ids) {
    const page = await t.open(`lesson=${id}&ls=0${extra}`, '[data-testid="lesson-text"]');
    const n = await stepCount(page);
    for (let s = 0; s < n; s++) {
      if (s > 0) {
        await page.click('[data-testid="lesson-next"]');
        await page.waitForFunction((want) => /step (\d+) of/.exec(document.querySelector('.al-lesson-meta')?.textContent ?? '')?.[1] === String(want), s + 1);
      }
      await drawnAndClean(t, page, `${state}, lesson ${id} step ${s + 1} of ${n}`);
      // the sources are named as readers know them, never as "seed 001" (issue 26)
      const seed = /\bseeds? 0\d\d\b/i.exec(await page.textContent('[data-testid="lesson"]'));
      t.assert.equal(seed, null, `lesson ${id} step ${s + 1} cites "${seed?.[0]}"`);
      checked++;
    }
  }
  t.assert.ok(checked >= 40, `checked ${checked} steps`);
}

export const tests = [
  {
    // Lighthouse counts these (its accessibility score was 98 on lesson links while the
    // lesson's stage was a <section>): each mode is one <main>, at the top level
    name: 'axe: every mode has one main landmark once the app runs: first screen, lesson, presenter, embed, explorer link, challenge, Learn',
    run: async (t) => {
      for (const [query, ready] of [
        ['', '[data-testid="first-screen"], [data-testid="sentences"]'],
        ['lesson=baseball-bat&ls=2', '[data-testid="lesson-text"]'],
        ['lesson=masks&ls=1&present=1', '[data-testid="lesson-text"]'],
        ['lesson=masks&ls=1&embed=1', 'main'],
        [`${SMALL}&step=weights&embed=1`, 'main'],
        [`${SMALL}&step=weights`, SENTENCES],
        ['challenge=cat-mat', '[data-testid="challenges"]'],
        ['learn=induction', '[data-testid="learn"]'],
      ]) {
        const page = await t.open(query, ready);
        await settled(page);
        await assertAxeClean(t, page, `?${query}: the main landmark`, MAIN_LANDMARK_RULES);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'axe: the first screen at 1440 and 375 px, light and dark',
    run: async (t) => {
      let page = await t.gotoApp();
      await drawnAndClean(t, page, 'first screen, 1440 px, light');
      await page.setViewportSize({ width: 375, height: 812 });
      await drawnAndClean(t, page, 'first screen, 375 px, light');
      await page.emulateMedia({ colorScheme: 'dark' });
      page = await t.gotoApp();
      await drawnAndClean(t, page, 'first screen, 375 px, dark');
      await page.setViewportSize({ width: 1440, height: 900 });
      await drawnAndClean(t, page, 'first screen, 1440 px, dark');
    },
  },
  {
    name: 'axe: every step of every lesson',
    timeoutMs: 600000,
    run: async (t) => everyStep(t, '', 'lesson'),
  },
  {
    name: 'axe: every step of every lesson in presenter mode, dark',
    timeoutMs: 600000,
    run: async (t) => {
      await t.page.emulateMedia({ colorScheme: 'dark' });
      await t.page.setViewportSize({ width: 1280, height: 720 });
      await everyStep(t, '&present=1', 'presenter, dark');
    },
  },
  {
    name: 'axe: a question before and after its reveal, and the lesson at 375 px',
    run: async (t) => {
      const page = await t.open('lesson=masks&ls=0', '[data-testid="lesson-text"]');
      // the first step with a question
      const n = await stepCount(page);
      let found = false;
      for (let s = 0; s < n && !found; s++) {
        if (await page.$('[data-testid="quiz-choice"], [data-testid="quiz-number"]')) {
          found = true;
          break;
        }
        await page.click('[data-testid="lesson-next"]');
        await page.waitForTimeout(100);
      }
      t.assert.ok(found, 'the masks lesson has a question');
      await drawnAndClean(t, page, 'a question before its reveal');
      if (await page.$('[data-testid="quiz-number"]')) {
        await page.fill('[data-testid="quiz-number"]', '1');
        await page.press('[data-testid="quiz-number"]', 'Enter');
      } else {
        await page.click('[data-testid="quiz-choice"] >> nth=0');
      }
      await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
      await drawnAndClean(t, page, 'a question after its reveal');
      await page.setViewportSize({ width: 375, height: 812 });
      await drawnAndClean(t, page, 'a question after its reveal, 375 px');
    },
  },
  {
    name: 'axe: embed mode, the lines view, the explain panel open',
    run: async (t) => {
      let page = await t.gotoApp(`${SMALL}&step=weights&embed=1`);
      await drawnAndClean(t, page, 'embed mode');
      page = await t.gotoApp(`${SMALL}&view=lines`);
      await drawnAndClean(t, page, 'the lines view');
      page = await t.gotoApp(`${SMALL}&step=weights`);
      await page.click(`figure.al-card:has(${canvas('weights')}) .al-table summary`);
      await page.click(cell('weights', 3, 2));
      await page.waitForSelector('[data-testid="explain"]');
      await drawnAndClean(t, page, 'the explain panel open');
    },
  },
  {
    name: 'axe: an error shown next to a control',
    run: async (t) => {
      const page = await t.gotoApp(SMALL);
      await page.fill(SENTENCES, '\n  \n');
      await page.waitForSelector(`label:has(${SENTENCES}) [data-testid="error"]`);
      await drawnAndClean(t, page, 'an error next to the sentences');
    },
  },
  {
    name: 'axe: the decode and tiles views, the challenges list and an open challenge',
    run: async (t) => {
      let page = await t.open(`${SMALL}&causal=1&view=decode`, '[data-testid="decode-view"]');
      await drawnAndClean(t, page, 'the decode view');
      page = await t.open(`${SMALL}&causal=1&view=tiles&block=2`, '[data-testid="tiles-view"]');
      await drawnAndClean(t, page, 'the tiles view');
      page = await t.gotoApp('challenge=');
      await drawnAndClean(t, page, 'the challenges list');
      page = await t.gotoApp('challenge=cat-mat');
      await drawnAndClean(t, page, 'the cat-mat challenge');
      await page.setViewportSize({ width: 375, height: 812 });
      await drawnAndClean(t, page, 'the cat-mat challenge, 375 px');
      // a challenge with its hints and its worked solution shown
      page = await t.open('challenge=bat-baseball', '[data-testid="challenge"]');
      for (let i = 0; i < 3; i++) await page.click('[data-testid="challenge-next-hint"]');
      await page.click('[data-testid="challenge-show-solution"]');
      await page.waitForSelector('[data-testid="challenge-solution"]');
      await drawnAndClean(t, page, 'the bat-baseball challenge, hints and solution shown, 375 px');
    },
  },
  {
    name: 'axe: the Learn view at 1440 and 375 px, trained a little, its tables open, light and dark',
    run: async (t) => {
      let page = await t.open('learn=induction', '[data-testid="learn-head"][data-layer="1"] canvas');
      for (let i = 0; i < 3; i++) await page.click('[data-testid="learn-step"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="learn-steps"]')?.textContent === '3');
      for (const summary of await page.$$('[data-testid="learn"] details summary')) await summary.click();
      // a head switched off: its words and its table of predictions are checked too
      await page.click('[data-testid="learn-ablate"][data-layer="1"]');
      await page.waitForSelector('[data-testid="learn-ablation-table"]');
      await drawnAndClean(t, page, 'the Learn view (induction), 1440 px, tables open');
      await page.setViewportSize({ width: 375, height: 812 });
      await drawnAndClean(t, page, 'the Learn view (induction), 375 px, tables open');
      await page.emulateMedia({ colorScheme: 'dark' });
      page = await t.gotoApp('learn=previous-token&learn_h=3');
      await page.waitForFunction(() => (document.querySelector('[data-testid="learn-error"]')?.textContent ?? '') !== '');
      await drawnAndClean(t, page, 'the Learn view with the engine refusing its settings, 375 px, dark');
    },
  },
  {
    name: 'axe: the Learn view\'s challenge bar: open with its hints, then met with its why, at 1440 and 375 px, light and dark',
    timeoutMs: 180000,
    run: async (t) => {
      const GOAL = '[data-testid="learn-challenge-goal"]';
      // the start: the story, the goal, every hint shown, the unmet progress line
      let page = await t.open('learn=previous-token&learn_challenge=previous-token-95', '[data-testid="learn-challenge"]');
      await page.waitForSelector('[data-testid="learn-head"] canvas');
      while (await page.isEnabled('[data-testid="learn-challenge-hint-next"]')) {
        await page.click('[data-testid="learn-challenge-hint-next"]');
      }
      await page.waitForFunction(() => /^Press Play/.test(document.querySelector('[data-testid="learn-challenge-progress"]')?.textContent ?? ''));
      await drawnAndClean(t, page, 'the training challenge, hints shown, 1440 px');
      await page.setViewportSize({ width: 375, height: 812 });
      await drawnAndClean(t, page, 'the training challenge, hints shown, 375 px');
      // a solution from the link (learned positions at 0.03), played fast until the goal is met
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.emulateMedia({ colorScheme: 'dark' });
      page = await t.open('learn=previous-token&learn_challenge=previous-token-95&learn_pos=learned&learn_lr=0.03', '[data-testid="learn-head"] canvas');
      await page.selectOption('[data-testid="learn-speed"]', 'fast');
      await page.click('[data-testid="learn-play"]');
      await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.met === 'true', GOAL, { timeout: 60000 });
      await page.waitForSelector('[data-testid="learn-challenge-why"]');
      await page.waitForSelector('[data-testid="learn-status"][data-busy="false"]');
      await drawnAndClean(t, page, 'the training challenge met, its why shown, 1440 px, dark');
      await page.setViewportSize({ width: 375, height: 812 });
      await drawnAndClean(t, page, 'the training challenge met, its why shown, 375 px, dark');
    },
  },
];

tests.push({
  name: 'axe: a heatmap is named for a screen reader by what it shows and its largest weight; its table is one key away',
  run: async (t) => {
    const page = await t.gotoApp(`${SMALL}&step=weights`);
    const card = `figure.al-card:has(${canvas('weights')})`;
    // the numbers, from the table (not from the label): the largest weight and its labels
    await page.click(`${card} .al-table summary`);
    const want = await page.$eval(`${card} table[data-testid="matrix-table"]`, (table) => {
      const cols = [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent);
      let best = null;
      for (const td of table.querySelectorAll('td[data-r]')) {
        const v = Number(td.dataset.value);
        if (td.classList.contains('al-blocked') || !Number.isFinite(v)) continue;
        if (!best || v > best.v) best = { v, r: Number(td.dataset.r), c: Number(td.dataset.c) };
      }
      const rows = [...table.querySelectorAll('tbody th')].map((th) => th.textContent);
      return { query: rows[best.r], key: cols[best.c], v: best.v, n: rows.length, m: cols.length };
    });
    // the accessible name, as a screen reader gets it (role img, by name)
    const name = new RegExp(
      `^weights heatmap, sentence 1, head 1: ${want.n} by ${want.m}; the largest is query “${want.query}” → key “${want.key}”, ${String(want.v).slice(0, 4)}`,
    );
    const img = page.getByRole('img', { name });
    t.assert.equal(await img.count(), 1, `one canvas named ${name}`);
    // one key away: Tab from the picture reaches its table's toggle
    await img.focus();
    await page.keyboard.press('Tab');
    t.assert.ok(
      await page.evaluate((sel) => document.activeElement === document.querySelector(`${sel} .al-table summary`), card),
      `Tab from the heatmap focuses its "Table of numbers" (focused: ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))})`,
    );
    t.assert.deepEqual(t.errors(), []);
  },
});
