// axe-core (pinned in package-lock.json) run inside the page: the WCAG 2.1 A and AA
// rules, violations only. `axeViolations` returns them as plain data; `assertAxeClean`
// fails with one line per violation and the elements it names.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.0/2.1 level A and AA rule tags. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Runs axe-core on the page as it is now; returns its violations. */
export async function axeViolations(page) {
  const loaded = await page.evaluate(() => typeof window.axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const result = await window.axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  }, WCAG_TAGS);
}

/** Fails, naming `state`, when axe-core finds any violation. */
export async function assertAxeClean(t, page, state) {
  const violations = await axeViolations(page);
  if (violations.length === 0) return;
  const lines = violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 6).join(' | ')}${v.nodes.length > 6 ? ` (+${v.nodes.length - 6})` : ''}`,
  );
  t.assert.fail(`axe-core, ${state}: ${violations.length} violation(s)\n${lines.join('\n')}`);
}
