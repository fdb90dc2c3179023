// What a newcomer's look at the built app found, held where only the page shows it: a
// quoted row that the maps are too small to print is in a table; the KV-cache panel's
// tables fit their columns at 1440 px and in presenter mode; a step's aside comes right
// after its words on a phone; guessing hides the whole map and the decode panel's numbers.

// Every table of the decode panel fits its scroll box: nothing cut at the right edge.
async function decodeTablesFit(t, page, where) {
  for (const id of ['k-cache', 'v-cache', 'decode-weights', 'decode-output']) {
    const box = await page.$eval(`[data-testid="${id}"]`, (table) => {
      const wrap = table.closest('.al-table-wrap');
      return { scroll: wrap.scrollWidth, client: wrap.clientWidth, visible: table.getBoundingClientRect().width > 0 };
    });
    t.assert.ok(box.visible, `${where}: ${id} is shown`);
    t.assert.ok(box.scroll <= box.client + 1, `${where}: ${id} is ${box.scroll} px wide in a ${box.client} px box`);
  }
}

export const tests = [
  {
    name: 'newcomer look: local step 1 names the head of the row it quotes, and the row is in the table of its rows',
    run: async (t) => {
      const page = await t.openAt({ width: 1440, height: 900 }, 'lesson=local&ls=0', '[data-testid="lesson-aside"]');
      const words = await page.textContent('[data-testid="lesson-text"]');
      // by name, not by place: presenter mode shows one map with the table beside it
      const quoted = words.match(/in head 1 its row is \[([^\]]+)\]/);
      t.assert.ok(!/first map|under the maps/.test(words), words);
      t.assert.ok(quoted, words);
      const row = await page.$$eval('[data-testid="lesson-aside"] tbody tr', (trs) => {
        const tr = trs.find((r) => r.querySelector('th').textContent === 'head 1');
        return [...tr.querySelectorAll('td')].map((td) => td.textContent);
      });
      t.assert.deepEqual(row, quoted[1].split(', '));
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'newcomer look: the KV-cache panel\'s tables fit at 1440 px and in presenter mode at 1280x720',
    run: async (t) => {
      for (const [w, h, extra] of [[1440, 900, ''], [1280, 720, '&present=1']]) {
        await t.page.setViewportSize({ width: w, height: h });
        for (const ls of [1, 5]) {
          const page = await t.open(`lesson=kv-cache&ls=${ls}${extra}`, '[data-testid="decode-output"] td');
          await decodeTablesFit(t, page, `${w}x${h} step ${ls + 1}`);
          if (extra) {
            const size = await page.evaluate(() => document.documentElement.scrollHeight);
            t.assert.ok(size <= h + 1, `presenter step ${ls + 1}: the page is ${size} px tall`);
          }
        }
        await t.screenshot(`newcomer-kv-2-${w}x${h}`);
      }
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'newcomer look: on a phone a step\'s aside table comes right after its words, before the maps',
    run: async (t) => {
      const page = await t.openAt({ width: 375, height: 700 }, 'lesson=local&ls=4', '[data-testid="lesson-aside"]');
      const top = (sel) => page.$eval(sel, (e) => e.getBoundingClientRect().top + window.scrollY);
      const aside = await top('[data-testid="lesson-aside"]');
      t.assert.ok(aside > (await top('[data-testid="lesson-text"]')), 'under the words');
      t.assert.ok(aside < (await top('canvas[data-testid="heatmap"]')), `the aside at ${aside} px is above the first map`);
      t.assert.ok(aside < 1400, `the aside starts ${aside} px down the page`);
      await t.screenshot('newcomer-local-5-375');
      t.assert.deepEqual(t.errors(), []);
    },
  },
  {
    name: 'newcomer look: guessing covers every coloured pixel of the map, and the decode panel shows no weight',
    run: async (t) => {
      const page = await t.openAt({ width: 1440, height: 900 }, 's=the%20cat%20sat%20on%20the%20mat&d=4&h=1&p=seeded&step=weights', 'canvas[data-testid="heatmap"]');
      await page.focus('canvas[data-testid="heatmap"]');
      await page.keyboard.press('Enter');
      await page.check('[data-testid="explain-guess-toggle"]');
      await page.waitForSelector('[data-testid="guess-cover"]');
      // every pixel of the canvas with colour in it (the cells, the colour bar), and every
      // drawn pixel from the colour bar rightwards (its numbers: the top one stands above
      // the grid), lies under a cover
      const uncovered = await page.evaluate(() => {
        const canvas = document.querySelector('canvas[data-testid="heatmap"]');
        const r = canvas.getBoundingClientRect();
        const covers = [...canvas.parentElement.querySelectorAll('.al-guess-cover, .al-guess-cell')].map((c) => c.getBoundingClientRect());
        const ctx = canvas.getContext('2d');
        const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
        const sx = r.width / width, sy = r.height / height;
        const at = (x, y) => data.slice(4 * (y * width + x), 4 * (y * width + x) + 4);
        const coloured = ([red, green, blue, a]) => a >= 40 && Math.max(red, green, blue) - Math.min(red, green, blue) >= 40;
        const drawn = ([red, green, blue, a]) => a >= 40 && Math.min(red, green, blue) < 200;
        let barRight = 0;
        for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (coloured(at(x, y))) barRight = Math.max(barRight, x);
        const barLeft = barRight - Math.ceil(16 / sx);
        let n = 0;
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const p = at(x, y);
            if (!coloured(p) && !(x >= barLeft && drawn(p))) continue;
            const px = r.left + (x + 0.5) * sx, py = r.top + (y + 0.5) * sy;
            if (!covers.some((c) => px >= c.left && px <= c.right && py >= c.top && py <= c.bottom)) n++;
          }
        }
        return n;
      });
      t.assert.equal(uncovered, 0, `${uncovered} coloured pixels of the hidden map show`);
      // the KV-cache panel, guessing an output number: no weight and no output number shows
      await page.goto(t.url('/?lesson=kv-cache&ls=1'));
      await page.waitForSelector('[data-testid="decode-output"] [data-testid="decode-explain"]');
      await page.click('[data-testid="decode-output"] [data-testid="decode-explain"] >> nth=1');
      await page.check('[data-testid="explain-guess-toggle"]');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="decode-weights"] td')].every((td) => !/\d/.test(td.textContent)));
      const shown = await page.$$eval('[data-testid="decode-weights"] td, [data-testid="decode-output"] td', (tds) => tds.map((td) => td.textContent).filter((x) => /\d/.test(x)));
      t.assert.deepEqual(shown, []);
      await t.screenshot('newcomer-kv-2-guessing');
      t.assert.deepEqual(t.errors(), []);
    },
  },
];
