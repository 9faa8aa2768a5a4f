// Hover links the address bar and the maple view both ways (issue 15). Under `maple-rfc` the bar
// draws the allocator's areas (ids of `vmap_area`s) and the maple view the occupied tree: an area
// hovered outlines the leaf slot whose range holds it and the path from the root down to it; a
// slot hovered outlines the areas in its range (a NULL hole: its free span). Under
// `profile maple-tree` the bar's areas are the stored ranges themselves, linked by leaf and slot.
// What is outlined is checked against the core's own `dump` of the tree (addresses), not against
// what the view computed.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { lastDump as lastDumpLines } from './support/dump';

interface DumpNode {
  depth: number;
  type: string;
  min: bigint;
  max: bigint;
  /** Each slot's inclusive range and content (`E`, `N`, `C`). */
  slots: { lo: bigint; hi: bigint; k: string }[];
}

/** The nodes of the last `dump` the core printed, each slot with its inclusive range. */
function lastDump(output: string): DumpNode[] {
  return lastDumpLines(output).map((l) => {
    const min = BigInt(l.min);
    let lo = min;
    return {
      depth: Number(l.depth),
      type: l.type,
      min,
      max: BigInt(l.max),
      slots: l.slots.split(' ').map((x) => {
        const [, piv, k] = x.split(':');
        const s = { lo, hi: BigInt(piv), k };
        lo = BigInt(piv) + 1n;
        return s;
      }),
    };
  });
}

/** The dump's nodes whose range holds `addr`, root first, and the slot of the deepest that holds it. */
function dumpPath(nodes: DumpNode[], addr: bigint): { path: DumpNode[]; slot: number } {
  const path = nodes.filter((n) => n.min <= addr && addr <= n.max).sort((a, b) => a.depth - b.depth);
  const last = path[path.length - 1];
  return { path, slot: last.slots.findIndex((s) => s.lo <= addr && addr <= s.hi) };
}

const view = (page: Page) => page.locator('[data-widget="maple-tree"]');
const bar = (page: Page) => page.locator('[data-widget="space-bar"]');

/** The bar's outlined areas: `[start, end)` and state (none for a gap). */
async function outlined(page: Page): Promise<{ start: bigint; end: bigint; state: string | null }[]> {
  const raw = await bar(page)
    .locator('g.area.hl')
    .evaluateAll((els) => els.map((e) => [e.getAttribute('data-va-start') ?? '', e.getAttribute('data-va-end') ?? '', e.getAttribute('data-state')] as const));
  return raw.map(([s, e, state]) => ({ start: BigInt(s), end: BigInt(e), state }));
}

/** The maple view's outlined slot: its node's attributes and the slot index, or null. */
async function hoveredSlot(page: Page): Promise<{ depth: number; min: bigint; max: bigint; type: string; slot: number } | null> {
  const els = view(page).locator('[data-hover-slot]');
  if ((await els.count()) !== 1) return null;
  const a = await els.evaluate((e) => ['data-maple-depth', 'data-maple-min', 'data-maple-max', 'data-maple-type', 'data-hover-slot'].map((k) => e.getAttribute(k) ?? ''));
  return { depth: Number(a[0]), min: BigInt(a[1]), max: BigInt(a[2]), type: a[3], slot: Number(a[4]) };
}

async function hoverPath(page: Page): Promise<{ depth: number; min: bigint; max: bigint }[]> {
  const raw = await view(page)
    .locator('g.maple-node.hover-path')
    .evaluateAll((els) => els.map((e) => ['data-maple-depth', 'data-maple-min', 'data-maple-max'].map((k) => e.getAttribute(k) ?? '')));
  return raw.map(([d, lo, hi]) => ({ depth: Number(d), min: BigInt(lo), max: BigInt(hi) })).sort((a, b) => a.depth - b.depth);
}

