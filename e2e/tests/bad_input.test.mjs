// Issue 7: never a blank page. One test per bad input; each checks that (a) the page
// says what is wrong (an error next to the control, or a notice), (b) nothing is thrown
// (no page error, no console error, no failed request, no panic banner) and (c) the page
// still answers: a further valid edit redraws the heatmap.
import { canvasHash } from '../lib/canvas.mjs';

const SENTENCES = '[data-testid="sentences"]';
const D_MODEL = '[data-testid="d-model"]';
const N_HEADS = '[data-testid="n-heads"]';
const IMPORT = '[data-testid="import-scenario"]';
const WEIGHTS = 'canvas[data-testid="heatmap"][data-step="weights"][data-head="0"][data-batch="0"]';
const DEFAULT_TEXT = 'I bought a baseball bat\nthe bat flew';

/** The error shown inside the label of `control`. */
// a number field's message follows its label (in the field's group); a menu's is inside it
const errorBy = (control) => `label:has(${control}) [data-testid="error"], .al-field-group:has(${control}) [data-testid="error"]`;

/** The pixels of the first weights heatmap, or 'none' when there is none. */
async function weightsHash(page) {
  return (await page.$(WEIGHTS)) ? canvasHash(page, WEIGHTS) : 'none';
}

/** The token chips of sentence `batch`, pads included unless `realOnly`. */
async function chips(page, batch = 0, realOnly = false) {
  const sel = `[data-testid="tokens"][data-batch="${batch}"] li${realOnly ? ':not(.al-pad)' : ''}`;
  return page.$$eval(sel, (els) => els.map((e) => e.textContent));
}

async function waitForText(page, selector, re) {
  await page.waitForFunction(
    ([sel, src, flags]) => [...document.querySelectorAll(sel)].some((e) => new RegExp(src, flags).test(e.textContent)),
    [selector, re.source, re.flags],
  );
  const texts = await page.$$eval(selector, (els) => els.map((e) => e.textContent));
  return texts.find((x) => re.test(x));
}

/** (b): no page error, console error or failed request, and no panic banner. */
async function nothingThrown(t, page) {
  t.assert.equal(await page.locator('[data-testid="panic"]').count(), 0, 'the panic banner is shown');
  t.assert.deepEqual(t.errors(), []);
}

/** The messages of the dialogs `page` opens from now on, each dismissed. */
function recordDialogs(page) {
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  return dialogs;
}

/** Types `text` (markup) as the sentences, once the dialogs are recorded and the page's
 *  elements that could run code are counted; returns both, once the first token is `<`. */
async function typeMarkup(page, text) {
  const dialogs = recordDialogs(page);
  const before = await injectable(page);
  await page.fill(SENTENCES, text);
  await page.waitForFunction(() => document.querySelector('[data-testid="tokens"][data-batch="0"] li')?.textContent === '<');
  return { dialogs, before };
}

/** After `typeMarkup`: no dialog opened, nothing that could run code was added, and the
 *  page's HTML does not hold `raw`, the markup's start, as markup. */
async function nothingInjected(t, page, { dialogs, before }, raw) {
  await page.waitForTimeout(300);
  t.assert.deepEqual(dialogs, []);
  t.assert.deepEqual(await injectable(page), before);
  t.assert.equal(await page.evaluate((r) => document.body.innerHTML.includes(r), raw), false, 'raw markup in the DOM');
}

/** (b) and (c): nothing thrown, and the page still redraws after `edit`. */
async function stillWorks(t, page, edit) {
  await nothingThrown(t, page);
  await stillRedraws(t, page, edit);
}

/** (c): after `edit` (a valid one), the heatmap redraws and nothing is stale any more. */
async function stillRedraws(t, page, edit = () => page.fill(SENTENCES, 'the spunky dog wanted to jump')) {
  const before = await weightsHash(page);
  await edit();
  const deadline = Date.now() + 10_000;
  let now = before;
  while (now === before || now === 'none' || now.startsWith('empty')) {
    if (Date.now() > deadline) t.assert.fail(`the heatmap did not redraw after a valid edit (still ${now})`);
    await page.waitForTimeout(50);
    now = await weightsHash(page);
  }
  t.assert.equal(await page.locator('[data-testid="stale"]').count(), 0, 'still marked stale after a valid edit');
  await nothingThrown(t, page);
}

