// A `maple-rfc` trace in the page (issues 12, 14, 15): the era keeps no free tree, so the state
// carries its occupied maple tree and the page draws it with the maple view. The drawn nodes
// equal the core's own `dump` of that tree (printed by MapleTree::dump, a path independent of
// the snapshot the view draws), node by node.
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { byPlace, drawnNodes, lastDump } from './support/dump';

/** 60 one-page vmallocs with the bump overlay off, every third freed, purged, then a dump. */
function trace(): string {
  const lines = ['profile maple-rfc', 'bump off'];
  const addrs: string[] = [];
  let a = 0xffffc90000000000n;
  for (let i = 0; i < 60; i++) {
    lines.push('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
    addrs.push(`0x${a.toString(16)}`);
    a += 0x2000n;
  }
  addrs.forEach((x, i) => {
    if (i % 3 === 1) lines.push(`free ${x}`);
  });
  lines.push('dump');
  return lines.join('\n');
}

test('a maple-rfc trace draws its occupied maple tree, node for node as the core dumps it', async ({ page }) => {
  test.setTimeout(60_000);
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(trace())}&step=end`);
  await expect(page.locator('[data-widget="maple-tree"] svg')).toBeVisible({ timeout: 20_000 });
  await expect(page.locator('#tree-title')).toHaveText(/Occupied tree/);
  await expect(page.locator('[data-widget="free-tree"]')).toBeHidden();
  const output = await page.evaluate(() => window.vmapviz?.app.core?.output() ?? '');
  const want = lastDump(output);
  // The allocations split the root leaf: the dump has more than one node.
  expect(want.length).toBeGreaterThan(1);
  await expect.poll(async () => (await drawnNodes(page)).length, { timeout: 10_000 }).toBe(want.length);
  expect((await drawnNodes(page)).sort(byPlace)).toEqual([...want].sort(byPlace));
  // The stats line counts the free space as the tree holds it (NULL holes: one per freed area,
  // no two adjacent, plus the space above the areas) and gives the tree's height from the dump.
  await expect(page.locator('[data-stat="free"] dt')).toHaveText('NULL holes');
  const nulls = want.filter((n) => n.type === 'leaf').reduce((k, n) => k + n.slots.split(' ').filter((x) => x.split(':')[2] === 'N').length, 0);
  await expect(page.locator('[data-stat="free"] dd')).toHaveText(String(nulls));
  await expect(page.locator('[data-stat="height"] dd')).toHaveText(output.split('dump height=').at(-1)!.split(/\s/)[0]);
});

test('a free-tree profile keeps the free tree view', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent('profile linux-6.9\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff')}&step=end`);
  await expect(page.locator('[data-widget="free-tree"]')).toBeVisible();
  await expect(page.locator('#tree-title')).toHaveText('Free tree');
});

// ---- maple-rfc step by step (issues 14/15): the allocator's frames carry its maple trees'
// events, the window loop and the bump overlay; the page draws each frame's occupied tree. ----

const VS = 0xffffc90000000000n;
const VE = '0xffffe8ffffffffff';
const ALLOC = `alloc 0x2000 0x1 0x${VS.toString(16)} ${VE}`;

