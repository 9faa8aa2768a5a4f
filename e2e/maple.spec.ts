// The maple tree view (issue 15): a `profile maple-tree` trace opens from a permalink; the drawn
// nodes equal the conformance vector's own dumps (the kernel's output, read from the .expected
// file); stepping an `empty` shows the scanned slots and the hole found; a split and a gap update
// that stops early are frames with the right words; stepping back restores the frame exactly;
// lecture mode keeps the tree legible; a bad line gives the core's message.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { RFC_S2_SETUP } from './fixtures/rfc';
import { byPlace, drawnNodes, lastDump } from './support/dump';

const MAPLE = fileURLToPath(new URL('../../shared/conformance-maple', import.meta.url));

function vector(name: string): { trace: string; expected: string } {
  return {
    trace: readFileSync(join(MAPLE, `${name}.trace`), 'utf8'),
    expected: readFileSync(join(MAPLE, `${name}.expected`), 'utf8'),
  };
}

/** The trace's operations (not `profile`, comments or blank lines), in order. */
function ops(trace: string): string[] {
  return trace
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('profile'));
}


async function openMaple(app: AppPage, trace: string, step: number | 'end', frame?: number): Promise<void> {
  // Each link is opened as a fresh page load: a second link on the same page is only a hash
  // change, which `waitReady` cannot tell apart from the page before it (on a loaded CI machine
  // the check below could run before the app had moved).
  if (app.page.url().includes('#')) await app.page.goto('about:blank');
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=${step}${frame !== undefined ? `&frame=${frame}` : ''}`);
  // A long link opens in slices, then the maple view's chunk loads: give a loaded machine time.
  await expect(app.page.locator('[data-widget="maple-tree"] svg')).toBeVisible({ timeout: 20_000 });
}

async function kinds(page: Page, op: number): Promise<{ kind: string; [k: string]: unknown }[]> {
  return page.evaluate((k) => (window.vmapviz?.app.core?.frames(k)?.frames ?? []).map((f) => JSON.parse(JSON.stringify(f.event)) as { kind: string }), op);
}

// Each vector opened at its last dump draws exactly that dump, node by node.
for (const name of ['01_root_leaf', '02_leaf_split', '03_arange_gaps', '06_rebalance', '08_height3', '09_gap_propagation', '11_random_mixed']) {
  test(`${name}: the drawn maple tree equals the vector's last dump`, async ({ page }) => {
    test.setTimeout(60_000);
    const { trace, expected } = vector(name);
    const list = ops(trace);
    const at = list.lastIndexOf('dump');
    expect(at).toBeGreaterThanOrEqual(0);
    const app = new AppPage(page);
    await openMaple(app, trace, at);
    await expect(app.loadError).toBeHidden();
    const want = lastDump(expected);
    // 01 ends with an empty tree (root NULL): no node, said so.
    if (want.length === 0) await expect(page.locator('[data-widget="maple-tree"] .empty')).toContainText('root NULL');
    await expect(page.locator('[data-widget="maple-tree"]')).toHaveAttribute('data-nodes', String(want.length));
    expect((await drawnNodes(page)).sort(byPlace)).toEqual([...want].sort(byPlace));
    await expect(page.locator('[data-widget="free-tree"]')).toBeHidden();
    expect(app.problems).toEqual([]);
  });
}

test('collapsed below a depth, every node still carries its attributes, equal to the dump', async ({ page }) => {
  const { trace, expected } = vector('09_gap_propagation');
  const at = ops(trace).lastIndexOf('dump');
  const app = new AppPage(page);
  await openMaple(app, trace, at);
  const want = lastDump(expected);
  expect(Math.max(...want.map((n) => Number(n.depth)))).toBeGreaterThanOrEqual(2);
  const root = page.locator('[data-widget="maple-tree"]');
  await root.locator('select.depth').selectOption('0');
  // Only the root is drawn; the others are placeholders without content, with their attributes.
  await expect(root).toHaveAttribute('data-drawn', '1');
  await expect(root).toHaveAttribute('data-hidden', String(want.length - 1));
  await expect(root.locator('.maple-node:not(.placeholder)')).toHaveCount(1);
  await expect(root.locator('.maple-node.placeholder .maple-cell')).toHaveCount(0);
  expect((await drawnNodes(page)).sort(byPlace)).toEqual([...want].sort(byPlace));
  await root.locator('select.depth').selectOption('all');
  await root.locator('button.whole').click();
  await expect(root).toHaveAttribute('data-hidden', '0');
  expect((await drawnNodes(page)).sort(byPlace)).toEqual([...want].sort(byPlace));
});

