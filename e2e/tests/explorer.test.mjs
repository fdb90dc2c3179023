// The explorer keeps the picture beside the step that was clicked, and its code lines
// wrap instead of being cut off; a heatmap's read-out has four decimals.

export const tests = [
  {
    name: 'explorer: a step clicked far down the pipeline brings its picture into view; code lines wrap',
    run: async (t) => {
      for (const [w, h] of [[1440, 900], [375, 812]]) {
        const page = await t.openAt({ width: w, height: h }, 's=the%20cat%20sat%20on%20the%20mat&d=8&h=2&p=seeded&causal=1&pad=keys', 'canvas[data-testid="heatmap"]');
        const fold = await page.$('[data-testid="pipeline-fold"]:not([open]) > summary');
        if (fold) await fold.click();
        const output = '[data-testid="trace-step"][data-step="output"] button';
        await page.locator(output).scrollIntoViewIfNeeded();
        await page.click(output);
        await page.waitForSelector('canvas[data-testid="heatmap"][data-step="output"]');
        const top = await page.$eval('.al-tensors', (el) => el.getBoundingClientRect().top);
        t.assert.ok(top >= -1 && top < h, `at ${w} px the picture's top is at ${top}`);
        // no code line of the pipeline is cut off or scrolls sideways
        const cut = await page.$$eval('.al-pipeline .al-pytorch', (els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).length);
        t.assert.equal(cut, 0, `at ${w} px ${cut} code lines are cut off`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
