// linux-6.9 vmap nodes in the workbench: areas coloured by node, the pools of each node with
// their entries, and what a pool hit (the free tree untouched), decay and a reclaim did.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { Workbench } from './panels/workbench';

const scenario = (name: string) => readFileSync(fileURLToPath(new URL(`../web/src/panels/scenarios/${name}.trace`, import.meta.url)), 'utf8');

/** Steps (1-based operation counts) after each operation of `trace` whose text starts with `prefix`. */
function stepsAfter(trace: string, prefix: string): number[] {
  const ops = trace.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
  return ops.map((o, i) => (o.startsWith(prefix) ? i + 1 : -1)).filter((i) => i > 0);
}

/** The main view's free tree, as its nodes' data attributes. */
async function mainTree(wb: Workbench): Promise<string[]> {
  return wb.page
    .locator('[data-widget="free-tree"] g.node[data-va-start]')
    .evaluateAll((gs) => gs.map((g) => `${g.getAttribute('data-va-start')}-${g.getAttribute('data-va-end')}-${g.getAttribute('data-color')}`));
}

test('outside linux-6.9 the tab offers the node scenarios; one opens in the main view', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('nodes');
  await expect(wb.nodes.getByTestId('nodes-intro')).toBeVisible();
  await wb.nodes.getByTestId('nodes-intro').locator('button[data-action="scenario-two_cpus_two_zones"]').click();
  await expect(wb.nodes).toHaveAttribute('data-profile', 'linux-6.9');
  // It opens at its start; its two nodes exist once `cpus 2` has run.
  await page.locator('[data-widget="player"] button[data-action="last"]').click();
  await expect(wb.nodes).toHaveAttribute('data-nodes', '2');
  await expect(wb.mainOps().first().locator('code.text')).toHaveText('profile linux-6.9');
});

test('two CPUs, two zones: busy areas by the zone of their start, lazy ones on the node of the allocating CPU', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.openTrace(scenario('two_cpus_two_zones'));
  await wb.tab('nodes');
  const strip = wb.nodes.getByTestId('node-strip');
  await expect(strip.locator('g.seg[data-state="busy"][data-va-start="0xffffc90000000000"]')).toHaveAttribute('data-node', '0');
  await expect(strip.locator('g.seg[data-state="busy"][data-va-start="0xffffc9000000a000"]')).toHaveAttribute('data-node', '0');
  // 0x...5000 lies in node 0's zone but CPU 1 allocated it: its lazy area waits on node 1.
  await expect(strip.locator('g.seg[data-state="lazy"][data-va-start="0xffffc90000005000"]')).toHaveAttribute('data-node', '1');
  await expect(strip.locator('g.seg[data-state="lazy"][data-va-start="0xffffc90000012000"]')).toHaveAttribute('data-node', '0');
  await expect(wb.nodes.locator('[data-testid="pool-node"][data-node="1"] h4')).toContainText('0 busy · 1 lazy');
});

test('a pool hit: the head of the pool becomes busy and the free tree is not touched', async ({ page }) => {
  const wb = new Workbench(page);
  const trace = scenario('pool_hit');
  const hit = stepsAfter(trace, 'alloc')[5];
  await wb.openTrace(trace, hit - 1);
  const treeBefore = await mainTree(wb);
  await wb.tab('nodes');
  await expect(wb.nodes.locator('[data-testid="pool"][data-node="1"][data-pool="1"]')).toHaveAttribute('data-len', '2');
  await expect(wb.nodes.locator('[data-testid="pool"][data-node="1"] li.head')).toHaveAttribute('data-va-start', '0xffffc90000006000');

  await wb.openTrace(trace, hit);
  await wb.tab('nodes');
  const ev = wb.nodes.getByTestId('pool-event');
  await expect(ev).toHaveAttribute('data-kind', 'pool_hit');
  await expect(ev).toHaveAttribute('data-tree-unchanged', 'true');
  await expect(ev).toContainText('gave its head [0xffffc90000006000, 0xffffc90000008000) to the busy set');
  await expect(ev).toContainText('The free tree was not touched');
  await expect(wb.nodes.locator('[data-testid="pool"][data-node="1"][data-pool="1"]')).toHaveAttribute('data-len', '1');
  expect(await mainTree(wb)).toEqual(treeBefore);
  await expect(wb.nodes.getByTestId('node-strip').locator('g.seg[data-state="busy"][data-va-start="0xffffc90000006000"]')).toHaveCount(1);

  await wb.nodes.scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0);
  const path = fileURLToPath(new URL('../test-results/workbench-nodes.png', import.meta.url));
  await wb.root.screenshot({ path });
});

test('decay: each purge gives LEN >> 2 entries back, and a pool of fewer than 4 all at once', async ({ page }) => {
  const wb = new Workbench(page);
  const trace = scenario('decay');
  const purges = stepsAfter(trace, 'purge');
  const lens: string[] = [];
  for (const [i, step] of purges.entries()) {
    await wb.openTrace(trace, step);
    await wb.tab('nodes');
    const pool = wb.nodes.locator('[data-testid="pool"][data-node="0"][data-pool="1"]');
    lens.push((await pool.count()) ? ((await pool.getAttribute('data-len')) ?? '?') : '0');
    if (i > 0) await expect(wb.nodes.getByTestId('pool-event')).toHaveAttribute('data-kind', 'decay');
  }
  expect(lens).toEqual(['8', '6', '5', '4', '3', '0']);
  await expect(wb.nodes.getByTestId('pool-event')).toContainText('gave 3 entries back to the free tree, kept 0');
});

test('reclaim on failure: the failed search empties every pool, then the retry succeeds', async ({ page }) => {
  const wb = new Workbench(page);
  const trace = scenario('reclaim_on_failure');
  const last = stepsAfter(trace, 'alloc').pop() as number;
  await wb.openTrace(trace, last - 1);
  await wb.tab('nodes');
  await expect(wb.nodes.getByTestId('pools')).toHaveAttribute('data-pooled', '5');
  await wb.openTrace(trace, last);
  await wb.tab('nodes');
  const ev = wb.nodes.getByTestId('pool-event');
  await expect(ev).toHaveAttribute('data-kind', 'reclaim');
  await expect(ev).toContainText('reclaims');
  await expect(wb.nodes.getByTestId('pools')).toHaveAttribute('data-pooled', '0');
  await expect(page.locator('[data-widget="ops"] ol.ops > li').nth(last - 1)).toContainText('alloc -> 0xffffc90000000000');
});
