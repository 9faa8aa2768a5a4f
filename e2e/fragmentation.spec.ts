// The fragmentation instrument in the page (issue 62, items 3–5): the figures of the state shown
// against a brute force over the free ranges the page's own views report and against values
// worked out by hand; the chart over a trace and over a replayed capture; callers on hover and
// the table of the callers holding the most space; the diff of two /proc/vmallocinfo files
// against a set difference computed here; axe; lecture view at 1280×720.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { axeViolations } from './support/axe';
import { Workbench } from './panels/workbench';
import { buildShippedBinaries } from './support/binaries';

const S = 0xffffc90000000000n;
/** VMALLOC_END as the core has it (x86-64, 4-level paging): the window is [S, END). */
const END = 0xffffe8ffffffffffn;
const hex = (v: bigint) => `0x${v.toString(16)}`;
const W = `${hex(S)} ${hex(END)}`;

/**
 * linux-6.1, one CPU: A (2 pages) at S, B (3) at S+0x2000, C (1) at S+0x5000, D (4) at S+0x6000;
 * B freed (its 3 pages free again: a hole), C vfreed (lazy: 1 page, not free), D freed (back to
 * the block above). By hand: free blocks [S+0x2000, S+0x5000) and [S+0x6000, END).
 */
const TRACE = [
  'profile linux-6.1',
  `alloc 0x2000 0x1000 ${W}`,
  `alloc 0x3000 0x1000 ${W}`,
  `alloc 0x1000 0x1000 ${W}`,
  `alloc 0x4000 0x1000 ${W}`,
  `free ${hex(S + 0x2000n)}`,
  `vfree ${hex(S + 0x5000n)}`,
  `free ${hex(S + 0x6000n)}`,
].join('\n');

const panel = (page: Page) => page.locator('[data-widget="fragmentation"]');

async function openFrag(wb: Workbench): Promise<void> {
  await wb.tab('frag');
  await expect(panel(wb.page)).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
}

/** A window's figures as the panel shows them (its data attributes). */
async function shown(page: Page, win = 'vmalloc') {
  const t = panel(page).locator(`table[data-window="${win}"]`);
  const cell = (row: string) => t.locator('tr', { has: page.locator('th', { hasText: new RegExp(`^${row}$`) }) }).locator('td');
  const free = cell('free');
  const hist = await panel(page)
    .locator(`table[data-histogram="${win}"] tbody tr`)
    .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-min-pages'), r.getAttribute('data-blocks'), r.getAttribute('data-bytes')].map(Number)));
  return {
    blocks: Number(await free.getAttribute('data-free-blocks')),
    freeBytes: Number(await free.getAttribute('data-free-bytes')),
    largest: Number(await cell('largest free block').getAttribute('data-bytes')),
    largestAt: await cell('largest free block').getAttribute('data-start'),
    hole: Number(await cell('largest hole below it').getAttribute('data-bytes')),
    holeAt: await cell('largest hole below it').getAttribute('data-start'),
    hist,
  };
}

/** The brute force: the free tree's blocks the page draws, clipped to the window, measured here. */
async function bruteForce(page: Page) {
  const nodes = await page.locator('[data-widget="free-tree"] g.node[data-va-start]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-va-start') ?? '', e.getAttribute('data-va-end') ?? '']));
  const blocks = nodes
    .map(([a, b]) => [BigInt(a), BigInt(b)] as const)
    .map(([a, b]) => [a < S ? S : a, b > END ? END : b] as const)
    .filter(([a, b]) => a < b)
    .sort((x, y) => (x[0] < y[0] ? -1 : 1));
  const sizes = blocks.map(([a, b]) => Number(b - a));
  const largest = Math.max(0, ...sizes);
  const at = sizes.indexOf(largest);
  const hole = Math.max(0, ...sizes.slice(0, at));
  const hist = new Map<number, [number, number]>();
  for (const s of sizes) {
    const pages = Math.floor(s / 4096);
    const cls = pages === 0 ? 0 : 2 ** Math.floor(Math.log2(pages));
    const [n, b] = hist.get(cls) ?? [0, 0];
    hist.set(cls, [n + 1, b + s]);
  }
  return {
    blocks: sizes.length,
    freeBytes: sizes.reduce((n, s) => n + s, 0),
    largest,
    largestAt: blocks.length ? hex(blocks[at][0]) : '',
    hole,
    hist: [...hist.entries()].sort((a, b) => a[0] - b[0]).map(([c, [n, b]]) => [c, n, b]),
  };
}

