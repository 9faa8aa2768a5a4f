// Issue 15's panels for maple-rfc: the bump chunks as bands on the address bar (their DOM
// attributes against the core's own `busy` chunk lines), the struct panel's figures, compare
// mode with the maple tree beside another profile's tree and the counters, the sweep chart with
// maple-rfc, and the S1–S5 scenarios opened from the workbench.
import { expect, test, type Page } from '@playwright/test';
import { Workbench } from './panels/workbench';
import { RFC_S2_SETUP } from './fixtures/rfc';

const WINDOW = '0xffffc90000000000 0xffffe8ffffffffff';

/** S4's first part: a chunk for CPU 0, one each for CPUs 1–3, then a refill that retires CPU 0's first chunk. */
const S4 = [
  'profile maple-rfc',
  `alloc 0x2000 0x1 ${WINDOW}`,
  `alloc 0x2000 0x1 ${WINDOW}`,
  `alloc 0x2000 0x1 ${WINDOW}`,
  'cpus 4',
  'cpu 1',
  `alloc 0x2000 0x1 ${WINDOW}`,
  'cpu 2',
  `alloc 0x2000 0x1 ${WINDOW}`,
  'cpu 3',
  `alloc 0x2000 0x1 ${WINDOW}`,
  'cpu 0',
  `alloc 0x2000000 0x1 ${WINDOW}`,
  `alloc 0x2000000 0x1 ${WINDOW}`,
  'busy',
].join('\n');

async function output(page: Page): Promise<string> {
  return page.evaluate(() => window.vmapviz?.app.core?.output() ?? '');
}

async function bands(page: Page): Promise<string[]> {
  return page.locator('[data-widget="space-bar"] g.chunk').evaluateAll((els) =>
    els.map(
      (e) =>
        `chunk ${e.getAttribute('data-chunk-base')} ${e.getAttribute('data-chunk-limit')} bump=${e.getAttribute('data-bump')} ` +
        `pages=${e.getAttribute('data-pages')} cpu=${e.getAttribute('data-cpu')} ${e.getAttribute('data-chunk-state')}`,
    ),
  );
}

test('the bump chunks are bands on the address bar, as the core prints them', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.openTrace(S4, 'end');
  const printed = (await output(page)).split('\n').filter((l) => l.startsWith('chunk '));
  // Five chunks: CPU 0's retired one, its new one, and one each for CPUs 1–3.
  expect(printed).toHaveLength(5);
  expect(printed.filter((l) => l.endsWith(' retired'))).toHaveLength(1);
  await expect(page.locator('[data-widget="space-bar"] g.chunk')).toHaveCount(5);
  expect(await bands(page)).toEqual(printed);
  // The hover says what the band is.
  const title = await page.locator('[data-widget="space-bar"] g.chunk-retired title').textContent();
  expect(title).toMatch(/bump chunk .* owner CPU 0 · retired .* bump pointer 0x[0-9a-f]+ · \d+ pages in use/);
  await page.locator('[data-widget="space-bar"]').screenshot({ path: test.info().outputPath('chunks-bar.png') });
  await page.screenshot({ path: test.info().outputPath('chunks-1440.png') });
  // Lecture mode at 1280×720 keeps the bands.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`./#trace=${encodeURIComponent(S4)}&step=end&lecture=1`);
  await expect(page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 15_000 });
  await expect(page.locator('[data-widget="space-bar"] g.chunk')).toHaveCount(5);
  expect(await bands(page)).toEqual(printed);
  await page.screenshot({ path: test.info().outputPath('chunks-lecture-1280.png') });
  await page.setViewportSize({ width: 1440, height: 900 });
  // Before the first allocation there is no chunk.
  await wb.openTrace(S4, 0);
  await expect(page.locator('[data-widget="space-bar"] g.chunk')).toHaveCount(0);
});

