// The views: screenshots of each one (test-results/), the zoomable address space (presets,
// wheel, minimap), the tree's zoom, fit and collapse, and a large tree in compact form.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

const VMALLOC_START = 0xffffc90000000000n;
const VMALLOC_END = 0xffffe8ffffffffffn;

test('screenshots of each view during a step', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.mouse.move(0, 0);
  // Op 1 of the default scenario, at its fit (a left-edge fit of the root after a roll-back).
  await app.openStep(1);
  const kinds = await app.coreKinds(1);
  for (let i = 0; i <= kinds.indexOf('fit'); i++) await page.keyboard.press('ArrowRight');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'fit');
  await page.locator('[data-widget="space-bar"]').screenshot({ path: 'test-results/view-space-bar.png' });
  await app.zoom.root.screenshot({ path: 'test-results/view-space-zoom.png' });
  await app.tree.root.screenshot({ path: 'test-results/view-free-tree.png' });
  await page.locator('.step-panel').screenshot({ path: 'test-results/view-step-panel.png' });
  await page.locator('.ops-panel').screenshot({ path: 'test-results/view-operations.png' });
  await page.screenshot({ path: 'test-results/page-step.png', fullPage: true });
  // A rotation, later in the scenario.
  let rotateOp = -1;
  for (let op = 0; op < 13 && rotateOp < 0; op++) if ((await app.coreKinds(op)).includes('rotate')) rotateOp = op;
  expect(rotateOp).toBeGreaterThan(0);
  await app.openStep(rotateOp);
  const rk = await app.coreKinds(rotateOp);
  for (let i = 0; i <= rk.indexOf('rotate'); i++) await page.keyboard.press('ArrowRight');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'rotate');
  await expect(app.tree.root.locator('g.node[data-mark~="rotate"]')).toHaveCount(2);
  await app.tree.root.screenshot({ path: 'test-results/view-free-tree-rotation.png' });
  await page.locator('.step-panel').screenshot({ path: 'test-results/view-step-panel-rotation.png' });
  expect(app.problems).toEqual([]);
});

test('the zoomable address space: presets, wheel zoom to single pages, and the minimap', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.keyboard.press('End'); // the default scenario opens mid-way
  const { zoom } = app;
  await zoom.preset('whole').click();
  expect(await zoom.window()).toEqual([0n, 1n << 64n]);
  await expect(zoom.readout).toContainText('16E wide');
  await zoom.preset('vmalloc').click();
  expect(await zoom.window()).toEqual([VMALLOC_START, VMALLOC_END + 1n]);
  await expect(zoom.root.locator('text.axis-step')).toContainText(/ticks every \d+[KMGT]/);
  // The overview draws the window as its minimap.
  await expect(app.bar.root.locator('rect.lens-box')).toHaveCount(1);

  // Wheel in over the first busy area until single pages show.
  await zoom.preset('used').click();
  const box = await zoom.svg.boundingBox();
  if (!box) throw new Error('no zoom svg');
  await page.mouse.move(box.x + 40, box.y + box.height / 2);
  for (let i = 0; i < 12; i++) {
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(30);
  }
  await expect.poll(async () => {
    const [lo, hi] = await zoom.window();
    return hi - lo;
  }).toBeLessThanOrEqual(0x10000n);
  // The wheel zoom may still be settling: read the window once two reads agree.
  let prev = '';
  await expect.poll(async () => {
    const w = (await zoom.window()).join(',');
    const same = w === prev;
    prev = w;
    return same;
  }).toBe(true);
  const [lo, hi] = await zoom.window();
  expect(hi - lo).toBeGreaterThanOrEqual(0x8000n);
  // Axis labels in hex with offsets in K.
  await expect(zoom.root.locator('g.tick text').first()).toHaveText(/^0xffffc[89]/);
  await expect(zoom.root.locator('text.axis-step')).toHaveText(/^ticks every \d+K$/);
  await zoom.root.screenshot({ path: 'test-results/view-space-zoom-pages.png' });
  // Dragging pans.
  await page.mouse.move(box.x + 600, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 300, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect.poll(async () => (await zoom.window())[0] > lo).toBe(true);
  // Hovering a segment outlines the same area on the overview and in the tree.
  await zoom.preset('used').click();
  const free = zoom.root.locator('g.seg[data-state="free"]').nth(1);
  const start = await free.getAttribute('data-va-start');
  await free.hover();
  await expect(app.tree.nodeAt(start ?? '')).toHaveClass(/\bhl\b/);
  await expect(app.bar.root.locator(`g.area[data-va-start="${start}"]`)).toHaveClass(/\bhl\b/);
  expect(app.problems).toEqual([]);
});