test('stepping an empty shows each scanned slot and the hole found', async ({ page }) => {
  const { trace, expected } = vector('04_empty_area');
  const line = 'empty 0x10000000 0xffffffffffffffff 0x5000';
  const op = ops(trace).indexOf(line);
  expect(op).toBeGreaterThan(0);
  const answer = expected.split('\n').find((l) => l.startsWith(`${line} -> `)) ?? '';
  const [index] = answer.slice(line.length + 4).split(' ');
  expect(index).toMatch(/^0x[0-9a-f]+$/);
  const app = new AppPage(page);
  await openMaple(app, trace, op, 0);
  const events = await kinds(page, op);
  expect(events.filter((e) => e.kind === 'scan').length).toBeGreaterThan(1);
  let sawScan = false;
  for (let f = 0; f < events.length; f++) {
    if (f > 0) await page.keyboard.press('ArrowRight');
    expect(await app.player.position()).toEqual({ op, frame: f });
    const kind = events[f].kind;
    await expect(app.narration.root).toHaveAttribute('data-event-kind', kind);
    if (kind === 'scan') {
      sawScan = true;
      const cell = page.locator(`[data-widget="maple-tree"] .maple-node.current .maple-cell.scanned.at-slot[data-slot="${String(events[f].slot)}"]`);
      await expect(cell).toHaveCount(1);
      await expect(cell).toHaveClass(events[f].fits ? /fits/ : /nofit/);
      await expect(app.narration.text).toContainText(`slot ${String(events[f].slot)}`);
    }
    if (kind === 'found') {
      await expect(page.locator('[data-widget="maple-tree"] .maple-cell.at-slot')).toHaveCount(1);
      await expect(page.locator('[data-widget="maple-tree"] .maple-cell.found')).toHaveClass(/null/);
      await expect(app.narration.text).toContainText(`index ${index}`);
      await expect(app.code.root).toHaveAttribute('data-function', 'mas_empty_area');
    }
  }
  expect(sawScan).toBe(true);
  expect(events[events.length - 1].kind).toBe('found');
});

test('a wasted descent is said so', async ({ page }) => {
  const { trace } = vector('04_empty_area');
  const list = ops(trace);
  const app = new AppPage(page);
  await openMaple(app, trace, 0);
  // The search that descends into a child whose gap[] is large enough but whose hole is not
  // inside the window: it climbs back out.
  let op = -1;
  let f = -1;
  for (let k = 0; k < list.length && op < 0; k++) {
    if (!list[k].startsWith('empty')) continue;
    const ev = await kinds(page, k);
    const a = ev.findIndex((e) => e.kind === 'ascend');
    if (a > 0 && ev.slice(0, a).some((e) => e.kind === 'descend')) [op, f] = [k, a];
  }
  expect(op).toBeGreaterThan(0);
  await openMaple(app, trace, op, f);
  await expect(app.narration.text).toContainText('wasted descent');
  await expect(app.code.root).toHaveAttribute('data-function', 'mas_skip_node');
});