test('fragmentation: the figures of each step equal a brute force over the free blocks the page draws, and the hand-worked ones', async ({ page }) => {
  test.setTimeout(90_000);
  const wb = new Workbench(page);
  const app = new AppPage(page);
  await wb.openTrace(TRACE, 'end');
  await openFrag(wb);
  const top = Number(END - (S + 0x6000n));
  const end = await shown(page);
  expect(end).toEqual({
    blocks: 2,
    freeBytes: 0x3000 + top,
    largest: top,
    largestAt: hex(S + 0x6000n),
    hole: 0x3000,
    holeAt: hex(S + 0x2000n),
    // 3 pages: class 2-3; the top block (2^33 - 7 pages and a byte short of one more): class 2^32.
    hist: [
      [2, 1, 0x3000],
      [2 ** 32, 1, top],
    ],
  });
  const { holeAt: _h, ...endFigures } = end;
  expect(endFigures).toEqual(await bruteForce(page));
  await expect(panel(page).getByTestId('frag-lazy')).toHaveAttribute('data-pages', '1');
  await expect(panel(page).getByTestId('frag-lazy')).toHaveAttribute('data-lazy-max-pages', '8192');
  // Every step back: the panel follows the player, and agrees with the free tree it draws.
  for (const k of [6, 5, 4, 1, 0]) {
    await app.openStep(k);
    await expect(panel(page)).toHaveAttribute('data-step', String(k));
    const { holeAt: _x, ...f } = await shown(page);
    expect(f, `step ${k}`).toEqual(await bruteForce(page));
  }
  // The chart: one point per state (8 operations: 9 states), the last one's free blocks the panel's.
  const counts = panel(page).getByTestId('frag-chart-counts');
  await expect(panel(page).getByTestId('frag-chart-bytes')).toHaveAttribute('data-points', '9');
  await expect(counts.locator('svg')).toBeVisible();
  expect(wb.problems).toEqual([]);
});

/** Two snapshots (core/tests/suite/frag.rs's fixtures): B is A a few seconds later. */
const A = [
  `${hex(S)}-${hex(S + 0x3000n)}   12288 foo+0x10/0x40 pages=2 vmalloc N0=2`,
  `${hex(S + 0x5000n)}-${hex(S + 0x7000n)}    8192 bar+0x1/0x8 phys=0x00000000fed00000 ioremap`,
  `${hex(S + 0x9000n)}-${hex(S + 0xb000n)}    8192 unpurged vm_area`,
  `${hex(S + 0x13000n)}-${hex(S + 0x15000n)}    8192 foo+0x20/0x40 pages=1 vmalloc N0=1`,
  '0xffffffffc0000000-0xffffffffc0002000    8192 baz+0x0/0x10 [mymod] pages=1 vmalloc N0=1',
].join('\n');
const B = [
  `${hex(S)}-${hex(S + 0x3000n)}   12288 unpurged vm_area`,
  `${hex(S + 0x3000n)}-${hex(S + 0x5000n)}    8192 qux+0x5/0x50 pages=1 vmalloc N0=1`,
  `${hex(S + 0x5000n)}-${hex(S + 0x7000n)}    8192 bar+0x1/0x8 phys=0x00000000fed00000 ioremap`,
  `${hex(S + 0x13000n)}-${hex(S + 0x15000n)}    8192 other+0x1/0x2 vmap`,
  '0xffffffffc0000000-0xffffffffc0002000    8192 baz+0x0/0x10 [mymod] pages=1 vmalloc N0=1',
].join('\n');