test('the struct panel shows 72 and 48 bytes and the memory of the state, for both designs', async ({ page }) => {
  const wb = new Workbench(page);
  const trace = ['profile maple-rfc', 'bump off', ...Array.from({ length: 40 }, () => `alloc 0x2000 0x1 ${WINDOW}`)].join('\n');
  await wb.openTrace(trace, 'end');
  await wb.tab('struct');
  const panel = wb.root.locator('[data-widget="struct"]');
  await expect(panel.locator('[data-struct="linux-6.9"]')).toHaveAttribute('data-bytes', '72');
  await expect(panel.locator('[data-struct="maple-rfc"]')).toHaveAttribute('data-bytes', '48');
  await expect(panel.locator('[data-struct="linux-6.9"] [data-field="rb_node"]')).toHaveClass(/gone/);
  await expect(panel.locator('[data-struct="maple-rfc"] [data-field]')).toHaveCount(5);
  const cell = (row: string, profile: string, kind: string) => panel.locator(`tr[data-row="${row}"] td[data-profile="${profile}"][data-kind="${kind}"]`);
  // 40 live areas in both; 40 objects × 48 B in maple-rfc, 40 × 72 B (+ free blocks) in 6.9.
  await expect(cell('areas', 'maple-rfc', 'bytes')).toHaveAttribute('data-value', String(40 * 48));
  await expect(cell('areas', 'linux-6.9', 'bytes')).toHaveAttribute('data-value', String(40 * 72));
  await expect(cell('free-blocks', 'maple-rfc', 'bytes')).toHaveAttribute('data-value', '0');
  // The figures equal the core's state (its memory, read through the app's session).
  const mem = await page.evaluate(() => {
    const s = window.vmapviz?.app.core;
    return s ? s.state(s.length).memory ?? null : null;
  });
  expect(mem).not.toBeNull();
  const m = mem!;
  const nodes = m.occupiedNodes + m.busyTreeNodes + m.freeTreeNodes;
  expect(m.liveAreas).toBe(40);
  expect(m.indexBytes).toBe(40 * 48 + 256 * nodes);
  await expect(cell('total', 'maple-rfc', 'bytes')).toHaveAttribute('data-value', String(m.indexBytes));
  await expect(cell('occupied-nodes', 'maple-rfc', 'bytes')).toHaveAttribute('data-value', String(256 * m.occupiedNodes));
  await expect(cell('per-area', 'maple-rfc', 'per-area')).toHaveAttribute('data-value', (m.indexBytes / 40).toFixed(1));
  await expect(panel.getByTestId('struct-summary')).toContainText('bytes per live area');
  await panel.screenshot({ path: test.info().outputPath('struct.png') });
  // Stepping the main view moves the panel with it.
  await page.keyboard.press('Home');
  await expect(panel).toHaveAttribute('data-step', '0');
});

test('every maple-rfc scenario S1–S5 opens from the workbench with its explanation', async ({ page }) => {
  test.setTimeout(90_000);
  const wb = new Workbench(page);
  await wb.open();
  const items = wb.workloadList.locator('button[data-workload^="rfc_s"]');
  await expect(items).toHaveCount(5);
  const names = await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-workload') ?? ''));
  expect(names.map((n) => n.slice(0, 6))).toEqual(['rfc_s1', 'rfc_s2', 'rfc_s3', 'rfc_s4', 'rfc_s5']);
  // They stand in a group of their own, not among the free-tree teaching scenarios.
  await expect(items.first().locator('xpath=ancestor::div[contains(@class, "wb-wl-group")]//h4')).toContainText('maple-rfc S1–S5');
  await wb.workloadList.screenshot({ path: test.info().outputPath('workloads.png') });
  for (const [i, name] of names.entries()) {
    await wb.workload(name);
    await expect(wb.workloadForm.locator('.wb-wl-about')).toContainText(`maple-rfc S${i + 1}`);
    await expect(wb.knob('profile')).toHaveValue('maple-rfc');
    await wb.generate();
    await expect(wb.workloadStatus).toContainText(`${name}: `);
    await expect(wb.workloadStatus).toContainText('opened in the main view');
    await expect(page.locator('#tree-title')).toHaveText(/Occupied tree/);
    expect(await page.evaluate(() => window.vmapviz?.app.currentTrace() ?? '')).toMatch(/^profile maple-rfc/);
    // Step to the end: the scenario replays to its last line with the maple tree drawn.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('End');
    const length = await page.evaluate(() => window.vmapviz?.app.core?.length ?? -1);
    await expect(page.locator('#app')).toHaveAttribute('data-step', String(length));
    // The maple view draws the core's occupied tree at the end (S5's is empty: the module area is
    // outside the seeded window, and its allocation failed).
    const nodes = await page.evaluate(() => {
      const s = window.vmapviz?.app.core;
      if (!s) return -1;
      const index = s.state(s.length).index;
      return index.kind === 'maple' ? index.tree.nodes.length : -1;
    });
    expect(nodes).toBeGreaterThanOrEqual(0);
    await expect(page.locator('[data-widget="maple-tree"]')).toHaveAttribute('data-nodes', String(nodes));
    await expect(page.locator('[data-widget="maple-tree"] [data-maple-depth]')).toHaveCount(nodes);
  }
  expect(wb.problems).toEqual([]);
});

