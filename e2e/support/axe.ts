// axe-core's accessibility rules run in the page (WCAG 2.x A and AA, and axe's best practices).
// The source is evaluated through the DevTools protocol, so the page's CSP need not allow it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

const AXE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
}
type Axe = { run: (ctx: unknown, o: unknown) => Promise<AxeResult> };

/** Each violation as `rule (impact): target, target…`; empty when the page is clean. */
export async function axeViolations(page: Page, opts: { exclude?: string[] } = {}): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async (exclude) => {
    const axe = (window as unknown as { axe: Axe }).axe;
    const ctx = exclude.length ? { include: [['html']], exclude: exclude.map((s) => [s]) } : document;
    const r = await axe.run(ctx, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(', ')}`);
  }, opts.exclude ?? []);
}