test('callers: an imported /proc/vmallocinfo shows each area’s caller and flags on hover, and the callers holding the most space', async ({ page }) => {
  test.setTimeout(90_000);
  const wb = new Workbench(page);
  await wb.open();
  await wb.importFile('vmallocinfo', `${A}\n`, 'vmallocinfo');
  await expect(wb.importStatus).toContainText('opened in the main view');
  await openFrag(wb);
  await expect(panel(page).getByTestId('frag-callers-note')).toHaveAttribute('data-areas', '5');
  // Most bytes first: foo (12288 + 8192), then the three of 8192 by name.
  const rows = panel(page).getByTestId('frag-callers').locator('tbody tr');
  await expect(rows.first()).toHaveAttribute('data-caller', 'foo');
  await expect(rows.first()).toHaveAttribute('data-bytes', '20480');
  expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-caller')))).toEqual(['foo', '(unpurged vm_area)', 'bar', 'baz [mymod]']);
  // The modules window is measured: an area lies there.
  await expect(panel(page).locator('table[data-window="modules"]')).toBeVisible();
  // Hover the busy area at S in the address space.
  const area = page.locator(`[data-widget="space-bar"] g.area[data-state][data-va-start="${hex(S)}"]`).first();
  await area.scrollIntoViewIfNeeded();
  await area.hover({ force: true });
  const tip = page.getByTestId('caller-tip');
  await expect(tip).toBeVisible();
  await expect(tip.locator('.frag-tip-row').first()).toHaveAttribute('data-caller', 'foo+0x10/0x40');
  await expect(tip.locator('.frag-tip-row').first()).toHaveAttribute('data-flags', 'pages=2 vmalloc N0=2');
  await expect(tip).toContainText('foo+0x10/0x40');
  expect(wb.problems).toEqual([]);
});

/** `range -> words after the size` of a vmallocinfo text, computed here. */
function lines(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const l of text.split('\n')) {
    const w = l.trim().split(/\s+/);
    if (w.length < 2 || !w[0]) continue;
    m.set(w[0], w.slice(2).join(' '));
  }
  return m;
}

/** The three lists by brute force: appeared, disappeared and became lazy, as ranges. */
function setDifference(a: string, b: string) {
  const [ma, mb] = [lines(a), lines(b)];
  const lazy = (rest: string) => rest === 'unpurged vm_area';
  // A caller as `vmallocinfo` prints it: the first word, with its module when there is one.
  const caller = (rest: string) => rest.split(' ').slice(0, rest.split(' ')[1]?.startsWith('[') ? 2 : 1).join(' ');
  const appeared: string[] = [];
  const disappeared: string[] = [];
  const becameLazy: string[] = [];
  for (const [r, rb] of mb) {
    const ra = ma.get(r);
    if (ra === undefined) appeared.push(r);
    else if (!lazy(ra) && lazy(rb)) becameLazy.push(r);
    else if (lazy(ra) !== lazy(rb) || (!lazy(ra) && caller(ra) !== caller(rb))) {
      appeared.push(r);
      disappeared.push(r);
    }
  }
  for (const r of ma.keys()) if (!mb.has(r)) disappeared.push(r);
  return { appeared: appeared.sort(), disappeared: disappeared.sort(), becameLazy: becameLazy.sort() };
}

async function diffLists(page: Page) {
  const list = (key: string) =>
    panel(page)
      .locator(`details[data-list="${key}"] tbody tr[data-start]`)
      .evaluateAll((rs) => rs.map((r) => `${r.getAttribute('data-start')}-${r.getAttribute('data-end')}`));
  const pad = (r: string) => r.replace(/0x([0-9a-f]+)/g, (_, h: string) => `0x${h.padStart(16, '0')}`);
  const norm = (rs: string[]) => rs.map(pad).sort();
  return { appeared: norm(await list('appeared')), disappeared: norm(await list('disappeared')), becameLazy: norm(await list('became-lazy')) };
}

