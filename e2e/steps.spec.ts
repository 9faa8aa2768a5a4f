// The micro-steps of an operation, as the narration tells them, against the core's own events:
// each fit type, an NE split that adds a node, a merge with both neighbours that removes one,
// and the node where a propagation stops. Reduced motion (playwright.config.ts): deterministic.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { readVector } from './support/conformance';

// Operations of 02_fit_types (0-based) and the fit each one makes.
const FITS: [number, string, string][] = [
  [1, 'LE', 'left edge'],
  [3, 'RE', 'right edge'],
  [5, 'NE', 'no edge'],
  [7, 'FL', 'full fit'],
];

for (const [op, fit, words] of FITS) {
  test(`02_fit_types: the ${fit} fit shows its steps in the core's order`, async ({ page }) => {
    const app = new AppPage(page);
    await app.openTrace(readVector('02_fit_types').trace, op);
    const core = await app.coreKinds(op);
    const { kinds, texts } = await app.narrateOp(op);
    expect(kinds).toEqual(core);
    // Search, classify, clip, then the busy insert: the order of alloc_vmap_area.
    expect(kinds.slice(0, 4)).toEqual(['search_start', 'visit', 'fit', 'clip']);
    expect(kinds.slice(-2)).toEqual(['busy_insert', 'allocated']);
    expect(texts[kinds.indexOf('fit')]).toContain(`${fit}, ${words}`);
    // At the fit, the code panel is in classify_va_fit_type on the line that returns it.
    await app.openStep(op);
    for (let i = 0; i <= kinds.indexOf('fit'); i++) await page.keyboard.press('ArrowRight');
    await expect(app.code.root).toHaveAttribute('data-function', 'classify_va_fit_type');
    await expect(app.code.root).toHaveAttribute('data-line', fit);
    await expect(app.code.current).toHaveAttribute('data-line', fit);
    await expect(app.code.current).toContainText(words.split(' ')[0]);
    await expect(app.code.fitDiagram).toHaveAttribute('data-fit', fit);
    await page.keyboard.press('ArrowRight');
    await expect(app.code.root).toHaveAttribute('data-function', 'adjust_va_to_fit_type');
    expect(app.problems).toEqual([]);
  });
}

test('an NE split adds a node: the new left part is linked as a red leaf', async ({ page }) => {
  const app = new AppPage(page);
  const op = 5;
  await app.openTrace(readVector('02_fit_types').trace, op);
  const before = await app.tree.nodes.count();
  const events = await app.coreEvents(op);
  const clip = events.find((e) => e.kind === 'clip') as { lva: { id: number } };
  const link = events.findIndex((e) => e.kind === 'link');
  expect(link).toBeGreaterThan(0);
  for (let i = 0; i <= link; i++) await page.keyboard.press('ArrowRight');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'link');
  const linked = app.tree.root.locator(`g.node[data-id="${clip.lva.id}"]`);
  await expect(linked).toHaveAttribute('data-color', 'red');
  await expect(linked).toHaveAttribute('data-mark', /\bnew\b/);
  await expect(app.tree.nodes).toHaveCount(before + 1);
  await page.keyboard.press('Shift+ArrowRight');
  await expect(app.tree.nodes).toHaveCount(before + 1);
});

test('a free that merges with both neighbours removes a node', async ({ page }) => {
  const { trace } = readVector('03_merges');
  const app = new AppPage(page);
  // free 0x104000: between [0x101000, 0x104000) and [0x105000, 0x200000).
  const op = 16;
  await app.openTrace(trace, op);
  await expect(app.ops.op(op)).toContainText('free 0x104000');
  const before = await app.tree.nodes.count();
  const events = await app.coreEvents(op);
  const both = events.findIndex((e) => e.kind === 'merge' && e.merge === 'both');
  expect(both).toBeGreaterThan(0);
  const ev = events[both] as { survivor: number; removed: number };
  for (let i = 0; i <= both; i++) await page.keyboard.press('ArrowRight');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'merge');
  await expect(app.narration.text).toContainText(`block #${ev.removed} disappears`);
  await expect(app.code.root).toHaveAttribute('data-function', 'merge_or_add_vmap_area');
  await expect(app.tree.root.locator(`g.node[data-id="${ev.removed}"]`)).toHaveAttribute('data-mark', /\bremoving\b/);
  await expect(app.tree.root.locator(`g.node[data-id="${ev.survivor}"]`)).toHaveAttribute('data-mark', /\bchanged\b/);
  await page.keyboard.press('Shift+ArrowRight');
  await expect(app.tree.nodes).toHaveCount(before - 1);
  await expect(app.tree.root.locator(`g.node[data-id="${ev.removed}"]`)).toHaveCount(0);
});

test('propagation stops at the node the core reports, and says so', async ({ page }) => {
  const { trace } = readVector('03_merges');
  const app = new AppPage(page);
  const op = 8; // free 0x102000: a new node, whose propagation stops at the root
  await app.openTrace(trace, op);
  const events = await app.coreEvents(op);
  const at = events.findIndex((e) => e.kind === 'propagate_stop');
  expect(at).toBeGreaterThan(0);
  const stop = events[at] as { id: number; value: string };
  for (let i = 0; i <= at; i++) await page.keyboard.press('ArrowRight');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'propagate_stop');
  await expect(app.narration.text).toContainText('stops here: value unchanged');
  await expect(app.code.root).toHaveAttribute('data-function', 'augment_tree_propagate_from');
  await expect(app.code.current).toHaveAttribute('data-line', 'stop');
  await expect(app.code.current).toContainText('stop');
  const marked = app.tree.root.locator('g.node[data-mark~="stop"]');
  await expect(marked).toHaveCount(1);
  await expect(marked).toHaveAttribute('data-id', String(stop.id));
  await expect(marked).toHaveAttribute('data-subtree-max-size', stop.value);
  await expect(app.tree.root.locator(`g.callout[data-callout-for="${stop.id}"]`)).toContainText('stops here');
  // The node just below it was recomputed on the way up.
  const prev = events[at - 1] as { kind: string; id: number };
  expect(prev.kind).toBe('propagate');
  await page.keyboard.press('ArrowLeft');
  await expect(app.tree.root.locator(`g.node[data-id="${prev.id}"]`)).toHaveAttribute('data-mark', /\bprop\b/);
});

test('the descent highlights each visited node with its test, and the branch taken', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  // Op 1 of the default scenario: the second vmalloc goes left, misses, rolls back to the root.
  await app.openStep(1);
  const events = await app.coreEvents(1);
  const visits = events.filter((e) => e.kind === 'visit' || e.kind === 'roll_back');
  expect(visits.length).toBeGreaterThan(1);
  await page.keyboard.press('ArrowRight'); // search_start
  await page.keyboard.press('ArrowRight'); // first visit
  const first = visits[0] as { id: number; branch: string };
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'visit');
  await expect(app.tree.root.locator(`g.node[data-id="${first.id}"]`)).toHaveAttribute('data-mark', /\bvisit\b/);
  expect(first.branch).toBe('left');
  await expect(app.narration.text).toContainText('≥ length');
  await expect(app.narration.text).toContainText('→ go left');
  await expect(app.tree.root.locator('path.link.taken')).toHaveCount(1);
  await expect(app.code.current).toContainText('continue in the left subtree');
});