test('a split frame and a gap update that stops early are reachable, with their words', async ({ page }) => {
  const { trace } = vector('09_gap_propagation');
  const list = ops(trace);
  const app = new AppPage(page);
  await openMaple(app, trace, 0);
  let split: [number, number] | null = null;
  let stop: [number, number] | null = null;
  for (let k = 0; k < list.length && (!split || !stop); k++) {
    const ev = await kinds(page, k);
    const s = ev.findIndex((e) => e.kind === 'split');
    if (!split && s >= 0) split = [k, s];
    // Stopping below the root: the parent's largest gap did not change.
    const g = ev.findIndex((e) => e.kind === 'gap_update' && e.stop === true);
    if (!stop && g >= 0) {
      const node = ev[g].node as number;
      const isRoot = await page.evaluate(
        ([op, id]) => {
          const c = window.vmapviz?.app.core as unknown as { mapleFrames(k: number): { trees: { nodes: { id: number; parent: number | null }[] }[] } };
          return c.mapleFrames(op).trees.some((t) => t.nodes.some((n) => n.id === id && n.parent === null));
        },
        [k, node],
      );
      if (!isRoot) stop = [k, g];
    }
  }
  expect(split).not.toBeNull();
  expect(stop).not.toBeNull();
  const [so, sf] = split as [number, number];
  await openMaple(app, trace, so, sf);
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'split');
  await expect(app.narration.text).toContainText('mab_calc_split cuts after slot');
  await expect(app.code.root).toHaveAttribute('data-function', 'mas_split');
  const [go, gf] = stop as [number, number];
  await openMaple(app, trace, go, gf);
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'gap_update');
  await expect(app.narration.text).toContainText(/gap of #\d+ slot \d+ .*now .*(already .*: stop\.)/);
  await expect(app.code.root).toHaveAttribute('data-function', 'mas_update_gap');
  await expect(page.locator('[data-widget="maple-tree"] .maple-cell.gap-stop')).toHaveCount(1);
});

test('step back restores the earlier frame exactly', async ({ page }) => {
  const { trace } = vector('02_leaf_split');
  const list = ops(trace);
  const app = new AppPage(page);
  await openMaple(app, trace, 0);
  let op = -1;
  for (let k = 0; k < list.length && op < 0; k++) if ((await kinds(page, k)).some((e) => e.kind === 'split')) op = k;
  expect(op).toBeGreaterThanOrEqual(0);
  await openMaple(app, trace, op, 0);
  const snap = async () => ({
    tree: await page.locator('[data-widget="maple-tree"] g.viewport').innerHTML(),
    narration: await app.narration.text.textContent(),
    pos: await app.player.position(),
  });
  const frames = (await kinds(page, op)).length;
  const seen = [await snap()];
  for (let f = 1; f < frames; f++) {
    await page.keyboard.press('ArrowRight');
    seen.push(await snap());
  }
  // Something changes on the way (the split's new nodes).
  expect(new Set(seen.map((s) => s.tree)).size).toBeGreaterThan(1);
  for (let f = frames - 2; f >= 0; f--) {
    await page.keyboard.press('ArrowLeft');
    expect(await snap()).toEqual(seen[f]);
  }
});