test('diff: two /proc/vmallocinfo files, the lists equal a set difference computed here; a real capture’s before and after too', async ({ page }) => {
  test.setTimeout(120_000);
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('frag');
  await expect(panel(page)).toBeVisible({ timeout: 30_000 });
  await panel(page).getByTestId('diff-file-a').setInputFiles({ name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from(`${A}\n`) });
  await panel(page).getByTestId('diff-file-b').setInputFiles({ name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from(`${B}\n`) });
  await panel(page).locator('button[data-action="diff-run"]').click();
  await expect(panel(page).getByTestId('diff-out')).toHaveAttribute('data-state', 'ready');
  const want = setDifference(A, B);
  // By hand as well: foo's first area became lazy; the lazy one at 0x9000 was purged; qux is new
  // at 0x3000; the range at 0x13000 went to another caller.
  expect(want.becameLazy).toEqual([`${hex(S)}-${hex(S + 0x3000n)}`]);
  expect(await diffLists(page)).toEqual(want);
  await expect(panel(page).getByTestId('diff-summary')).toContainText('2 appeared, 2 disappeared, 1 became lazy, 2 unchanged');
  // Both sides' figures: A's vmalloc free blocks worked out in core/tests/suite/frag.rs (4), B's: the
  // gaps [0x7000, 0x13000) and above 0x15000.
  await expect(panel(page).getByTestId('diff-figures')).toHaveAttribute('data-free-blocks-a', '4');
  await expect(panel(page).getByTestId('diff-figures')).toHaveAttribute('data-free-blocks-b', '2');

  // A bad line: refused, naming the file and the line, the last diff kept off.
  await panel(page).getByTestId('diff-file-b').setInputFiles({ name: 'bad.txt', mimeType: 'text/plain', buffer: Buffer.from(`${B}\n0xffffc90000100000-0xffffc90000101000 12x foo vmalloc\n`) });
  await panel(page).locator('button[data-action="diff-run"]').click();
  await expect(panel(page).getByTestId('diff-error')).toContainText('bad.txt: line 6');

  // The real capture (gzipped files, through the drop zone's file reading path: the pickers).
  const dir = fileURLToPath(new URL('../core/tests/data/capture-6.18-small', import.meta.url));
  const before = readFileSync(join(dir, readdirSync(dir).find((f) => f.startsWith('vmallocinfo.before')) ?? ''));
  const after = readFileSync(join(dir, readdirSync(dir).find((f) => f.startsWith('vmallocinfo.after')) ?? ''));
  const text = (b: Buffer) => (b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b).toString('utf8');
  await panel(page).getByTestId('diff-file-a').setInputFiles({ name: 'vmallocinfo.before.gz', mimeType: 'application/gzip', buffer: before });
  await panel(page).getByTestId('diff-file-b').setInputFiles({ name: 'vmallocinfo.after.gz', mimeType: 'application/gzip', buffer: after });
  await panel(page).locator('button[data-action="diff-run"]').click();
  await expect(panel(page).getByTestId('diff-error')).toHaveText('');
  const real = setDifference(text(before), text(after));
  const got = await diffLists(page);
  const counts = async (key: string) => Number(await panel(page).locator(`details[data-list="${key}"]`).getAttribute('data-count'));
  expect({ appeared: await counts('appeared'), disappeared: await counts('disappeared'), becameLazy: await counts('became-lazy') }).toEqual({
    appeared: real.appeared.length,
    disappeared: real.disappeared.length,
    becameLazy: real.becameLazy.length,
  });
  // The rows shown (200 a list at most) are the set difference's.
  const pad = (r: string) => r.replace(/0x([0-9a-f]+)/g, (_, h: string) => `0x${h.padStart(16, '0')}`);
  for (const k of ['appeared', 'disappeared', 'becameLazy'] as const) {
    const all = new Set(real[k].map(pad));
    for (const r of got[k]) expect(all.has(r), `${k} ${r}`).toBe(true);
  }
  expect(real.appeared.length + real.disappeared.length).toBeGreaterThan(0);
  expect(await axeViolations(page)).toEqual([]);
  expect(wb.problems).toEqual([]);
});