test('the tree zooms, fits, and collapses below a depth', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.keyboard.press('End'); // the default scenario opens mid-way
  const tree = app.tree.root;
  await expect(tree).toHaveAttribute('data-auto-fit', 'true');
  await tree.locator('button.zoom-in').click();
  await expect(tree).toHaveAttribute('data-auto-fit', 'false');
  await tree.locator('button.fit').click();
  await expect(tree).toHaveAttribute('data-auto-fit', 'true');
  await expect(app.tree.nodes).toHaveCount(5);
  await tree.locator('select.depth').selectOption('2');
  // Depth ≤ 2 keeps all five nodes of this small tree.
  await expect(app.tree.nodes).toHaveCount(5);
  await tree.locator('select.depth').selectOption('all');
  await app.openTrace(
    Array.from({ length: 40 }, () => `alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff`)
      .concat(Array.from({ length: 20 }, (_, i) => `free 0x${(0xffffc90000000000n + BigInt(i) * 0x4000n).toString(16)}`))
      .join('\n'),
    'end',
  );
  const all = await app.tree.nodes.count();
  expect(all).toBeGreaterThan(20);
  await tree.locator('select.depth').selectOption('2');
  await expect(app.tree.nodes).toHaveCount(7);
  await expect(tree.locator('g.node.collapsed').first()).toContainText('more');
  await tree.screenshot({ path: 'test-results/view-free-tree-collapsed.png' });
  await tree.locator('select.depth').selectOption('all');
  await expect(app.tree.nodes).toHaveCount(all);
});

test('a tree of about 1,000 free blocks is drawn compact, fitted, with labels dropped when small', async ({ page }) => {
  test.setTimeout(60_000);
  const app = new AppPage(page);
  const lines = ['# 2000 one-page areas, every other one freed'];
  for (let i = 0; i < 2000; i++) lines.push('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
  for (let i = 0; i < 2000; i += 2) lines.push(`free 0x${(0xffffc90000000000n + BigInt(i) * 0x2000n).toString(16)}`);
  await app.openTrace(lines.join('\n'), 'end');
  const core = await page.evaluate(() =>
    ((s) => (s?.index.kind === 'free_tree' ? s.index.nodes : []))(window.vmapviz?.app.core?.state(3000)).map((n) => ({
      vaStart: `0x${n.vaStart.toString(16)}`,
      vaEnd: `0x${n.vaEnd.toString(16)}`,
      subtreeMaxSize: `0x${n.subtreeMaxSize.toString(16)}`,
      color: n.black ? 'black' : 'red',
      depth: n.depth,
    })),
  );
  const want = core.length;
  expect(want).toBeGreaterThan(990);
  await expect(app.tree.root).toHaveAttribute('data-nodes', String(want));
  // Only the nodes near the screen are drawn, each exactly as the core reports it.
  const drawn = await app.tree.data();
  expect(drawn.length).toBeGreaterThan(10);
  expect(drawn.length).toBeLessThan(want / 2);
  const byStart = new Map(core.map((n) => [n.vaStart, n]));
  for (const n of drawn) expect(n).toEqual(byStart.get(n.vaStart));
  await expect(app.tree.root.locator('svg.free-tree-svg')).toHaveClass(/\bcompact\b/);
  // Fitted readable (by its height, around the root), labels on; "Whole" shows it all, frames only.
  await expect(app.tree.root).not.toHaveAttribute('data-lod', 'far');
  await page.mouse.move(0, 0);
  await app.tree.root.screenshot({ path: 'test-results/view-free-tree-1000.png' });
  await app.tree.root.locator('button.whole').click();
  await expect(app.tree.root).toHaveAttribute('data-lod', 'far');
  await app.tree.root.screenshot({ path: 'test-results/view-free-tree-1000-whole.png' });
  await app.tree.root.locator('button.fit').click();
  // Stepping still works and stays exact.
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('ArrowRight');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'busy_remove');
  await page.keyboard.press('Shift+ArrowRight');
  await expect(app.tree.root).toHaveAttribute('data-nodes', String(want));
  expect(app.problems).toEqual([]);
});

test('the overview can fill busy areas by vmap node (for the linux-6.9 nodes)', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.keyboard.press('End'); // the default scenario opens mid-way
  await expect(app.bar.area('busy').first()).not.toHaveAttribute('data-node', /./);
  await page.evaluate(() => window.vmapviz?.app.setColorBy('node'));
  await expect(app.bar.area('busy').first()).toHaveAttribute('data-node', '0');
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(app.bar.area('busy').first()).toHaveAttribute('data-node', '0');
  await page.evaluate(() => window.vmapviz?.app.setColorBy('state'));
  await expect(app.bar.area('busy').first()).not.toHaveAttribute('data-node', /./);
});
