// The same dist/ served under a sub-path (as GitHub Pages serves a project site) works.
import { expect, test } from '@playwright/test';
import { SUBPATH_URL } from './support/urls';
import { AppPage } from './pages/app';

test('the production build works under /vmapviz/', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(SUBPATH_URL);
  await expect(app.heading).toHaveText('vmapviz');
  await page.keyboard.press('End'); // the default scenario opens mid-way
  await expect(app.tree.nodes).toHaveCount(5);
  await expect(app.bar.areas.first()).toHaveAttribute('data-va-start', '0x1');
  // Every asset (JS, CSS, wasm) came from under the sub-path.
  expect(app.problems).toEqual([]);
  const assets = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  expect(assets.some((u) => u.endsWith('.wasm'))).toBe(true);
  for (const u of assets) expect(u.startsWith(SUBPATH_URL)).toBe(true);
});