/** S2 (alignment padding), as the core's workload writes it for maple-rfc. */
const S2 = [
  ...RFC_S2_SETUP,
  `alloc 0x6000 0x10000 ${WINDOW}`,
  'alloc 0x10000 0x10000 0xffffc90000100000 0xffffc90000110000',
  'dump',
].join('\n');

async function mapleNodes(page: Page, widget: string): Promise<string[]> {
  const nodes = await page.locator(`[data-widget="${widget}"] [data-maple-depth]`).evaluateAll((els) =>
    els.map((e) => ['depth', 'type', 'min', 'max', 'slots'].map((k) => e.getAttribute(`data-maple-${k}`) ?? '').join(' ')),
  );
  return nodes.sort();
}

test('compare mode: maple-rfc beside linux-6.9, both trees, the counters and the addresses that differ', async ({ page }) => {
  test.setTimeout(60_000);
  const wb = new Workbench(page);
  await wb.openTrace(S2, 7);
  await wb.tab('compare');
  await wb.compareOnly('linux-6.9', 'maple-rfc');
  const cols = wb.compare.getByTestId('compare-column');
  await expect(cols).toHaveCount(2);
  await expect(cols.nth(0)).toHaveAttribute('data-profile', 'linux-6.9');
  await expect(cols.nth(1)).toHaveAttribute('data-profile', 'maple-rfc');
  await expect(wb.compare).toHaveAttribute('data-step', '7');
  // Both trees: 6.9's free rbtree, maple-rfc's occupied maple tree (the main view's, node for node).
  await expect(cols.nth(0)).toHaveAttribute('data-tree', 'free');
  await expect(cols.nth(1)).toHaveAttribute('data-tree', 'maple');
  await expect(cols.nth(0).locator('[data-widget="compare-tree-linux-6.9"] g.node[data-va-start]')).not.toHaveCount(0);
  await expect(cols.nth(0).locator('[data-widget="compare-tree-linux-6.9"]')).toBeVisible();
  await expect(cols.nth(1).locator('[data-widget="compare-tree-maple-rfc"]')).toBeHidden();
  const inCompare = await mapleNodes(page, 'compare-maple-maple-rfc');
  expect(inCompare.length).toBeGreaterThan(0);
  expect(inCompare).toEqual(await mapleNodes(page, 'maple-tree'));

  // The counters of both, and the operation's result in each: 6.9 takes the low hole, maple-rfc
  // (size + align - 1) a higher one.
  const table = wb.compare.getByTestId('counters-table');
  await expect(table.locator('th[data-profile]')).toHaveText(['linux-6.9', 'maple-rfc']);
  for (const p of ['linux-6.9', 'maple-rfc']) {
    await expect(table.locator(`tr[data-counter="nodes_visited"] td[data-profile="${p}"][data-kind="total"]`)).toHaveText(/^[\d,]+$/);
  }
  expect(Number(await table.locator('tr[data-counter="nodes_visited"] td[data-profile="linux-6.9"][data-kind="total"]').textContent())).toBeGreaterThan(0);
  const result = table.locator('tr[data-row="result"]');
  await expect(result).toHaveAttribute('data-differs', 'true');
  const six = await result.locator('td[data-profile="linux-6.9"]').textContent();
  const rfc = await result.locator('td[data-profile="maple-rfc"]').textContent();
  expect(six).toBe('alloc -> 0xffffc90000010000');
  expect(rfc).toMatch(/^alloc -> 0x[0-9a-f]+$/);
  expect(BigInt(rfc!.slice(9))).toBeGreaterThan(0xffffc90000010000n);
  await expect(table.locator('tr[data-row="differing"]')).toHaveAttribute('data-count', '1');
  await expect(table.locator('tr[data-row="height"] td[data-profile="maple-rfc"]')).toHaveText(/^\d+$/);
  await expect(table.locator('tr[data-row="bytes_per_area"] td[data-profile="maple-rfc"]')).toHaveText(/^\d+\.\d$/);
  // The next step: the exact-range request with align > 4 KiB fails on maple-rfc only.
  await wb.compare.locator('button[data-action="next"]').click();
  await expect(wb.compare).toHaveAttribute('data-step', '8');
  await expect(result).toHaveAttribute('data-differs', 'true');
  await expect(result.locator('td[data-profile="maple-rfc"]')).toHaveText('alloc -> FAIL');
  await expect(table.locator('tr[data-row="differing"]')).toHaveAttribute('data-count', '2');
  await page.mouse.move(0, 0);
  await wb.compare.screenshot({ path: test.info().outputPath('compare.png') });
  expect(wb.problems).toEqual([]);
});