test('lecture mode at 1280×720 keeps the maple tree legible', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const { trace } = vector('08_height3');
  const list = ops(trace);
  const app = new AppPage(page);
  await openMaple(app, trace, 0);
  let op = -1;
  for (let k = list.length - 1; k >= 0 && op < 0; k--) if ((await kinds(page, k)).some((e) => e.kind === 'gap_update')) op = k;
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=${op}&frame=1&lecture=1`);
  const root = page.locator('[data-widget="maple-tree"]');
  await expect(root).toBeVisible();
  const box = await root.locator('svg').boundingBox();
  expect(box && box.width > 600 && box.height > 250).toBe(true);
  // The cell text of the node the step is about is at least 16 px on screen, and in view.
  const cur = root.locator('.maple-node.current').first();
  await expect(cur).toHaveCount(1);
  const text = cur.locator('text.top').first();
  const px = await text.evaluate((t) => {
    const m = (t as unknown as SVGGraphicsElement).getScreenCTM();
    return Number.parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
  });
  expect(px).toBeGreaterThanOrEqual(16);
  const tb = await cur.boundingBox();
  expect(tb && box && tb.x < box.x + box.width && tb.x + tb.width > box.x && tb.y >= box.y - 1 && tb.y < box.y + box.height).toBe(true);
  // Every text of the drawn nodes (headers, sizes, contents, gap numbers) is at least 16 px.
  const sizes = await root.locator('.maple-node:not(.placeholder) text').evaluateAll((ts) =>
    ts.map((t) => {
      const m = (t as unknown as SVGGraphicsElement).getScreenCTM();
      return Number.parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
    }),
  );
  expect(sizes.length).toBeGreaterThan(10);
  expect(Math.min(...sizes)).toBeGreaterThanOrEqual(16);
  // The path of the step, root to the node it is about, is in view above the tree, in large type.
  const id = await cur.getAttribute('data-maple-id');
  const path = root.locator('.maple-path');
  await expect(path).toBeVisible();
  await expect(path).toContainText(new RegExp(`^Path: #\\d+ arange slot \\d+ → .*#${String(id)} `));
  expect(Number.parseFloat(await path.evaluate((e) => getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(16);
  const pb = await path.boundingBox();
  expect(pb && box && pb.y + pb.height <= box.y + 1 && pb.y >= 0).toBe(true);
});

test('lecture mode at 1280×720 keeps a maple-rfc trace’s occupied tree legible and in view (S2)', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  // maple-rfc's scenario S2 (core/src/workload.rs), opened as a trace after its alignment search.
  const s2 = [
    ...RFC_S2_SETUP,
    'alloc 0x6000 0x10000 0xffffc90000000000 0xffffe8ffffffffff',
    'alloc 0x10000 0x10000 0xffffc90000100000 0xffffc90000110000',
    'dump',
  ].join('\n');
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(s2)}&step=end&lecture=1`);
  const root = page.locator('[data-widget="maple-tree"]');
  await expect(root.locator('.maple-node g.cells').first()).toBeAttached({ timeout: 20_000 });
  const box = await root.locator('svg').boundingBox();
  const leaf = root.locator('.maple-node[data-maple-type="leaf"]').first();
  // The leaf's header and its used slots are on screen (a leaf wider than the panel shows its left part).
  for (const part of [leaf.locator('text.head'), leaf.locator('.maple-cell:not(.unused)').last()]) {
    const b = await part.boundingBox();
    expect(b && box && b.x >= box.x - 1 && b.x + b.width <= box.x + box.width + 1 && b.y >= box.y - 1 && b.y + b.height <= box.y + box.height + 1).toBe(true);
  }
  const sizes = await root.locator('.maple-node:not(.placeholder) text').evaluateAll((ts) =>
    ts.map((t) => {
      const m = (t as unknown as SVGGraphicsElement).getScreenCTM();
      return Number.parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
    }),
  );
  expect(sizes.length).toBeGreaterThan(5);
  expect(Math.min(...sizes)).toBeGreaterThanOrEqual(16);
  expect(app.problems).toEqual([]);
});

test('a bad line gives the core’s message and changes nothing', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent('profile maple-tree\nstore 0x1000 0x1fff\nstore 0x zz\n')}&step=end`);
  await expect(app.loadError).toBeVisible();
  await expect(app.loadError).toContainText('line 3: argument 1 is not a 64-bit number (decimal or 0x hex): `store 0x zz`');
  // Typed into the page: refused by the core, nothing added.
  const { trace } = vector('01_root_leaf');
  await openMaple(app, trace, 'end');
  const before = await app.ops.ops.count();
  const tree = await page.locator('[data-widget="maple-tree"] g.viewport').innerHTML();
  await app.ops.push('stor 0x1 0x2');
  await expect(app.ops.pushError).toContainText('unknown operation `stor`');
  expect(await app.ops.ops.count()).toBe(before);
  expect(await page.locator('[data-widget="maple-tree"] g.viewport').innerHTML()).toBe(tree);
  // A good one is applied.
  await app.ops.push('store 0x5000 0x5fff');
  await expect(app.ops.ops).toHaveCount(before + 1);
});