/**
 * The `nth` cell of the given content in a leaf of the maple view that is wholly on screen (in the
 * view's panel), named by its node's id and its slot: a redraw replaces the cells' elements, and a
 * locator by position in the list would then name another cell, or a detached one.
 */
async function leafCell(page: Page, cls: 'entry' | 'null', nth = 0): Promise<Locator> {
  const cells = view(page).locator(`g.maple-node:not(.placeholder)[data-maple-type="leaf"] g.maple-cell.${cls}`);
  const onScreen = await cells.evaluateAll((els) => {
    const svg = document.querySelector('[data-widget="maple-tree"] svg.maple-tree-svg') as SVGSVGElement;
    const v = svg.getBoundingClientRect();
    const vh = window.innerHeight;
    return els
      .filter((e) => {
        const r = (e.querySelector('rect.slot') as SVGRectElement).getBoundingClientRect();
        return r.left >= v.left && r.right <= v.right && r.top >= Math.max(0, v.top) && r.bottom <= Math.min(v.bottom, vh) && r.width > 4;
      })
      .map((e) => [e.closest('g.maple-node')?.getAttribute('data-maple-id') ?? '', e.getAttribute('data-slot') ?? '']);
  });
  expect(onScreen.length, `${cls} cells on screen`).toBeGreaterThan(nth);
  const [id, slot] = onScreen[nth];
  return view(page).locator(`g.maple-node[data-maple-id="${id}"] g.maple-cell.${cls}[data-slot="${slot}"]`);
}

/** Move the pointer onto the middle of an element (no scrolling: the element is on screen). */
async function pointAt(page: Page, e: Locator): Promise<void> {
  const b = await e.locator('rect.slot').boundingBox();
  expect(b).toBeTruthy();
  const { x, y, width, height } = b as { x: number; y: number; width: number; height: number };
  await page.mouse.move(x + width / 2, y + height / 2);
}

/** The slot's range, from the dump node its element names (depth, min) and its index. */
async function cellRange(cell: Locator, nodes: DumpNode[]): Promise<{ lo: bigint; hi: bigint; k: string }> {
  const [depth, min, slot] = await cell.evaluate((c) => {
    const g = c.closest('g.maple-node') as Element;
    return [g.getAttribute('data-maple-depth') ?? '', g.getAttribute('data-maple-min') ?? '', c.getAttribute('data-slot') ?? ''];
  });
  const n = nodes.find((x) => x.depth === Number(depth) && x.min === BigInt(min));
  expect(n, `a dumped node at depth ${depth} from ${min}`).toBeTruthy();
  return (n as DumpNode).slots[Number(slot)];
}

/** 120 one-page vmallocs with the bump overlay off, every fifth freed and purged, then a dump. */
function rfcTrace(): string {
  const lines = ['profile maple-rfc', 'bump off'];
  for (let i = 0; i < 120; i++) lines.push('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
  for (let i = 2; i < 120; i += 5) lines.push(`free 0x${(0xffffc90000000000n + BigInt(i) * 0x2000n).toString(16)}`);
  lines.push('purge', 'dump');
  return `${lines.join('\n')}\n`;
}

test('maple-rfc: an area hovered on the bar outlines its leaf slot and the path to it, as the core dumps the tree', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(rfcTrace());
  await expect(view(page).locator('.maple-node g.cells').first()).toBeAttached();
  const nodes = lastDump(await page.evaluate(() => window.vmapviz?.app.core?.output() ?? ''));
  expect(Math.max(...nodes.map((n) => n.depth))).toBeGreaterThanOrEqual(1);
  // A few busy areas across the window: the first, one between holes, the last.
  const busy = bar(page).locator('g.area[data-state="busy"]');
  const n = await busy.count();
  expect(n).toBeGreaterThan(50);
  for (const i of [0, 13, n - 1]) {
    const area = busy.nth(i);
    const start = BigInt((await area.getAttribute('data-va-start')) ?? '');
    const end = BigInt((await area.getAttribute('data-va-end')) ?? '');
    await area.hover();
    await expect(area).toHaveClass(/\bhl\b/);
    const want = dumpPath(nodes, start);
    const leaf = want.path[want.path.length - 1];
    const got = await hoveredSlot(page);
    expect(got).toEqual({ depth: leaf.depth, min: leaf.min, max: leaf.max, type: 'leaf', slot: want.slot });
    // The slot is the area's own stored range in the occupied tree.
    expect(leaf.slots[want.slot]).toEqual({ lo: start, hi: end - 1n, k: 'E' });
    expect(await hoverPath(page)).toEqual(want.path.map((p) => ({ depth: p.depth, min: p.min, max: p.max })));
  }
  // Leaving the bar clears both sides.
  await page.mouse.move(5, 5);
  await expect(view(page).locator('[data-hover-slot]')).toHaveCount(0);
  await expect(view(page).locator('g.maple-node.hover-path')).toHaveCount(0);
  await expect(bar(page).locator('g.area.hl')).toHaveCount(0);
  expect(app.problems).toEqual([]);
});

