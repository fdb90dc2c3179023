// The three lessons on today's models (rope, gqa, local): every step at 1440 and 375 px
// shows its words and its picture, no page error, nothing wider than a phone; each
// question is answered through the page and its verdict shown.
import { noOverflow } from '../lib/layout.mjs';
import { typeAnswer, verdictFor } from '../lib/quiz.mjs';

const LESSONS = { rope: 5, gqa: 4, local: 5 };

async function visitAll(t, width, height, shots) {
  await t.page.setViewportSize({ width, height });
  for (const [id, n] of Object.entries(LESSONS)) {
    const page = await t.gotoApp(`lesson=${id}&ls=0`);
    for (let s = 0; s < n; s++) {
      await page.waitForFunction((k) => new URLSearchParams(location.search).get('ls') === String(k), s);
      await page.waitForSelector('[data-testid="lesson-text"]');
      const text = await page.textContent('[data-testid="lesson-text"]');
      t.assert.ok(text.length > 40 && !/NaN|\[\]/.test(text), `${id} step ${s + 1}: ${text}`);
      await page.waitForSelector('[data-testid="lesson-picture"] canvas[data-testid="heatmap"]');
      await noOverflow(t, page, `${id} step ${s + 1} at ${width} px`, 1);
      if (shots) {
        await t.screenshot(`lesson-${id}-${s + 1}-${width}`, { fullPage: false });
      }
      if (s + 1 < n) {
        await page.click('[data-testid="lesson-next"]');
      } else {
        t.assert.ok(await page.$eval('[data-testid="lesson-next"]', (b) => b.disabled));
      }
    }
  }
  t.assert.deepEqual(t.errors(), []);
}

export const tests = [
  {
    name: 'modern lessons: every step of rope, gqa and local at 1440 px',
    timeoutMs: 180000,
    run: (t) => visitAll(t, 1440, 900, true),
  },
  {
    name: 'modern lessons: every step of rope, gqa and local at 375 px',
    timeoutMs: 180000,
    run: (t) => visitAll(t, 375, 812, true),
  },
  {
    name: 'modern lessons: the questions are answered through the page',
    run: async (t) => {
      // rope: the same distance gives the same score
      let page = await t.gotoApp('lesson=rope&ls=2');
      await page.click('[data-testid="quiz-choice"]:has-text("the same")');
      await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
      t.assert.match(await page.textContent('[data-testid="quiz-reveal"]'), /^Right/);
      // gqa: Llama 3 8B's cache per token, typed
      page = await t.gotoApp('lesson=gqa&ls=3');
      t.assert.match(await verdictFor(page, '128'), /^Right: 128/);
      // local: how many keys are blocked for "six" under a window of 3 and the causal mask
      page = await t.gotoApp('lesson=local&ls=1');
      t.assert.match(await verdictFor(page, '3'), /^Not quite: it is 5/);
      // a decimal typed key by key keeps its point (0.5, not 50)
      page = await t.gotoApp('lesson=masks&ls=1');
      await page.click('[data-testid="quiz-number"]');
      await page.keyboard.type('0.5');
      t.assert.equal(await page.inputValue('[data-testid="quiz-number"]'), '0.5');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid="quiz-reveal"]:not([hidden])');
      t.assert.doesNotMatch(await page.textContent('[data-testid="quiz-reveal"]'), /49\.5/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'lesson questions read a decimal comma and a fraction; other text gets a message, not a verdict',
    run: async (t) => {
      // score-range step 2: 5·tanh(8/5) = 4.61, typed with a comma as a phone's keyboard may give
      let page = await t.gotoApp('lesson=score-range&ls=1');
      await typeAnswer(page, 'abc');
      await page.waitForSelector('[data-testid="quiz-unreadable"]:not([hidden])');
      t.assert.ok(await page.isHidden('[data-testid="quiz-reveal"]'), 'no verdict for text that is not a number');
      t.assert.match(await verdictFor(page, '4,61'), /^Right/);
      t.assert.ok(await page.isHidden('[data-testid="quiz-unreadable"]'));
      // masks step 2: a fraction
      page = await t.gotoApp('lesson=masks&ls=1');
      t.assert.match(await verdictFor(page, '1/2'), /0\.5/);
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