test('screenshots of the maple view mid-search (1440×900, 1280×720 lecture)', async ({ page }) => {
  const { trace } = vector('10_vmalloc_like');
  const list = ops(trace);
  const app = new AppPage(page);
  await openMaple(app, trace, 0);
  // A search that descends, climbs back out (a wasted descent) and finds its hole in another
  // leaf: shown at the scan of the slot that holds the hole.
  let op = -1;
  let f = 0;
  for (let k = 0; k < list.length && op < 0; k++) {
    if (!list[k].startsWith('empty')) continue;
    const ev = await kinds(page, k);
    const found = ev.findIndex((e) => e.kind === 'found');
    if (found > 0 && ev.some((e) => e.kind === 'ascend')) [op, f] = [k, found - 1];
  }
  expect(op).toBeGreaterThanOrEqual(0);
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=${op}&frame=${f}`);
  await page.screenshot({ path: 'test-results/maple-1440x900.png' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=${op}&frame=${f}&lecture=1`);
  await page.screenshot({ path: 'test-results/maple-1280x720-lecture.png' });
  await expect.poll(() => cutHeads(page), { message: 'node headers cut at the view\'s left edge' }).toEqual([]);
  // At the hole of a later search too (the found slot far right in a wide leaf: the view
  // follows it, the header stays readable).
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=32&frame=5&lecture=1`);
  await expect(page.locator('[data-widget="maple-tree"] .maple-cell.at-slot')).toHaveCount(1);
  await expect.poll(() => cutHeads(page), { message: 'node headers cut at the view\'s left edge' }).toEqual([]);
  expect(app.problems).toEqual([]);
});

/**
 * Nodes in view whose header starts left of the view (its first characters cut off) although
 * the part of the box in view has room for all of it.
 */
async function cutHeads(page: import('@playwright/test').Page): Promise<string[]> {
  return page.evaluate(() => {
    const svg = document.querySelector('[data-widget="maple-tree"] svg')?.getBoundingClientRect();
    if (!svg) return ['no svg'];
    const cut: string[] = [];
    for (const head of document.querySelectorAll<SVGTextElement>('[data-widget="maple-tree"] g.maple-node text.head')) {
      const frame = head.parentElement?.querySelector('rect.frame')?.getBoundingClientRect();
      const r = head.getBoundingClientRect();
      const inView = frame && frame.right > svg.left && frame.left < svg.right && frame.bottom > svg.top && frame.top < svg.bottom;
      const room = frame ? Math.min(frame.right, svg.right) - svg.left : 0;
      if (inView && r.left < svg.left - 1 && room >= r.width) cut.push(head.textContent ?? '');
    }
    return cut;
  });
}

// The frame-time measurement on a tree of over 1,000 entries is in e2e/maple-perf.spec.ts (MAPLE_BENCH=1).

test('hovering a stored range in the address bar outlines its slot, and the other way round', async ({ page }) => {
  const { trace } = vector('03_arange_gaps');
  const app = new AppPage(page);
  await openMaple(app, trace, 'end');
  // The whole tree in view, so that every cell can be pointed at.
  await page.locator('[data-widget="maple-tree"] button.whole').click();
  await expect(page.locator('[data-widget="maple-tree"]')).toHaveAttribute('data-hidden', '0');
  const cell = page.locator('[data-widget="maple-tree"] .maple-node[data-maple-type="leaf"] .maple-cell.entry').first();
  await expect(cell).toHaveCount(1);
  // The cell's slot range, from its node's attributes, is the bar area it names.
  const node = cell.locator('xpath=ancestor::*[@data-maple-slots][1]');
  const slot = Number(await cell.getAttribute('data-slot'));
  const slots = ((await node.getAttribute('data-maple-slots')) ?? '').split(' ').map((s) => s.split(':'));
  const lo = slot === 0 ? BigInt((await node.getAttribute('data-maple-min')) ?? '0') : BigInt(slots[slot - 1][1]) + 1n;
  const area = page.locator(`[data-widget="space-bar"] g.area[data-va-start="0x${lo.toString(16)}"]`).first();
  await expect(area).toHaveCount(1);
  await cell.hover();
  await expect(area).toHaveClass(/\bhl\b/);
  await page.mouse.move(2, 2);
  await expect(area).not.toHaveClass(/\bhl\b/);
  await area.hover();
  await expect(cell).toHaveClass(/\bhover\b/);
});
