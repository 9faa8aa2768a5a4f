// The header's counters tell what the picture shows: inside an operation, the micro-step's free
// tree; for a `profile maple-tree` trace, the maple tree's own words (no CPUs, no lazy pages), and a
// stored range offers no vfree (a maple-tree trace has no allocator).
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { PlayerWidget } from './pages/player';

const A = (s: string) => `alloc ${s} 0x1 0xffffc90000000000 0xffffe8ffffffffff`;

test('inside an operation the free-block counter equals the free tree drawn, at every micro-step', async ({ page }) => {
  const app = new AppPage(page);
  const player = new PlayerWidget(page);
  // Three areas, the middle one freed, then the first: a merge (two free blocks become one).
  const trace = [A('0x2000'), A('0x2000'), A('0x2000'), 'free 0xffffc90000002000', 'free 0xffffc90000000000'].join('\n');
  await app.openTrace(trace, 4);
  const tree = page.locator('[data-widget="free-tree"] g.node[data-va-start]');
  let seen = 0;
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('ArrowRight');
    const pos = await player.position();
    if (pos.op >= 5) break;
    await expect.poll(async () => (await page.locator('[data-stat="free"] dd').textContent()) === String(await tree.count())).toBe(true);
    seen++;
  }
  expect(seen).toBeGreaterThan(3);
  expect(app.problems).toEqual([]);
});

test('a maple-tree trace speaks maple tree: stored and NULL ranges, height, nodes; no vfree offer', async ({ page }) => {
  const app = new AppPage(page);
  const trace = ['profile maple-tree', 'store 0x1000 0x1fff', 'store 0x5000 0x8fff', 'store 0x10000 0x10fff'].join('\n');
  await app.openTrace(trace);
  await expect(page.locator('[data-widget="maple-tree"] svg')).toBeVisible({ timeout: 20_000 });
  const stat = (k: string) => page.locator(`[data-stat="${k}"] dd`);
  await expect(stat('profile')).toHaveText('maple-tree');
  await expect(stat('stored')).toHaveText('3');
  // [0, 0xfff], [0x2000, 0x4fff], [0x9000, 0xffff], [0x11000, max]: four NULL ranges.
  await expect(stat('free')).toHaveText('4');
  await expect(page.locator('[data-stat="free"] dt')).toHaveText('NULL ranges');
  await expect(stat('height')).toHaveText('1');
  for (const k of ['cpus', 'lazy', 'lazy-pages', 'busy']) await expect(page.locator(`[data-stat="${k}"]`)).toHaveCount(0);
  await expect(page.locator('#space-legend')).toContainText('stored');
  await expect(page.locator('#space-legend')).not.toContainText('click to free');
  await app.bar.root.locator('g.area[data-state="busy"]').first().click();
  await expect(app.forms.popover).toBeHidden();
  expect(app.problems).toEqual([]);
});
