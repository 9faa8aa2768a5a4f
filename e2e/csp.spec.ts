// The page ships a strict Content-Security-Policy (web/index.html): its own scripts and wasm, no inline
// script. Every mode is walked here and any policy violation or console error fails the test.
import { expect, test, type Page } from '@playwright/test';
import { Workbench } from './panels/workbench';

const V = (s: string) => `alloc ${s} 0x1 0xffffc90000000000 0xffffe8ffffffffff`;

/** Record every CSP violation the page reports (it fires before any console line). */
async function watchViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  await page.exposeFunction('__cspViolation', (s: string) => seen.push(s));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation: (s: string) => void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return seen;
}

test('the policy is in the page and allows no inline script', async ({ page }) => {
  await page.goto('./');
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("default-src 'self'");
  expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval'(;|$)/);
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  expect(await page.locator('script:not([src])').count()).toBe(0);
  // The theme is still set before the first paint, by the external theme script.
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toMatch(/^(light|dark)$/);
});

test('every mode runs under the policy without a violation or a console error', async ({ page }) => {
  test.setTimeout(120_000);
  const violations = await watchViolations(page);
  const wb = new Workbench(page);
  // Player, stepping, lecture mode, theme switch.
  await wb.open();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('End');
  await page.locator('[data-tool="lecture"]').click();
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await page.locator('[data-tool="lecture"]').click();
  await page.locator('[data-tool="theme"]').click();
  // Workbench tabs, compare mode, charts, the nodes view, exports (blob: downloads, PNG through an image).
  for (const t of ['workloads', 'nodes', 'charts', 'frag', 'struct', 'large'] as const) await wb.tab(t);
  await wb.tab('compare');
  await wb.tab('io');
  for (const action of ['export-bar-svg', 'export-tree-png']) {
    await Promise.all([page.waitForEvent('download'), wb.root.locator(`button[data-action="${action}"]`).click()]);
  }
  await wb.root.locator('button[data-action="permalink"]').click();
  await expect(wb.permalink).toHaveValue(/#(trace|z)=/);
  // Imports: a trace and a vmallocinfo through the worker.
  await wb.importText(['cpus 2', V('0x2000'), V('0x3000')].join('\n'));
  await wb.importText('0xffffc90000000000-0xffffc90000005000   20480 foo+0x1/0x2 pages=4 vmalloc\n', 'vmallocinfo');
  // A maple-rfc trace (the maple view) and a maple-tree trace.
  await wb.openTrace(['profile maple-rfc', 'cpus 2', V('0x2000'), V('0x4000')].join('\n'));
  await expect(page.locator('[data-widget="maple-tree"] svg')).toBeVisible({ timeout: 20_000 });
  await wb.openTrace(['profile maple-tree', 'store 0x1000 0x1fff', 'store 0x5000 0x8fff', 'empty 0x0 0xffff 0x1000'].join('\n'));
  await expect(page.locator('[data-widget="maple-tree"] svg')).toBeVisible({ timeout: 20_000 });
  // A compressed link (its worker) is made for a long trace.
  await wb.openTrace(Array.from({ length: 1200 }, (_, i) => V(`0x${(0x2000 + i * 0x1000).toString(16)}`)).join('\n'));
  await expect.poll(() => page.evaluate(() => location.hash), { timeout: 20_000 }).toMatch(/^#z=/);
  // A lesson stop's question answered, and the embedded layout driven by a message.
  await page.goto('./#lesson=maple&stop=3');
  await page.locator('[data-widget="lesson"] button[data-choice="wr_exact_fit"]').click();
  await expect(page.locator('[data-widget="lesson"]')).toHaveAttribute('data-revealed', 'true');
  // The embedded layout is chosen when the page loads (a new document, not a hash change).
  await page.goto('about:blank');
  await page.goto('./#lesson=free-tree&stop=3&embed=1');
  await expect(page.locator('body[data-ready="true"]')).toBeAttached({ timeout: 30_000 });
  await expect(page.locator('body')).toHaveClass(/\bembed\b/);
  await page.evaluate(() => window.postMessage({ type: 'vmapviz:go', op: 2, step: 0 }, '*'));
  expect(violations).toEqual([]);
  expect(wb.problems).toEqual([]);
});
