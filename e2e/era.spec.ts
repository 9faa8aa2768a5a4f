// Issue 60, item 3: each era's own structures in lecture mode. linux-5.1 (the walk lesson) has
// no free tree: its busy list in address order with the cache the search used and the walk's
// cursor; linux-6.9 (the nodes lesson): the vmap nodes with their pools by size and their lazy
// lists, the pool or list the step names highlighted. Expected values are argued from the traces
// (web/src/lessons/traces/walk_51.trace; the stops' claims, which lessons.test.ts checks against
// the core's events), not read from the page.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test.use({ viewport: { width: 1280, height: 720 } });

test('5.1: the busy list with free_vmap_cache and the walk, no free tree', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=walk&stop=3&lecture=1');
  const era = page.locator('[data-widget="era"]');
  await expect(era).toBeVisible();
  await expect(era).toHaveAttribute('data-era', 'list');
  await expect(page.locator('[data-widget="free-tree"]')).toBeHidden();
  await expect(page.locator('#tree-title')).toHaveText('Busy list');
  // Eight one-page areas from 0x100000; the second and third freed: six left, in address order.
  const starts = await era.locator('.era-area .era-addr').allTextContents();
  expect(starts).toEqual(['0x100000', '0x103000', '0x104000', '0x105000', '0x106000', '0x107000']);
  // The frees moved the cache below the hole (area #0); the walk is at the last area (#7),
  // its candidate past it, the 2-page hole noted (the stop's claim: id 7, cached_hole_size 0x2000).
  await expect(era.locator('.era-area.cache')).toHaveAttribute('data-id', '0');
  await expect(era.locator('.era-area.cursor')).toHaveAttribute('data-id', '7');
  const facts = era.getByTestId('era-facts');
  await expect(facts).toContainText('free_vmap_cache: area #0');
  await expect(facts).toContainText('walk: at #7, candidate 0x108000, cached_hole_size 0x2000');
  // The stop outlines the list, and the list is whole on screen.
  await expect(era).toHaveClass(/lesson-look/);
  const box = await era.boundingBox();
  expect(box && box.y >= 0 && box.y + box.height <= 720).toBe(true);
  expect(app.problems).toEqual([]);
});

test('5.1: a smaller request drops the cache (cache_reset, smaller_than_hole)', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=walk&stop=4&lecture=1');
  const era = page.locator('[data-widget="era"]');
  await expect(era.getByTestId('era-facts')).toContainText('free_vmap_cache dropped (smaller than hole)');
  await expect(era.locator('.era-area.cache')).toHaveCount(0);
});

test('6.9: the vmap nodes, the pool a hit takes from highlighted', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=nodes&stop=5&lecture=1');
  const era = page.locator('[data-widget="era"]');
  await expect(era).toHaveAttribute('data-era', 'nodes');
  // Two CPUs, two vmap nodes.
  await expect(era.locator('.era-node')).toHaveCount(2);
  // The stop's claim: pool_hit on node 1, pool 1.
  const hot = era.locator('.era-pool.hot');
  await expect(hot).toHaveCount(1);
  await expect(hot).toHaveAttribute('data-pool', '1');
  await expect(era.locator('.era-node[data-node="1"] .era-pool.hot')).toHaveCount(1);
  await expect(era.locator('.era-node[data-node="0"]')).not.toHaveClass(/hot/);
  await expect(page.locator('[data-widget="free-tree"]')).toBeVisible();
  expect(app.problems).toEqual([]);
});

test('6.9: the purge pools node 1\'s lazy areas (pooled, node 1, pool 1)', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=nodes&stop=4&lecture=1');
  const era = page.locator('[data-widget="era"]');
  await expect(era.locator('.era-node[data-node="1"] .era-pool.hot')).toHaveAttribute('data-pool', '1');
  await expect(era.locator('.era-node[data-node="1"] .era-pool.hot')).not.toContainText('empty');
});

test('outside lecture mode the workbench keeps its free tree, no era panel', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=walk&stop=3');
  await expect(page.locator('[data-widget="era"]')).toBeHidden();
  await expect(page.locator('[data-widget="free-tree"]')).toBeVisible();
});
