// The page loads cleanly and draws the default scenario; stepping and adding operations work.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { parseBusy, parseNode } from './support/conformance';

/** The final dump and busy list of the default scenario, as vmap-replay prints them. */
function defaultExpected() {
  const lines = readFileSync(new URL('./fixtures/default-scenario.expected', import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#') && l !== 'end');
  return {
    nodes: lines.filter((l) => l.startsWith('node ')).map(parseNode),
    busy: lines.filter((l) => l.startsWith('busy ') || l.startsWith('lazy ')).map(parseBusy),
  };
}

test('the page loads with no console errors', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await expect(app.heading).toHaveText('vmapviz');
  await expect(page.locator('.subtitle')).toContainText('vmalloc');
  await expect(app.loadError).toBeHidden();
  // Let any late errors (fonts, resize observers) surface.
  await page.waitForTimeout(300);
  expect(app.problems).toEqual([]);
});

test('the default scenario is drawn: tree nodes and bar areas carry the core state', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  // It opens mid-way (e2e/teach.spec.ts); its end is one key away.
  await page.keyboard.press('End');
  const want = defaultExpected();

  // The free tree, in pre-order, exactly as the kernel code would dump it.
  expect(await app.tree.data()).toEqual(want.nodes);
  const root = app.tree.nodeAt(want.nodes[0].vaStart);
  await expect(root.locator('text.marker')).toHaveText(want.nodes[0].color === 'red' ? 'R' : 'B');
  await expect(root.locator('text.size')).toHaveText('size 4K');

  // The bar: busy and lazy areas as `busy` prints them, free areas as the tree's blocks, in address order.
  const areas = await app.bar.data();
  expect(areas.filter((a) => a.state !== 'free')).toEqual(want.busy);
  const free = want.nodes.map((n) => ({ state: 'free', vaStart: n.vaStart, vaEnd: n.vaEnd }));
  free.sort((a, b) => (BigInt(a.vaStart) < BigInt(b.vaStart) ? -1 : 1));
  expect(areas.filter((a) => a.state === 'free')).toEqual(free);
  // Together they tile the whole space [1, 2^64 - 1).
  expect(areas[0].vaStart).toBe('0x1');
  expect(areas[areas.length - 1].vaEnd).toBe('0xffffffffffffffff');
  for (let i = 1; i < areas.length; i++) expect(areas[i].vaStart).toBe(areas[i - 1].vaEnd);
  // Not by colour alone: each kind has a label or pattern of its own.
  await expect(app.bar.area('busy').first().locator('text.kind')).toHaveText('busy');
  await expect(app.bar.area('lazy').locator('text.kind')).toHaveText('lazy');

  await expect(app.stats.value('profile')).toHaveText('linux-5.2');
  await expect(app.stats.value('free')).toHaveText(String(want.nodes.length));
  await expect(app.player.stepLabel).toHaveText('13 / 13 done');
});

test('a screenshot of the default scenario is saved', async ({ page }, testInfo) => {
  const app = new AppPage(page);
  await app.open();
  await page.mouse.move(0, 0);
  const path = fileURLToPath(new URL('../test-results/default-scenario.png', import.meta.url));
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach('default-scenario', { path, contentType: 'image/png' });
  // `UPDATE_SCREENSHOT=1 npx playwright test -g screenshot` refreshes the README's screenshot.
  if (process.env.UPDATE_SCREENSHOT) {
    await page.screenshot({ path: fileURLToPath(new URL('../docs/screenshot.png', import.meta.url)), fullPage: true });
  }
  expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG');
});

test('stepping by operation: buttons, keys, clicking an operation', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  const { player, tree, ops } = app;

  // The page opens at the start; go to the end and back.
  await player.end.click();
  await player.start.click();
  await expect(player.stepLabel).toHaveText('0 / 13 done');
  // Before any operation the core has not set up the free space yet (it does on the first op):
  // the tree previews the boot block it will get.
  await expect(tree.nodes).toHaveCount(1);
  await expect(tree.root.locator('.empty')).toContainText('Not initialised');
  await expect(tree.nodes.first()).toHaveAttribute('data-va-end', '0xffffffffffffffff');
  await expect(player.back).toBeDisabled();
  await expect(player.backOp).toBeDisabled();

  await player.forwardOp.click();
  await expect(player.stepLabel).toHaveText('1 / 13 done');
  // The worked example of the spec (§2.8): an NE fit leaves [1, VMALLOC_START) as a red left child.
  expect(await tree.data()).toEqual([
    { vaStart: '0xffffc90000002000', vaEnd: '0xffffffffffffffff', subtreeMaxSize: '0xffffc8ffffffffff', color: 'black', depth: 0 },
    { vaStart: '0x1', vaEnd: '0xffffc90000000000', subtreeMaxSize: '0xffffc8ffffffffff', color: 'red', depth: 1 },
  ]);
  await expect(app.bar.area('busy')).toHaveCount(1);

  await page.keyboard.press('Shift+ArrowRight');
  await expect(player.stepLabel).toHaveText('2 / 13 done');
  await page.keyboard.press('End');
  await expect(player.stepLabel).toHaveText('13 / 13 done');
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(player.stepLabel).toHaveText('12 / 13 done');
  await expect(app.bar.area('lazy')).toHaveCount(0);

  await ops.op(8).click(); // after the first free
  await expect(player.stepLabel).toHaveText('9 / 13 done');
  await expect(ops.op(8)).toHaveClass(/current/);
  // The step is in the permalink.
  await expect(page).toHaveURL(/#trace=.*&step=9$/);
});

test('adding an operation: a valid line waits at its first step, an invalid one is refused inline', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  const { ops, player } = app;
  const opened = (await player.stepLabel.textContent()) ?? '';

  await ops.push('alloc 0x2000 nonsense');
  await expect(ops.pushError).toBeVisible();
  await expect(ops.pushError).not.toBeEmpty();
  await expect(ops.ops).toHaveCount(13);
  // Typing in the input does not step (the page stays where it opened).
  await ops.input.press('ArrowRight');
  await expect(player.stepLabel).toHaveText(opened);

  await ops.push('free 0xffffc9000000c000');
  await expect(ops.pushError).toBeHidden();
  await expect(ops.ops).toHaveCount(14);
  // "Start paused": the player waits before the new operation.
  await expect(player.stepLabel).toHaveText('13 / 14 done');
  await expect(app.narration.text).toContainText('Next: op 14, free 0xffffc9000000c000');
  await player.forwardOp.click();
  await expect(player.stepLabel).toHaveText('14 / 14 done');
  await expect(ops.op(13)).toContainText('free 0xffffc9000000c000 ok');
  // [0xa000, 0xc000) + the freed [0xc000, 0x15000) + [0x15000, 0x17000) merge into one block.
  await expect(app.tree.nodeAt('0xffffc9000000a000')).toHaveAttribute('data-va-end', '0xffffc90000017000');
  expect(app.problems).toEqual([]);
});

test('hovering an area outlines its node in the tree, and the other way round', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.keyboard.press('End'); // the default scenario opens mid-way
  const start = '0xffffc9000000a000';
  await app.bar.root.locator(`g.area[data-va-start="${start}"]`).hover();
  await expect(app.tree.nodeAt(start)).toHaveClass(/\bhl\b/);
  await page.mouse.move(0, 0);
  await expect(app.tree.nodeAt(start)).not.toHaveClass(/\bhl\b/);
  await app.tree.nodeAt(start).hover();
  await expect(app.bar.root.locator(`g.area[data-va-start="${start}"]`)).toHaveClass(/\bhl\b/);
});