interface Ev {
  kind: string;
  tree?: string;
  event?: { kind: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** The core's events of op `k`, as the page's session reports them. */
async function events(page: Page, op: number): Promise<Ev[]> {
  return page.evaluate((k) => (window.vmapviz?.app.core?.frames(k)?.frames ?? []).map((f) => JSON.parse(JSON.stringify(f.event)) as Ev), op);
}

/** The kind the narration names for an event: an occupied-tree maple event by its own kind. */
function told(e: Ev): string {
  if (e.kind !== 'maple') return e.kind;
  return e.tree === 'occupied' ? (e.event?.kind ?? '') : `busy:${e.event?.kind ?? ''}`;
}

async function openRfc(app: AppPage, trace: string, step: number, frame: number): Promise<void> {
  if (app.page.url().includes('#')) await app.page.goto('about:blank');
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=${step}&frame=${frame}`);
  await expect(app.page.locator('[data-widget="maple-tree"] svg')).toBeVisible({ timeout: 20_000 });
}

/** `n` one-page vmallocs (bump off), every third freed at once, then one more vmalloc. */
function holes(n: number): string[] {
  const lines = ['profile maple-rfc', 'bump off'];
  for (let i = 0; i < n; i++) lines.push(ALLOC);
  for (let i = 1; i < n; i += 3) lines.push(`free 0x${(VS + BigInt(i) * 0x2000n).toString(16)}`);
  lines.push(ALLOC);
  return lines;
}

test('stepping a maple-rfc allocation shows each scanned slot, the hole found and the window loop', async ({ page }) => {
  test.setTimeout(90_000);
  const lines = holes(60);
  const op = lines.length - 1; // the last line (the profile line is op 0)
  const app = new AppPage(page);
  await openRfc(app, lines.join('\n'), op, 0);
  const evs = await events(page, op);
  expect(evs.some((e) => e.kind === 'window_start')).toBe(true);
  expect(evs.filter((e) => told(e) === 'scan').length).toBeGreaterThan(1);
  let sawFound = false;
  for (let f = 0; f < evs.length; f++) {
    if (f > 0) await page.keyboard.press('ArrowRight');
    expect(await app.player.position()).toEqual({ op, frame: f });
    const e = evs[f];
    await expect(app.narration.root).toHaveAttribute('data-event-kind', told(e));
    if (told(e) === 'scan' && e.event) {
      const cell = page.locator(`[data-widget="maple-tree"] .maple-node.current .maple-cell.scanned.at-slot[data-slot="${String(e.event.slot)}"]`);
      await expect(cell).toHaveCount(1);
      await expect(cell).toHaveClass(e.event.fits ? /fits/ : /nofit/);
      await expect(app.narration.text).toContainText(`slot ${String(e.event.slot)}`);
    }
    if (told(e) === 'found' && e.event) {
      sawFound = true;
      await expect(page.locator('[data-widget="maple-tree"] .maple-cell.found')).toHaveCount(1);
      await expect(app.narration.text).toContainText(`index ${String(e.event.index)}`);
      await expect(app.code.root).toHaveAttribute('data-function', 'mas_empty_area');
    }
    if (e.kind === 'window_hole') {
      await expect(app.code.root).toHaveAttribute('data-function', 'find_hole_window');
      // The first hole (the first freed area) is the answer: the allocation's address.
      expect(e.fits).toBe(true);
      await expect(app.narration.text).toContainText(`${String(e.candidate)} is the address`);
      expect(e.candidate).toBe(`0x${(VS + 0x2000n).toString(16)}`);
    }
  }
  expect(sawFound).toBe(true);
});

test('maple-rfc: a split and a gap update that stops early are reachable, with their words; step back is exact', async ({ page }) => {
  test.setTimeout(120_000);
  // 200 areas, a third of them freed: the occupied tree grows to height 3, and the frees' NULL
  // stores update gaps that stop below the root.
  const lines = holes(200);
  const text = lines.join('\n');
  const app = new AppPage(page);
  await openRfc(app, text, 0, 0);
  let split: [number, number] | null = null;
  let stop: [number, number] | null = null;
  const nops = lines.length;
  for (let k = 0; k < nops && (!split || !stop); k++) {
    const evs = await events(page, k);
    const s = evs.findIndex((e) => told(e) === 'split');
    if (!split && s >= 0) split = [k, s];
    const g = evs.findIndex((e) => told(e) === 'gap_update' && e.event?.stop === true);
    if (!stop && g >= 0) {
      const node = evs[g].event?.node as number;
      const isRoot = await page.evaluate(
        ([op, id]) => {
          const f = window.vmapviz?.app.core?.frames(op);
          return (f?.trees ?? []).some((t) => t.kind === 'maple' && t.tree.nodes.some((n) => n.id === id && n.parent === null));
        },
        [k, node],
      );
      if (!isRoot) stop = [k, g];
    }
  }
  expect(split).not.toBeNull();
  expect(stop).not.toBeNull();
  const [so, sf] = split as [number, number];
  await openRfc(app, text, so, sf);
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'split');
  await expect(app.narration.text).toContainText('mab_calc_split cuts after slot');
  await expect(app.code.root).toHaveAttribute('data-function', 'mas_split');

  // Step through the split's operation and back: every frame comes back exactly.
  await openRfc(app, text, so, 0);
  const snap = async () => ({
    tree: await page.locator('[data-widget="maple-tree"] g.viewport').innerHTML(),
    narration: await app.narration.text.textContent(),
    pos: await app.player.position(),
  });
  const frames = (await events(page, so)).length;
  const seen = [await snap()];
  for (let f = 1; f < frames; f++) {
    await page.keyboard.press('ArrowRight');
    seen.push(await snap());
  }
  expect(new Set(seen.map((s) => s.tree)).size).toBeGreaterThan(1);
  for (let f = frames - 2; f >= 0; f--) {
    await page.keyboard.press('ArrowLeft');
    expect(await snap()).toEqual(seen[f]);
  }

  const [go, gf] = stop as [number, number];
  await openRfc(app, text, go, gf);
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'gap_update');
  await expect(app.narration.text).toContainText(/gap of #\d+ slot \d+ .*now .*: stop\./);
  await expect(app.code.root).toHaveAttribute('data-function', 'mas_update_gap');
  await expect(page.locator('[data-widget="maple-tree"] .maple-cell.gap-stop')).toHaveCount(1);
});

test('maple-rfc: a bump hit says no tree was touched', async ({ page }) => {
  const text = ['profile maple-rfc', ALLOC, ALLOC].join('\n');
  const app = new AppPage(page);
  // Op 2 (the second vmalloc; op 0 is the profile line): this CPU's chunk already exists.
  await openRfc(app, text, 2, 0);
  const evs = await events(page, 2);
  expect(evs[0].kind).toBe('bump_hit');
  expect(evs.some((e) => e.kind === 'maple')).toBe(false);
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'bump_hit');
  await expect(app.narration.text).toContainText('No maple tree and no busy tree is touched');
  await expect(app.code.root).toHaveAttribute('data-function', 'vmap_bump_alloc');
  // Op 0 refilled: the chunk's 64 MiB range went into the occupied tree by a gap search.
  const first = await events(page, 1);
  expect(first.map((e) => e.kind)).toContain('bump_refill');
});