test('maple-rfc: a slot hovered in the maple view outlines its areas on the bar, a NULL hole its free span', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(rfcTrace());
  await expect(view(page).locator('.maple-node g.cells').first()).toBeAttached();
  const nodes = lastDump(await page.evaluate(() => window.vmapviz?.app.core?.output() ?? ''));
  // An in-use slot: exactly the busy area(s) the core holds in its range are outlined.
  const entry = await leafCell(page, 'entry', 3);
  const r = await cellRange(entry, nodes);
  expect(r.k).toBe('E');
  await pointAt(page, entry);
  await expect(entry).toHaveClass(/\bhover\b/);
  const busyIn = await page.evaluate(
    ([lo, hi]) =>
      (window.vmapviz?.app.core?.state(window.vmapviz.app.currentStep()).busy ?? [])
        .filter((a) => a.vaStart <= BigInt(hi) && a.vaEnd > BigInt(lo))
        .map((a) => [a.vaStart.toString(16), a.vaEnd.toString(16)]),
    [`0x${r.lo.toString(16)}`, `0x${r.hi.toString(16)}`],
  );
  expect(busyIn.length).toBeGreaterThanOrEqual(1);
  await expect.poll(async () => (await outlined(page)).map((a) => [a.start.toString(16), a.end.toString(16)])).toEqual(busyIn);
  expect((await outlined(page)).every((a) => a.state === 'busy')).toBe(true);
  // A NULL hole: the bar outlines free space only, and it covers the hole's range.
  const hole = await leafCell(page, 'null');
  const h = await cellRange(hole, nodes);
  expect(h.k).toBe('N');
  await pointAt(page, hole);
  await expect(hole).toHaveClass(/\bhover\b/);
  await expect.poll(async () => (await outlined(page)).length).toBeGreaterThan(0);
  const lit = await outlined(page);
  for (const a of lit) {
    expect(a.state === null || a.state === 'free', `outlined ${a.start.toString(16)} is ${a.state}`).toBe(true);
    expect(a.start <= h.hi && a.end > h.lo).toBe(true);
  }
  expect(lit[0].start <= h.lo).toBe(true);
  expect(lit[lit.length - 1].end >= h.hi + 1n).toBe(true);
  await page.mouse.move(5, 5);
  await expect(bar(page).locator('g.area.hl')).toHaveCount(0);
  await expect(view(page).locator('g.maple-cell.hover')).toHaveCount(0);
  expect(app.problems).toEqual([]);
});