test('a replayed capture: the chart has a point per operation, the callers come from its before and after files', async ({ page }) => {
  test.setTimeout(120_000);
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('io');
  const dir = fileURLToPath(new URL('../core/tests/data/capture-6.18-small', import.meta.url));
  await wb.root.getByTestId('import-file').setInputFiles(readdirSync(dir).map((f) => join(dir, f)));
  await expect(wb.root.locator('[data-widget="import-export"]')).toHaveAttribute('data-imports', '1', { timeout: 60_000 });
  await expect(wb.importStatus).toContainText('opened in the main view');
  await openFrag(wb);
  const ops = await page.locator('#app').evaluate(() => (window as unknown as { vmapviz: { app: { core: { length: number } } } }).vmapviz.app.core.length);
  await expect(panel(page).getByTestId('frag-chart-bytes')).toHaveAttribute('data-points', String(ops + 1));
  await expect(panel(page).getByTestId('frag-callers-note')).not.toHaveAttribute('data-areas', '0');
  await expect(panel(page).getByTestId('frag-callers').locator('tbody tr').first()).toBeVisible();
  expect(wb.problems).toEqual([]);
});

test('lecture view at 1280×720: the figures alone, nothing cut off; axe passes', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 720 });
  const wb = new Workbench(page);
  await wb.openTrace(TRACE, 'end');
  await openFrag(wb);
  await panel(page).locator('button[data-action="frag-lecture"]').click();
  await expect(page.locator('body')).toHaveClass(/lecture/);
  await expect(page.locator('body')).toHaveAttribute('data-lecture-view', 'frag');
  await expect(panel(page).locator('table[data-window="vmalloc"]')).toBeVisible();
  // Nothing wider than the screen: every table and chart inside the viewport's width, or in a box
  // that scrolls.
  const cut = await panel(page).evaluate((root) => {
    const out: string[] = [];
    for (const e of root.querySelectorAll<HTMLElement>('table, svg, p, h3, meter')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0) continue;
      const box = e.closest('.frag-scroll, .frag-chart');
      const limit = box ? box.getBoundingClientRect().right + 1 : window.innerWidth;
      if (r.left < -1 || (r.right > limit && !(box && box.scrollWidth > box.clientWidth))) out.push(`${e.tagName} ${Math.round(r.left)}–${Math.round(r.right)}`);
    }
    if (document.documentElement.scrollWidth > window.innerWidth) out.push(`page ${document.documentElement.scrollWidth} wide`);
    return out;
  });
  expect(cut).toEqual([]);
  expect(await axeViolations(page)).toEqual([]);
  // Leaving lecture mode leaves the lecture view.
  await panel(page).locator('button[data-action="frag-lecture"]').click();
  await expect(page.locator('body')).not.toHaveClass(/lecture/);
  expect(wb.problems).toEqual([]);
});