/** True when the page is wider than the viewport (a horizontal scroll bar). */
const overflows = (page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** Counts of the elements an injection would add. */
const injectable = (page) =>
  page.evaluate(() => Object.fromEntries(
    ['script', 'img', 'iframe', 'object', 'embed', 'svg image'].map((s) => [s, document.querySelectorAll(s).length])));

/** Opens the app and waits for the default picture. */
async function openApp(t, query = '') {
  const page = await t.open(query, WEIGHTS);
  return page;
}

// ---------------------------------------------------------------------------------------
// Tampered links: each falls back to the default with a notice that names the value.
const TAMPERED = [
  ['wrong type: d=abc', 'd=abc', /d="abc" is not a whole number from 1 to 512/, { d: '3' }],
  ['wrong type: causal=maybe', 'causal=maybe', /causal="maybe" is not 0 or 1/, {}],
  ['wrong type: p=42', 'p=42', /p="42" is not identity or seeded/, {}],
  ['wrong type: step=<img src=x onerror=alert(1)>', 'step=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', /step="<img src=x onerror=alert\(1\)>" is not a step name/, {}],
  ['negative: d=-8', 'd=-8', /d="-8" is not a whole number/, { d: '3' }],
  ['negative: h=-2', 'h=-2', /h="-2" is not a whole number from 1 to 64/, { h: '1' }],
  ['negative: seed=-1', 'p=seeded&seed=-1', /seed="-1" is not a whole number/, {}],
  ['huge: d=99999999999999999999999', 'd=99999999999999999999999', /d="99999999999999999999999" is not/, { d: '3' }],
  ['huge: d=100000', 'd=100000', /d="100000" is not a whole number from 1 to 512/, { d: '3' }],
  ['huge: h=65', 'h=65', /h="65" is not a whole number from 1 to 64/, { h: '1' }],
  ['huge: b=1e9', 'b=1e9', /b="1e9" is not a sentence number/, {}],
  ['unknown key: zzz=1', 'zzz=1', /unknown setting "zzz" was ignored/, {}],
  ['unknown key with a cut escape: %E2%82=1', '%E2%82=1', /unknown setting "\uFFFD+" was ignored/, {}],
  ['truncated value: s=%E2%82 (a cut UTF-8 escape)', 's=%E2%82', /s="\uFFFD+" is not valid text \(a %-escape in the link is cut off/, { s: DEFAULT_TEXT }],
  ['truncated value: d= (empty)', 'd=', /d="" is not a whole number/, { d: '3' }],
  ['truncated value: s= (empty)', 's=', /s="" is not any text/, { s: DEFAULT_TEXT }],
  ['doubly encoded: s=hello%2520world', 's=hello%2520world', /s="hello%20world" is not plain text \(it looks %-encoded twice\)/, { s: DEFAULT_TEXT }],
  ['control character: s=a%00b', 's=a%00b', /s="a\\u\{0\}b" is not plain text \(it has control characters\)/, { s: DEFAULT_TEXT }],
  ['unknown lesson: lesson=nope', 'lesson=nope', /lesson "nope" does not exist/, {}],
];

const tamperedTests = TAMPERED.map(([what, query, notice, defaults]) => ({
  name: `tampered link, ${what}: default + notice, no crash, still redraws`,
  run: async (t) => {
    const page = await openApp(t, query);
    await waitForText(page, '[data-testid="notice"]', notice);
    if (defaults.s) t.assert.equal(await page.inputValue(SENTENCES), defaults.s);
    if (defaults.d) t.assert.equal(await page.inputValue(D_MODEL), defaults.d);
    if (defaults.h) t.assert.equal(await page.inputValue(N_HEADS), defaults.h);
    t.assert.equal(await page.locator('[data-testid="error"]').count(), 0, 'a link value fell back, so nothing is in error');
    await stillWorks(t, page);
  },
}));

// ---------------------------------------------------------------------------------------

// A size typed out of range: its error next to the field, the last picture kept and
// marked stale, nothing thrown, and a good value redraws.
const sizeErrorTests = [
  ['d_model 0: error next to d_model, last picture kept', D_MODEL, '0', /^d_model must be a whole number from 1 to 512, not "0"; until then the page uses d_model = 8$/],
  ['h 0: error next to h, last picture kept', N_HEADS, '0', /^h must be a whole number from 1 to 64, not "0"; until then the page uses h = 2$/],
  [
    'huge d_model (100000 typed): a clear error next to d_model, not a silent cut',
    D_MODEL,
    '100000',
    /^d_model must be a whole number from 1 to 512, not "100000"; until then the page uses d_model = 8$/,
  ],
  ['huge h (100 typed): a clear error next to h, not a silent cut', N_HEADS, '100', /^h must be a whole number from 1 to 64, not "100"; until then the page uses h = 2$/],
].map(([name, field, typed, says]) => ({
  name,
  run: async (t) => {
    const page = await openApp(t, 's=the%20cat%20sat&d=8&h=2');
    await page.fill(field, typed);
    await waitForText(page, errorBy(field), says);
    await page.waitForSelector('[data-testid="stale"]');
    await stillWorks(t, page, () => page.fill(field, '4'));
  },
}));

// A value a field does not take is not applied: the page keeps the last value it took,
// says so, and so does its link. A page opened from that link has no notice and no
// clash (d=0 once fell back to d_model 16, which h = 3 does not divide), and its field
// shows the value in use. [field, typed, link key, the link's value (null: left out)]
const LINK_KEEPS = [
  ['d-model', '0', 'd', '8'],
  ['d-model', '100000', 'd', '8'],
  ['n-heads', '0', 'h', '2'],
  ['n-kv-heads', '0', 'hkv', null],
  ['n-layers', '5', 'layers', null],
  ['mask-window', '0', 'win', null],
  ['rope-base', '-1', 'rope_base', null],
  ['scale', '-1', 'scale', null],
  ['softcap', '-2', 'softcap', null],
];

const linkKeepsTest = {
  name: 'a value a field does not take (d_model 0, h 0, h_kv 0, layers 5, window 0, RoPE base -1…) never reaches the link: a page opened from it shows the value in use, no notice, no clash',
  timeoutMs: 180000,
  run: async (t) => {
    const start = 's=the%20cat%20sat&d=8&h=2&rope=half';
    for (const [testid, typed, key, kept] of LINK_KEEPS) {
      const field = `[data-testid="${testid}"]`;
      const page = await openApp(t, start);
      const inUse = await page.inputValue(field);
      await page.fill(field, typed);
      const said = await waitForText(page, errorBy(field), /must be/);
      const uses = said.match(/; until then the page uses [^=]+ = (.+)$/);
      t.assert.ok(uses && (inUse === '' || uses[1] === inUse), `${testid} ${typed}: ${said}`);
      // the link: the value in use, not the typed one
      await page.waitForTimeout(150);
      const search = await page.evaluate(() => location.search);
      t.assert.equal(new URLSearchParams(search).get(key), kept, `${testid} ${typed}: the link holds ${search}`);
      await page.goto(t.url(`/${search}`));
      await page.waitForSelector(WEIGHTS);
      await page.waitForTimeout(200);
      t.assert.equal(await page.locator('[data-testid="notice"]').count(), 0, `${testid} ${typed}: a notice in the page opened from ${search}`);
      t.assert.equal(await page.locator('[data-testid="error"]').count(), 0, `${testid} ${typed}: an error in the page opened from ${search}`);
      t.assert.equal(await page.inputValue(field), inUse, `${testid} ${typed}: the field opened from the link`);
      await nothingThrown(t, page);
    }
  },
};

// On a phone the controls' rows wrap into many lines: a field's message sits directly
// under its own field (number field and menu alike), not after the whole row.
const phoneMessageTest = {
  name: 'on a phone (375 px) a field\'s message sits directly under its field: d_model 0, RoPE with an odd d_k',
  run: async (t) => {
    await t.page.setViewportSize({ width: 375, height: 812 });
    const page = await openApp(t, 's=the%20cat%20sat&d=6&h=2');
    // a phone opens with the controls folded
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    await page.waitForTimeout(200);
    const under = async (field) => {
      await page.waitForSelector(errorBy(field));
      await page.waitForTimeout(100);
      return page.evaluate(([f, e]) => {
        const box = document.querySelector(f).getBoundingClientRect();
        const msg = document.querySelector(e).getBoundingClientRect();
        return { gap: msg.top - box.bottom, left: msg.left - box.left, right: msg.right, width: innerWidth };
      }, [field, errorBy(field)]);
    };
    await page.fill(D_MODEL, '0');
    const d = await under(D_MODEL);
    t.assert.ok(d.gap >= 0 && d.gap <= 12 && Math.abs(d.left) <= 4 && d.right <= d.width, `d_model's message: ${JSON.stringify(d)}`);
    await page.locator(D_MODEL).scrollIntoViewIfNeeded();
    await t.screenshot('bad-input-d-model-0-375');
    await page.fill(D_MODEL, '6');
    await page.waitForSelector(errorBy(D_MODEL), { state: 'detached' });
    await page.selectOption('[data-testid="rope"]', 'half');
    const r = await under('[data-testid="rope"]');
    t.assert.ok(r.gap >= 0 && r.gap <= 12 && Math.abs(r.left) <= 4 && r.right <= r.width, `RoPE's message: ${JSON.stringify(r)}`);
    t.assert.equal(await overflows(page), false, 'the page is wider than the phone');
    await page.locator('[data-testid="rope"]').scrollIntoViewIfNeeded();
    await t.screenshot('bad-input-rope-odd-375');
    await nothingThrown(t, page);
  },
};

// A link the engine refuses (RoPE with d_k = 3; h = 3 does not divide d_model 7) draws
// nothing. The top of the page says why and where to change it; on a phone the fold that
// holds the controls opens on the control's own message; on a wide screen the message is
// in the first screen, not only under the empty picture.
const refusedLinkTest = {
  name: 'a link the engine refuses (rope=half with d_k 3, d=7&h=3) says why at the top and opens the controls on a phone: 375 px and 1440 px',
  run: async (t) => {
    const cases = [
      ['s=the%20cat%20sat&rope=half', '[data-testid="rope"]', /Nothing can be drawn for this link: .*RoPE.*Change it under “Change the sentences and sizes”\./],
      ['s=the%20cat&d=7&h=3', N_HEADS, /Nothing can be drawn for this link: .*7.*3.*Change it under “Change the sentences and sizes”\./],
    ];
    for (const [width, height] of [[375, 812], [1440, 900]]) {
      for (const [query, control, said] of cases) {
        const page = await t.openAt({ width, height }, query, '[data-testid="nothing-drawn"]');
        const top = await page.locator('[data-testid="nothing-drawn"]');
        t.assert.match(await top.textContent(), said, `${query} at ${width} px`);
        const box = await top.boundingBox();
        t.assert.ok(box && box.y + box.height <= height, `${query} at ${width} px: the message is below the first screen (${JSON.stringify(box)})`);
        // the control's own message is visible (the phone's fold is open)
        t.assert.ok(await page.locator(errorBy(control)).isVisible(), `${query} at ${width} px: the control's message is hidden`);
        t.assert.equal(await overflows(page), false, `${query} at ${width} px: the page is wider than the window`);
        if (width === 375) await t.screenshot(`refused-link-${query.includes('rope') ? 'rope' : 'heads'}-375`, { fullPage: false });
        await nothingThrown(t, page);
      }
    }
    // once the learner fixes it, the message goes and a picture is drawn
    const page = t.page;
    await page.fill(N_HEADS, '1');
    await page.waitForSelector(WEIGHTS);
    t.assert.equal(await page.locator('[data-testid="nothing-drawn"]').count(), 0, 'the message stays after the fix');
  },
};

export const tests = [
  refusedLinkTest,
  phoneMessageTest,
  linkKeepsTest,
  {
    name: 'a browser without WebAssembly SIMD gets a message saying which browsers work, not an empty page',
    run: async (t) => {
      // this Chromium has SIMD: no message, the app starts
      const page = await openApp(t);
      t.assert.equal(await page.locator('[data-testid="unsupported"]').count(), 0, 'message shown in a browser with SIMD');
      await nothingThrown(t, page);
      // one without it: validate says no and compiling fails, as it would there
      const old = await t.context.newPage();
      await old.setViewportSize({ width: 375, height: 700 });
      await old.addInitScript(() => {
        const no = () => Promise.reject(new WebAssembly.CompileError('invalid opcode 0xfd (simulated: no SIMD)'));
        WebAssembly.validate = () => false;
        Object.assign(WebAssembly, { compile: no, compileStreaming: no, instantiate: no, instantiateStreaming: no });
      });
      await old.goto(t.url('/'));
      const box = old.locator('[data-testid="unsupported"]');
      await box.waitFor();
      const text = await box.textContent();
      for (const want of [/needs a newer browser/, /WebAssembly with SIMD/, /Chrome or Edge 91/, /Firefox 89/, /Safari 16\.4/]) {
        t.assert.match(text, want);
      }
      t.assert.ok(await box.isVisible(), 'the message is visible');
      t.assert.equal(await overflows(old), false, 'the message fits 375 px');
      await old.screenshot({ path: new URL('../screenshots/unsupported-375.png', import.meta.url).pathname });
      t.assert.equal(await old.locator('[data-testid="app-ready"]').count(), 0, 'the app cannot have started');
    },
  },
  {
    name: 'empty text (only blank lines): error next to the sentences, last picture kept and marked stale',
    run: async (t) => {
      const page = await openApp(t);
      const before = await weightsHash(page);
      await page.fill(SENTENCES, '\n   \n\t\n\n');
      await waitForText(page, errorBy(SENTENCES), /there are no sentences: type at least one/);
      await page.waitForSelector('[data-testid="stale"]');
      t.assert.equal(await weightsHash(page), before, 'the last valid picture stays on screen');
      await stillWorks(t, page);
    },
  },
  {
    name: '10 000 words pasted: truncation notice, 128 tokens, and the next keystroke answers within a second',
    run: async (t) => {
      const page = await openApp(t);
      const words = Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(' ');
      await page.fill(SENTENCES, words);
      await waitForText(page, '[data-testid="notice"]', /Sentence 1 has 10000 tokens; only the first 128 are used/);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="tokens"][data-batch="0"] li').length === 128);
      const first = await chips(page);
      t.assert.deepEqual([first[0], first[127]], ['w0', 'w127']);

      // One keystroke at the start of the text: time from its keydown to the token list
      // showing the new first token, measured in the page.
      await page.focus(SENTENCES);
      await page.keyboard.press('Control+Home');
      await page.evaluate(() => {
        const list = document.querySelector('[data-testid="tokens"][data-batch="0"]').parentElement;
        const firstChip = () => document.querySelector('[data-testid="tokens"][data-batch="0"] li')?.textContent;
        window.__latency = new Promise((resolve, reject) => {
          let t0;
          document.querySelector('[data-testid="sentences"]').addEventListener('keydown', () => { t0 = performance.now(); }, { once: true, capture: true });
          const check = () => {
            if (t0 !== undefined && firstChip() === 'zw0') { observer.disconnect(); resolve(performance.now() - t0); }
          };
          const observer = new MutationObserver(check);
          observer.observe(list, { subtree: true, childList: true, characterData: true });
          setTimeout(() => reject(new Error('the token list did not update within 10 s')), 10_000);
        });
      });
      await page.keyboard.press('z');
      const ms = await page.evaluate(() => window.__latency);
      console.log(`  # keystroke → token list, 10 000 words in the text: ${ms.toFixed(1)} ms`);
      t.assert.ok(ms < 1000, `the token list took ${ms.toFixed(0)} ms to answer a keystroke`);
      t.assert.equal((await chips(page))[0], 'zw0');
      await stillWorks(t, page);
      t.assert.equal(await page.locator('[data-testid="notice"]').count(), 0, 'the notice goes once the text is short');
    },
  },
  {
    name: 'emoji (skin tones, ZWJ families, flags, keycaps), CJK, Arabic, Hebrew and combining marks: tokens stay whole, no overflow',
    run: async (t) => {
      const page = await openApp(t);
      const lines = [
        '👍🏽 👋🏿 👨‍👩‍👧‍👦 👩🏽‍💻 🇯🇵 1️⃣ family',
        '你好世界 日本語のテキスト カタカナ 한국어',
        'مرحبا بالعالم',
        'שָׁלוֹם עולם',
        'e\u0301te\u0301 n\u0303 Z\u0351\u0352\u0353a\u0354l\u0355g\u0356o\u0357',
      ];
      await page.fill(SENTENCES, lines.join('\n'));
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="tokens"]').length === n, lines.length);
      const whole = ['👍🏽', '👋🏿', '👨‍👩‍👧‍👦', '👩🏽‍💻', '🇯🇵', '1️⃣', 'カタカナ', '한국어', 'مرحبا', 'بالعالم', 'שָׁלוֹם', 'עולם', 'e\u0301te\u0301', 'n\u0303', 'Z\u0351\u0352\u0353a\u0354l\u0355g\u0356o\u0357'];
      const all = [];
      for (let b = 0; b < lines.length; b++) {
        const real = await chips(page, b, true);
        all.push(...real);
        // nothing lost, nothing split inside a character
        t.assert.equal(real.join(''), lines[b].replace(/\s+/g, ''), `sentence ${b + 1}: ${JSON.stringify(real)}`);
        for (const c of real) {
          t.assert.ok(c.isWellFormed(), `chip ${JSON.stringify(c)} has a lone surrogate`);
          t.assert.ok(!/^[\p{M}\u200d\ufe0f\u{1f3fb}-\u{1f3ff}]/u.test(c), `chip ${JSON.stringify(c)} starts inside a character`);
        }
      }
      for (const w of whole) t.assert.ok(all.includes(w), `${JSON.stringify(w)} is not one token: ${JSON.stringify(all)}`);
      t.assert.equal(await overflows(page), false, 'the page is wider than the window at 1440 px');
      await page.setViewportSize({ width: 375, height: 800 });
      await page.waitForTimeout(200);
      t.assert.equal(await overflows(page), false, 'the page is wider than the window at 375 px');
      await t.screenshot('bad-input-unicode-375');
      await page.setViewportSize({ width: 1440, height: 900 });
      await stillWorks(t, page);
    },
  },
  {
    name: 'a 400-letter word and 128 tokens at 375 px: tokens whole, the page is not wider than the window',
    run: async (t) => {
      const page = await openApp(t);
      await page.setViewportSize({ width: 375, height: 800 });
      const long = 'a'.repeat(400);
      await page.fill(SENTENCES, `${long} end\n${'x '.repeat(200)}`);
      await waitForText(page, '[data-testid="notice"]', /Sentence 2 has 200 tokens/);
      t.assert.deepEqual((await chips(page, 0, true)), [long, 'end']);
      await page.waitForTimeout(200);
      t.assert.equal(await overflows(page), false, 'the page is wider than the window at 375 px');
      await t.screenshot('bad-input-long-375');
      await stillWorks(t, page);
    },
  },
  {
    name: '<script>alert(1)</script> as a sentence: text tokens, no dialog, nothing injected',
    run: async (t) => {
      const page = await openApp(t);
      const typed = await typeMarkup(page, '<script>alert(1)</script>');
      t.assert.deepEqual(await chips(page), ['<', 'script', '>', 'alert', '(', '1', ')', '<', '/', 'script', '>']);
      await nothingInjected(t, page, typed, '<script>alert');
      await stillWorks(t, page);
      t.assert.deepEqual(typed.dialogs, []);
    },
  },
  {
    name: '<img src=x onerror=alert(1)> as a sentence: text tokens, no dialog, nothing injected',
    run: async (t) => {
      const page = await openApp(t);
      const input = '<img src=x onerror=alert(1)>';
      const typed = await typeMarkup(page, `${input}\nthe bat`);
      const real = await chips(page, 0, true);
      t.assert.equal(real.join(''), input.replace(/\s+/g, ''));
      t.assert.ok(real.includes('img') && real.includes('onerror'), JSON.stringify(real));
      // the batch tab carries the sentence as text too
      await waitForText(page, '[data-testid="batch-tab"]', /1\. < img src = x onerror = alert \( 1 \) >/);
      await nothingInjected(t, page, typed, '<img src');
      await stillWorks(t, page); // an injected <img src=x> would also show as a failed request
    },
  },
  {
    name: '<img src=x onerror=alert(1)> in the link (s=…): text tokens, no dialog, nothing injected',
    run: async (t) => {
      const dialogs = recordDialogs(t.page);
      const page = await openApp(t, `s=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
      t.assert.equal((await chips(page))[0], '<');
      await page.waitForTimeout(300);
      t.assert.deepEqual(dialogs, []);
      t.assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
      await stillWorks(t, page);
    },
  },
  {
    name: 'd_model not divisible by h (7 / 2): error next to h, d_k explained, last picture kept',
    run: async (t) => {
      const page = await openApp(t, 's=the%20cat%20sat&d=8&h=2');
      const before = await weightsHash(page);
      await page.fill(D_MODEL, '7');
      await waitForText(page, errorBy(N_HEADS), /d_model = 7 is not divisible by h = 2/);
      t.assert.equal(await page.textContent('[data-testid="d-k"]'), 'd_k = d_model / h is not a whole number');
      await page.waitForSelector('[data-testid="stale"]');
      t.assert.equal(await weightsHash(page), before);
      await stillWorks(t, page, () => page.fill(D_MODEL, '6'));
    },
  },
  ...sizeErrorTests,
  ...tamperedTests,
  {
    name: 'a field that does not parse (d_model "1e", sinks "1,x"): its message, the pictures marked stale until it parses',
    run: async (t) => {
      const page = await openApp(t, 's=the%20cat%20sat&d=8&h=2&p=seeded');
      const SINKS = '[data-testid="sinks"]';
      const marked = () => page.$eval('.al-app', (e) => e.classList.contains('al-stale'));
      t.assert.equal(await marked(), false, 'stale before any edit');
      // a number field holding text that is not a number ("1e": the browser reports it empty)
      await page.focus(D_MODEL);
      await page.keyboard.press('Control+A');
      await page.keyboard.type('1e');
      // ("1" parsed on the way: the message says the page uses it)
      await waitForText(page, errorBy(D_MODEL), /d_model must be a whole number from 1 to 512; the field holds no number; until then the page uses d_model = 1$/);
      await page.waitForSelector('[data-testid="stale"]');
      t.assert.equal(await marked(), true, 'the pictures are not marked stale');
      // "2.5" typed key by key: the "2." must not be written back as "2" (the dot dropped,
      // the caret first, and the 5 typed before the 2)
      await page.keyboard.press('Control+A');
      for (const k of '2.5') await page.keyboard.type(k, { delay: 80 });
      await waitForText(page, errorBy(D_MODEL), /d_model must be a whole number from 1 to 512, not "2.5"; until then the page uses d_model = 2$/);
      t.assert.equal(await page.inputValue(D_MODEL), '2.5');
      await t.screenshot('bad-input-stale-d-model');
      await stillRedraws(t, page, () => page.fill(D_MODEL, '4'));
      t.assert.equal(await marked(), false, 'still marked stale after d_model parses');
      // text that is not a number in an optional field (empty means none, so the browser's
      // "" would pass as "none"; a number field takes "1e" but not "x") and a decimal seed
      // say so beside themselves too
      const H_KV = '[data-testid="n-kv-heads"]';
      await page.focus(H_KV);
      await page.keyboard.type('1e');
      // (the digits typed before the "e" parsed on the way: the page uses them)
      await waitForText(page, errorBy(H_KV), /h_kv must be a whole number from 1 to 64; the field holds no number; until then the page uses h_kv = \d+$/);
      await page.fill(H_KV, '');
      await page.waitForSelector(errorBy(H_KV), { state: 'detached' });
      await page.fill('[data-testid="seed"]', '2.5');
      await waitForText(page, errorBy('[data-testid="seed"]'), /the seed must be a whole number of at least 0, not "2.5"/);
      await page.fill('[data-testid="seed"]', '3');
      // a list with a word that is not a number
      await page.fill(SINKS, '1,x');
      await page.press(SINKS, 'Enter');
      await waitForText(page, errorBy(SINKS), /the sinks must be numbers/);
      await page.waitForSelector('[data-testid="stale"]');
      t.assert.equal(await marked(), true, 'the pictures are not marked stale under a bad list');
      await stillRedraws(t, page, async () => {
        await page.fill(SINKS, '1, 0.5');
        await page.press(SINKS, 'Enter');
      });
      t.assert.equal(await marked(), false);
    },
  },
  {
    name: 'imports of the score options and MLA: valid ones open their steps, bad ones name the option',
    run: async (t) => {
      const page = await openApp(t);
      const load = (o) => page.setInputFiles(IMPORT, {
        name: 's.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ d_model: 4, n_heads: 2, ...o })),
      });
      const step = (name) => page.waitForSelector(`[data-testid="trace-step"][data-step="${name}"]`, { state: 'attached' });
      // MLA, GQA with every score option under cross-attention and padding, d_model 2: each opens
      await load({ sentences: ['the bat flew'], mask: { causal: true }, rope: { style: 'interleaved', base: 10000 },
        mla: { kv_lora_rank: 2, qk_nope_head_dim: 2, qk_rope_head_dim: 2, v_head_dim: 3 } });
      await step('c_kv');
      await step('k_pe');
      await load({ sentences: ['the cat sat', 'a dog'], kv_sentences: ['warm mat a dog ran', 'x'], d_model: 8, n_heads: 4,
        n_kv_heads: 2, d_head: 3, scale: 0.25, softcap: 2, qk_norm: { eps: 1e-6 }, sinks: [0.5, -1, 0, 2],
        mask: { padding: 'keys_and_queries', window: 1 } });
      await step('q_norm');
      await step('capped');
      t.assert.match(await page.textContent('[data-testid="trace-step"][data-step="k_heads"] [data-testid="step-shape"]'), /\(2, 2, 5, 3\)/);
      await load({ sentences: ['baseball bat bat'], d_model: 2, n_heads: 2, softcap: 0.5, sinks: [0, 1], alibi: true });
      await step('capped');
      t.assert.equal(await page.locator('[data-testid="error"]').count(), 0, 'a valid import shows no error');
      // a bad option is named, with what it must be
      await load({ sentences: ['bat'], softcap: 0 });
      await waitForText(page, '[data-testid="error"]', /the softcap is 0: it must be a finite number greater than 0/);
      await load({ sentences: ['bat'], sinks: [1] });
      await waitForText(page, '[data-testid="error"]', /there are 1 attention sinks, but h = 2: one learned logit per query head/);
      // the file's values are in the controls, the message beside the sinks field; one
      // sink per head typed there, and the page redraws
      const sinksError = page.locator('label:has([data-testid="sinks"]) [data-testid="error"], .al-field-group:has([data-testid="sinks"]) [data-testid="error"]');
      t.assert.match(await sinksError.first().textContent(), /attention sinks/);
      await nothingThrown(t, page);
      await stillRedraws(t, page, async () => {
        await page.fill('[data-testid="sinks"]', '1, 0.5');
        await page.press('[data-testid="sinks"]', 'Enter');
      });
      t.assert.equal(await page.locator('[data-testid="error"]').count(), 0, 'the typed sinks are valid');
    },
  },
  {
    name: 'import of an invalid scenario file ({bad): error shown, page still works',
    run: async (t) => {
      const page = await openApp(t);
      await page.setInputFiles(IMPORT, { name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{bad') });
      await waitForText(page, '[data-testid="error"]', /the scenario JSON is not valid: key must be a string at line 1 column 2/);
      t.assert.equal(await page.inputValue(SENTENCES), DEFAULT_TEXT, 'the inputs are kept');
      await stillWorks(t, page);
    },
  },
  {
    name: 'import of an empty file: error shown, page still works',
    run: async (t) => {
      const page = await openApp(t);
      await page.setInputFiles(IMPORT, { name: 'empty.json', mimeType: 'application/json', buffer: Buffer.from('') });
      await waitForText(page, '[data-testid="error"]', /the scenario JSON is not valid: EOF while parsing/);
      await stillWorks(t, page);
    },
  },
  {
    name: 'import of a scenario with 1e999 (parses to infinity): a clear error, page still works',
    run: async (t) => {
      const page = await openApp(t);
      const json = '{"sentences": ["a b"], "d_model": 4, "n_heads": 2, "embeddings": {"a": [1e999, 0, 0, 0]}, "projections": "identity"}';
      await page.setInputFiles(IMPORT, { name: 'inf.json', mimeType: 'application/json', buffer: Buffer.from(json) });
      const msg = await waitForText(page, '[data-testid="error"]', /1e999|out of range|finite/);
      t.assert.match(msg, /finite numbers with \|x\| ≤ 1e30/, msg);
      t.assert.equal(await page.inputValue(SENTENCES), DEFAULT_TEXT, 'the inputs are kept');
      await stillWorks(t, page);
    },
  },
  {
    name: 'import of a scenario with a 1e31 weight: error for the projections, last picture kept',
    run: async (t) => {
      const page = await openApp(t);
      const m = (v) => [[v, 0], [0, 1]];
      const json = JSON.stringify({ sentences: ['a b'], d_model: 2, n_heads: 1, projections: { w_q: m(1), w_k: m(1e31), w_v: m(1), w_o: m(1) } });
      await page.setInputFiles(IMPORT, { name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(json) });
      await waitForText(page, errorBy('[data-testid="projections"]'), /w_k\[0\]\[0\] is 1e31: inputs must be finite numbers with \|x\| ≤ 1e30/);
      await page.waitForSelector('[data-testid="stale"]');
      await stillWorks(t, page, () => page.selectOption('[data-testid="projections"]', 'identity'));
    },
  },
  {
    name: 'import with markup and a 3000-letter word in an error message: shown as text, the page is not wider than the window',
    run: async (t) => {
      const page = await openApp(t);
      const dialogs = recordDialogs(page);
      const word = `<img src=x onerror=alert(1)>${'b'.repeat(3000)}`;
      const json = JSON.stringify({ sentences: [word], d_model: 3, n_heads: 1, embeddings: { [word]: [1, 2] } });
      await page.setInputFiles(IMPORT, { name: 'long.json', mimeType: 'application/json', buffer: Buffer.from(json) });
      await waitForText(page, '[data-testid="error"]', /the embedding of "<img src=x onerror=alert\(1\)>b+.*" has 2 numbers, but d_model = 3/);
      await page.waitForTimeout(300);
      t.assert.deepEqual(dialogs, []);
      t.assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
      t.assert.equal(await overflows(page), false, 'the page is wider than the window');
      await page.setViewportSize({ width: 375, height: 800 });
      await page.waitForTimeout(200);
      t.assert.equal(await overflows(page), false, 'the page is wider than the window at 375 px');
      await nothingThrown(t, page);
      // the message says how to fix it: d_model = 2 fits the imported vector
      await stillRedraws(t, page, () => page.fill(D_MODEL, '2'));
    },
  },
];