test('maple-tree: the stored ranges on the bar and the leaf slots stay linked both ways by leaf and slot', async ({ page }) => {
  const app = new AppPage(page);
  const lines = ['profile maple-tree'];
  for (let i = 0; i < 40; i++) lines.push(`store 0x${(0x100000 + i * 0x3000).toString(16)} 0x${(0x100000 + i * 0x3000 + 0x1fff).toString(16)}`);
  lines.push('dump');
  await app.openTrace(`${lines.join('\n')}\n`);
  await expect(view(page).locator('.maple-node g.cells').first()).toBeAttached();
  const nodes = lastDump(await page.evaluate(() => window.vmapviz?.app.core?.output() ?? ''));
  // Bar → tree.
  const area = bar(page).locator('g.area[data-state="busy"]').nth(7);
  const start = BigInt((await area.getAttribute('data-va-start')) ?? '');
  await area.hover();
  const want = dumpPath(nodes, start);
  const leaf = want.path[want.path.length - 1];
  expect(await hoveredSlot(page)).toEqual({ depth: leaf.depth, min: leaf.min, max: leaf.max, type: 'leaf', slot: want.slot });
  await expect(view(page).locator('g.maple-cell.hover')).toHaveCount(1);
  // The hover ends before the view is pointed at: an off-screen slot's peek (PEEK_MS after the
  // hover) would move the view and redraw its cells under the pointer. Its end cancels the
  // peek's timer, or moves the view back to its fit, in the same handler that clears the slot.
  await page.mouse.move(5, 5);
  await expect(view(page).locator('[data-hover-slot]')).toHaveCount(0);
  await expect(view(page)).not.toHaveAttribute('data-peek', 'true');
  // Tree → bar: the stored range is the one area outlined.
  const cell = await leafCell(page, 'entry', 2);
  const r = await cellRange(cell, nodes);
  await pointAt(page, cell);
  await expect.poll(async () => (await outlined(page)).map((a) => [a.start, a.end])).toEqual([[r.lo, r.hi + 1n]]);
  await page.mouse.move(5, 5);
  await expect(bar(page).locator('g.area.hl')).toHaveCount(0);
  expect(app.problems).toEqual([]);
});

test('maple-rfc: an area whose leaf slot is off screen brings the view to it after a moment, and back when the hover ends', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(rfcTrace());
  await expect(view(page).locator('.maple-node g.cells').first()).toBeAttached();
  const viewport = view(page).locator('svg.maple-tree-svg > g.viewport');
  const fitted = await viewport.getAttribute('transform');
  // The hovered slot's cell wholly inside the view's panel (false while its node is a placeholder).
  const cellOnScreen = () =>
    page.evaluate(() => {
      const g = document.querySelector('[data-widget="maple-tree"] [data-hover-slot]');
      const cell = g?.querySelector(`g.maple-cell[data-slot="${g.getAttribute('data-hover-slot')}"] rect.slot`);
      if (!cell) return false;
      const v = (document.querySelector('[data-widget="maple-tree"] svg.maple-tree-svg') as SVGSVGElement).getBoundingClientRect();
      const r = cell.getBoundingClientRect();
      return r.left >= v.left - 1 && r.right <= v.right + 1 && r.top >= v.top - 1 && r.bottom <= v.bottom + 1;
    });
  const busy = bar(page).locator('g.area[data-state="busy"]');
  const n = await busy.count();
  let peeks = 0;
  for (const i of [0, Math.floor(n / 2), n - 1]) {
    await busy.nth(i).hover();
    await expect(view(page).locator('[data-hover-slot]')).toHaveCount(1);
    await expect.poll(cellOnScreen, { timeout: 5_000 }).toBe(true);
    if ((await view(page).getAttribute('data-peek')) === 'true') peeks++;
  }
  // The tree is wider than the panel at a readable size: some of those leaves were off screen.
  expect(peeks).toBeGreaterThan(0);
  // The hover ends: the view goes back to its fit.
  await page.mouse.move(5, 5);
  await expect(view(page)).toHaveAttribute('data-peek', 'false');
  await expect.poll(() => viewport.getAttribute('transform')).toBe(fitted);
  await expect(view(page)).toHaveAttribute('data-auto-fit', 'true');
  expect(app.problems).toEqual([]);
});