/** `vmap-replay --report fragmentation --json` of a trace: the figures at its end, as the CLI computes them. */
function cliFigures(file: string) {
  const out = execFileSync('target/release/vmap-replay', ['--report', 'fragmentation', '--json', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const j = JSON.parse(out) as { states: { figures: CliFigures }[] };
  expect(j.states).toHaveLength(1);
  return j.states[0].figures;
}

interface CliBlock {
  start: string;
  bytes: number;
}
interface CliFigures {
  windows: {
    name: string;
    busy_areas: number;
    busy_bytes: number;
    lazy_areas: number;
    lazy_bytes: number;
    free_bytes: number;
    free_blocks: number;
    largest_free: CliBlock | null;
    largest_hole: CliBlock | null;
    histogram: { min_pages: number; blocks: number; bytes: number }[];
  }[];
  lazy: { pages: number; lazy_max_pages: number };
}

/** The CLI's figures of the vmalloc window, in the terms `shown` reads from the panel. */
function cliShown(f: CliFigures) {
  const w = f.windows.find((x) => x.name === 'vmalloc')!;
  return {
    blocks: w.free_blocks,
    freeBytes: w.free_bytes,
    largest: w.largest_free?.bytes ?? 0,
    largestAt: w.largest_free?.start ?? '',
    hole: w.largest_hole?.bytes ?? 0,
    holeAt: w.largest_hole?.start ?? '',
    hist: w.histogram.map((c) => [c.min_pages, c.blocks, c.bytes]),
  };
}

/** The busy, lazy and pooled rows of the vmalloc window: the CLI's areas and bytes. */
async function expectCounts(page: Page, f: CliFigures): Promise<void> {
  const w = f.windows.find((x) => x.name === 'vmalloc')! as CliFigures['windows'][number] & { pooled_areas: number; pooled_bytes: number };
  const t = panel(page).locator('table[data-window="vmalloc"]');
  for (const [row, areas, bytes] of [
    ['busy', w.busy_areas, w.busy_bytes],
    ['lazy', w.lazy_areas, w.lazy_bytes],
    ['pooled', w.pooled_areas, w.pooled_bytes],
  ] as const) {
    const td = t.locator('tr', { has: page.locator('th', { hasText: new RegExp(`^${row}$`) }) }).locator('td');
    await expect(td).toHaveAttribute('data-areas', String(areas));
    await expect(td).toHaveAttribute('data-bytes', String(bytes));
  }
}

test('a trace of more than 20,000 operations (the large-trace navigator’s): the figures at its steps are vmap-replay --report fragmentation’s, the chart samples one state in 2^k', async ({ page }) => {
  test.setTimeout(300_000);
  // Built in release (the binaries users run); up to date in a second when they are.
  buildShippedBinaries();
  // full_fit_alloc_test on 2 CPUs: lazy_max_pages (16,384) 1-page areas, every other one freed
  // (16,384 holes of 2 pages), then 1-page allocations fitting them.
  const dir = `test-results/frag-large-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  const trace = execFileSync('target/release/vmap-replay', ['--workload', 'full_fit_alloc_test', '--loops', '2000', '--cpus', '2', '--profile', 'linux-6.18'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const file = join(dir, 'full-fit.trace');
  writeFileSync(file, trace);

  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('io');
  await wb.file.setInputFiles(file);
  await expect(wb.importStatus).toContainText('opened in the large-trace navigator', { timeout: 120_000 });
  const total = Number(await wb.large.getAttribute('data-total'));
  expect(total).toBeGreaterThan(20_000);
  await expect(wb.large).toHaveAttribute('data-step', String(total));

  await openFrag(wb);
  await expect(panel(page).getByTestId('frag-status')).toContainText(`after ${total.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} operations (the large-trace navigator’s trace`);
  const atEnd = cliFigures(file);
  expect(await shown(page)).toEqual(cliShown(atEnd));
  await expectCounts(page, atEnd);
  expect(atEnd.windows[0].free_blocks).toBeGreaterThan(1000);
  const lazy = panel(page).getByTestId('frag-lazy');
  await expect(lazy).toHaveAttribute('data-pages', String(atEnd.lazy.pages));
  await expect(lazy).toHaveAttribute('data-lazy-max-pages', String(atEnd.lazy.lazy_max_pages));
  // The chart: state 0, one state in 2^k (the least power of two keeping 20,001 points at most),
  // and the last.
  let every = 1;
  while (Math.ceil(total / every) + 1 > 20_001) every *= 2;
  expect(every).toBeGreaterThan(1);
  const chart = panel(page).getByTestId('frag-chart-bytes');
  await expect(chart).toHaveAttribute('data-every', String(every), { timeout: 60_000 });
  await expect(chart).toHaveAttribute('data-points', String(Math.floor(total / every) + 1 + (total % every ? 1 : 0)));

  // A step in the middle: the figures are the CLI's of the trace cut after that operation.
  const k = 20_500;
  await wb.tab('large');
  await wb.large.getByTestId('large-goto').fill(String(k));
  await wb.large.getByTestId('large-goto').press('Enter');
  await expect(wb.large).toHaveAttribute('data-step', String(k));
  const line = Number((await wb.large.locator(`[data-testid="large-ops"] li[data-index="${k - 1}"]`).getAttribute('title'))?.replace('line ', ''));
  const cut = join(dir, 'full-fit-cut.trace');
  writeFileSync(cut, trace.split('\n').slice(0, line).join('\n') + '\n');
  await wb.tab('frag');
  await expect(panel(page)).toHaveAttribute('data-step', String(k), { timeout: 30_000 });
  const atK = cliFigures(cut);
  expect(await shown(page)).toEqual(cliShown(atK));
  await expectCounts(page, atK);
  await expect(lazy).toHaveAttribute('data-pages', String(atK.lazy.pages));
  expect(cliShown(atK)).not.toEqual(cliShown(atEnd));
  expect(wb.problems).toEqual([]);
});
