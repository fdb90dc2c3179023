// axe-core (pinned in package-lock.json) run inside the page: the WCAG 2.1 A and AA
// rules, violations only. `axeViolations` returns them as plain data; `assertAxeClean`
// fails with one line per violation and the elements it names.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.0/2.1 level A and AA rule tags. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** The landmark rules Lighthouse's accessibility score counts beyond WCAG A and AA. */
export const MAIN_LANDMARK_RULES = ['landmark-one-main', 'landmark-no-duplicate-main', 'landmark-main-is-top-level'];

/**
 * Runs axe-core on the page as it is now; returns its violations. `rules`, when given,
 * runs those rules by id in place of the WCAG tags.
 */
export async function axeViolations(page, rules) {
  const loaded = await page.evaluate(() => typeof window.axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: WCAG_TAGS };
  return page.evaluate(async (only) => {
    const result = await window.axe.run(document, {
      runOnly: only,
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  }, runOnly);
}

/** Fails, naming `state`, when axe-core finds any violation (of `rules`, when given). */
export async function assertAxeClean(t, page, state, rules) {
  const violations = await axeViolations(page, rules);
  if (violations.length === 0) return;
  const lines = violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 6).join(' | ')}${v.nodes.length > 6 ? ` (+${v.nodes.length - 6})` : ''}`,
  );
  t.assert.fail(`axe-core, ${state}: ${violations.length} violation(s)\n${lines.join('\n')}`);
}