test('the sweep chart: maple-rfc (bump off and on) among the profiles, nodes visited and cache lines on log axes', async ({ page }) => {
  test.setTimeout(120_000);
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('charts');
  await expect(wb.charts).toHaveAttribute('data-ready', 'true', { timeout: 90_000 });
  const random = wb.charts.getByTestId('cost-random');
  await expect(random.locator('path.wb-pt[data-profile="maple-rfc"][data-bump="off"]')).toHaveCount(6);
  await expect(random.locator('path.wb-pt[data-profile="maple-rfc"][data-bump="on"]')).toHaveCount(6);
  for (const id of ['search-nodes', 'search-lines']) {
    const chart = wb.charts.getByTestId(id);
    await expect(chart.locator('path.wb-pt[data-profile="linux-6.9"]')).toHaveCount(6);
    await expect(chart.locator('path.wb-pt[data-profile="maple-rfc"][data-bump="off"]')).toHaveCount(6);
    await expect(chart.locator('path.wb-pt[data-profile="maple-rfc"][data-bump="on"]')).toHaveCount(6);
    await expect(chart.locator('.wb-axis-label').first()).toHaveText('live areas (log)');
  }
  const nodes = wb.charts.getByTestId('search-nodes');
  const value = async (sel: string, live: number) => Number(await nodes.locator(`path.wb-pt${sel}[data-live="${live}"]`).getAttribute('data-value'));
  // The rbtree's search grows with log2 of the live areas.
  expect(await value('[data-profile="linux-6.9"]', 30000)).toBeGreaterThan(await value('[data-profile="linux-6.9"]', 100));
  // maple-rfc's figures are the core's: either counted, or all zero with the note saying why.
  const state = await wb.charts.getAttribute('data-maple-counters');
  if (state === 'zero') await expect(wb.charts.getByTestId('maple-counters-note')).toContainText('does not count');
  else expect(await value('[data-profile="maple-rfc"][data-bump="off"]', 30000)).toBeGreaterThan(0);
  await wb.charts.getByTestId('search-nodes').scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0);
  await wb.charts.screenshot({ path: test.info().outputPath('charts.png') });
});
