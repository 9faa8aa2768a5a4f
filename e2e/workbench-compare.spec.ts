// Compare mode and charts: one trace under several profiles side by side, stepping in lock-step,
// the counters table and their series; the cost sweep on log axes and the contention model.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { Workbench } from './panels/workbench';
import { benchCore } from './support/core';

test('compare: the trace under linux-5.1 and linux-5.2 side by side, in lock-step, with the counters', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  // The default scenario opens at its start: show its end.
  await page.locator('[data-widget="player"] button[data-action="last"]').click();
  await wb.tab('compare');
  const cols = wb.compare.getByTestId('compare-column');
  await expect(cols).toHaveCount(2);
  await expect(cols.nth(0)).toHaveAttribute('data-profile', 'linux-5.1');
  await expect(cols.nth(1)).toHaveAttribute('data-profile', 'linux-5.2');
  // Each column has its own bar; the tree design has a tree, the list walk has none.
  await expect(cols.nth(1).locator('[data-widget="compare-tree-linux-5.2"] g.node[data-va-start]')).not.toHaveCount(0);
  await expect(cols.nth(0).locator('[data-widget="compare-bar-linux-5.1"] g.area[data-state="busy"]')).not.toHaveCount(0);
  // Lock-step: following the main view's step (13, the end of the default scenario).
  await expect(wb.compare).toHaveAttribute('data-step', '13');
  await wb.compare.locator('button[data-action="prev"]').click();
  await expect(wb.compare).toHaveAttribute('data-step', '12');
  for (let i = 0; i < 2; i++) await expect(cols.nth(i).locator('.wb-col-status')).toHaveAttribute('data-output', 'alloc -> 0xffffc90000002000');

  // The table: each counter, this operation and cumulated, per profile.
  const table = wb.compare.getByTestId('counters-table');
  const cell = (counter: string, profile: string, kind: string) =>
    table.locator(`tr[data-counter="${counter}"] td[data-profile="${profile}"][data-kind="${kind}"]`);
  await expect(table.locator('tr[data-counter]')).toHaveCount(8);
  expect(Number(await cell('list_walked', 'linux-5.1', 'total').textContent())).toBeGreaterThan(0);
  await expect(cell('list_walked', 'linux-5.2', 'total')).toHaveText('0');
  expect(Number(await cell('nodes_visited', 'linux-5.2', 'total').textContent())).toBeGreaterThan(0);

  // "ops 1–k" is the sum of the operations' own counts, step by step (the default scenario has
  // no profile line: the column's sessions start with an added one, which is not an operation).
  await wb.compare.locator('button[data-action="first"]').click();
  for (const profile of ['linux-5.1', 'linux-5.2']) {
    for (const counter of ['nodes_visited', 'list_walked', 'work']) await expect(cell(counter, profile, 'total')).toHaveText('0');
  }
  // The table is drawn with the step: each step's cells are read in one call (a round trip a
  // cell, 156 of them, took most of the test's 30 s on a loaded machine).
  const counts = () =>
    table.evaluate((t) => {
      const out: Record<string, number> = {};
      for (const td of t.querySelectorAll('tr[data-counter] td[data-profile][data-kind]')) {
        const tr = td.closest('tr') as HTMLElement;
        out[`${td.getAttribute('data-profile')}/${tr.dataset.counter}/${td.getAttribute('data-kind')}`] = Number(td.textContent?.replace(/,/g, ''));
      }
      return out;
    });
  const sums = new Map<string, number>();
  for (let k = 1; k <= 13; k++) {
    await wb.compare.locator('button[data-action="next"]').click();
    await expect(wb.compare).toHaveAttribute('data-step', String(k));
    const got = await counts();
    for (const profile of ['linux-5.1', 'linux-5.2']) {
      for (const counter of ['nodes_visited', 'list_walked', 'work']) {
        const key = `${profile}/${counter}`;
        expect(got[`${key}/op`], `${key} op at step ${k}`).toBeGreaterThanOrEqual(0);
        const sum = (sums.get(key) ?? 0) + got[`${key}/op`];
        sums.set(key, sum);
        expect(got[`${key}/total`], `${key} at step ${k}`).toBe(sum);
      }
    }
  }
  expect(sums.get('linux-5.1/list_walked')).toBeGreaterThan(0);
  await wb.compare.locator('button[data-action="prev"]').click();
  await expect(wb.compare).toHaveAttribute('data-step', '12');

  // The series: a point per operation and profile, and the marker on the step.
  const series = wb.compare.getByTestId('counters-series');
  await expect(series.locator('path.wb-pt[data-profile="linux-5.1"]')).toHaveCount(13);
  await expect(series.locator('path.wb-pt[data-profile="linux-5.2"][data-op="12"]')).toHaveCount(1);
  await expect(series.locator('line.wb-marker')).toHaveAttribute('data-x', '12');

  // A third profile.
  await wb.compare.locator('input[data-profile="linux-6.9"]').check();
  await expect(cols).toHaveCount(3);
  await expect(series.locator('path.wb-pt[data-profile="linux-6.9"]')).toHaveCount(13);

  // Following the main view.
  await page.keyboard.press('Home');
  await expect(wb.compare).toHaveAttribute('data-step', '0');
  await expect(table.locator('td[data-profile="linux-5.2"][data-kind="op"]').first()).toHaveText('—');

  await wb.compare.scrollIntoViewIfNeeded();
  await page.keyboard.press('End');
  await page.mouse.move(0, 0);
  await wb.root.screenshot({ path: fileURLToPath(new URL('../test-results/workbench-compare.png', import.meta.url)) });
});

test('compare: not following the main view, one more profile keeps the step shown; a column comes back from its cache', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('compare');
  await wb.compare.locator('input[name="follow"]').uncheck();
  await wb.compare.locator('button[data-action="last"]').click();
  await expect(wb.compare).toHaveAttribute('data-step', '13');
  for (let i = 0; i < 3; i++) await wb.compare.locator('button[data-action="prev"]').click();
  await expect(wb.compare).toHaveAttribute('data-step', '10');
  await wb.compare.locator('input[data-profile="linux-6.9"]').check();
  await wb.compareBuilt();
  const cols = wb.compare.getByTestId('compare-column');
  await expect(cols).toHaveCount(3);
  await expect(wb.compare).toHaveAttribute('data-step', '10');
  await expect(cols.nth(2).locator('.wb-col-status')).toHaveAttribute('data-output', await cols.nth(1).locator('.wb-col-status').getAttribute('data-output') ?? '');
  // At the end it stays at the end; a profile checked again is back at once, at the same step.
  await wb.compare.locator('button[data-action="last"]').click();
  await wb.compare.locator('input[data-profile="linux-5.1"]').uncheck();
  await expect(cols).toHaveCount(2);
  await wb.compare.locator('input[data-profile="linux-5.1"]').check();
  await expect(cols).toHaveCount(3);
  await expect(wb.compare).not.toHaveAttribute('data-building', 'true');
  await expect(wb.compare).toHaveAttribute('data-step', '13');
  await expect(cols.nth(0).locator('.wb-col-status')).toHaveAttribute('data-output', /./);
  expect(wb.problems).toEqual([]);
});

test('compare: a profile checked and unchecked at once leaves no build flagged', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('compare');
  // In one task: the check starts a build (its first slice comes later), the uncheck replaces it
  // with a choice that needs none.
  await wb.compare.evaluate((root) => {
    const box = root.querySelector<HTMLInputElement>('input[data-profile="maple-rfc"]')!;
    for (const on of [true, false]) {
      box.checked = on;
      box.dispatchEvent(new Event('change'));
    }
  });
  await expect(wb.compare.getByTestId('compare-column')).toHaveCount(2);
  await expect(wb.compare).not.toHaveAttribute('data-building', 'true');
});

test('compare: a trace one profile cannot replay says so in its column; the others still compare', async ({ page }) => {
  const wb = new Workbench(page);
  // A size that is not a page multiple: linux-5.2 BUG()s (the model refuses the line), linux-6.1
  // returns -EINVAL (the model answers FAIL).
  const V = '0xffffc90000000000 0xffffe8ffffffffff';
  await wb.openTrace(`profile linux-6.1\nalloc 0x2000 0x1 ${V}\nalloc 0x1800 0x1 ${V}\n`);
  await wb.tab('compare');
  await wb.compare.locator('input[data-profile="linux-5.1"]').uncheck();
  await wb.compare.locator('input[data-profile="linux-6.1"]').check();
  const cols = wb.compare.getByTestId('compare-column');
  await expect(cols).toHaveCount(2);
  await expect(cols.nth(0)).toHaveAttribute('data-profile', 'linux-5.2');
  await expect(cols.nth(0)).toHaveAttribute('data-error', 'true');
  await expect(cols.nth(0).locator('.wb-col-status')).toContainText('does not replay under linux-5.2: line 3');
  await expect(cols.nth(1).locator('.wb-col-status')).toHaveAttribute('data-output', /^alloc -> FAIL/);
  await expect(wb.compare.getByTestId('counters-table').locator('th[data-profile]')).toHaveText(['linux-6.1']);
});

test('charts: cost per operation against live areas for each profile, on log axes', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('charts');
  await expect(wb.charts).toHaveAttribute('data-ready', 'true', { timeout: 30_000 });
  const random = wb.charts.getByTestId('cost-random');
  const long = wb.charts.getByTestId('cost-long-busy');
  for (const p of ['linux-5.1', 'linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18']) {
    await expect(random.locator(`path.wb-pt[data-profile="${p}"]`)).toHaveCount(6);
    await expect(long.locator(`path.wb-pt[data-profile="${p}"]`)).toHaveCount(6);
  }
  const value = async (p: string, live: number) => Number(await random.locator(`path.wb-pt[data-profile="${p}"][data-live="${live}"]`).getAttribute('data-value'));
  // The list walk grows with the live areas; the tree stays near flat.
  expect(await value('linux-5.1', 30000)).toBeGreaterThan(10 * (await value('linux-5.1', 100)));
  expect(await value('linux-5.1', 30000)).toBeGreaterThan(10 * (await value('linux-5.2', 30000)));
  expect(await value('linux-5.2', 30000)).toBeLessThan(3 * (await value('linux-5.2', 100)));
  await expect(random.locator('.wb-axis-label').first()).toHaveText('live areas (log)');

  // The contention model for the eras with a free tree, and maple-rfc with its bump overlay on and off.
  const tp = wb.charts.getByTestId('contention-throughput');
  for (const p of ['linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18']) await expect(tp.locator(`path.wb-pt[data-profile="${p}"]:not([data-bump])`)).toHaveCount(7);
  for (const b of ['on', 'off']) await expect(tp.locator(`path.wb-pt[data-profile="maple-rfc"][data-bump="${b}"]`)).toHaveCount(7);
  const at64 = async (p: string) => Number(await tp.locator(`path.wb-pt[data-profile="${p}"][data-cpus="64"]`).getAttribute('data-value'));
  expect(await at64('linux-6.9')).toBeGreaterThan(2 * (await at64('linux-5.2')));
  const shares = wb.charts.getByTestId('contention-shares');
  for (const p of ['linux-5.2', 'linux-6.1', 'linux-6.9', 'linux-6.18']) {
    await expect(shares.locator(`path.wb-pt[data-profile="${p}"][data-metric="globalLockHold"]`)).toHaveCount(7);
    await expect(shares.locator(`path.wb-pt[data-profile="${p}"][data-metric="waitShare"]`)).toHaveCount(7);
  }
  await expect(shares.locator('path.wb-pt[data-metric="globalLockHold"]')).toHaveCount(42);
  await expect(shares.locator('path.wb-pt[data-metric="waitShare"]')).toHaveCount(42);
  // Both maple-rfc rows are labelled, and every value is the core's own for that row (the
  // workbench build's contention() run here, outside the page: 200 pairs per CPU as the chart).
  await expect(tp.locator('[data-series="maple-rfc-bump-on-throughput"] text')).toHaveText('maple-rfc, bump on');
  await expect(tp.locator('[data-series="maple-rfc-bump-off-throughput"] text')).toHaveText('maple-rfc, bump off');
  const rows: [string, boolean | undefined, string][] = [
    ['linux-5.2', undefined, ':not([data-bump])'],
    ['linux-6.1', undefined, ':not([data-bump])'],
    ['linux-6.9', undefined, ':not([data-bump])'],
    ['linux-6.18', undefined, ':not([data-bump])'],
    ['maple-rfc', true, '[data-bump="on"]'],
    ['maple-rfc', false, '[data-bump="off"]'],
  ];
  for (const [p, bump, sel] of rows) {
    const core = JSON.parse(benchCore().contention(p, '1,2,4,8,16,32,64', 200, bump)) as Record<string, number>[];
    for (const [chart, metric, field] of [
      [tp, 'throughput', 'throughput'],
      [shares, 'globalLockHold', 'global_lock_hold'],
      [shares, 'waitShare', 'wait_share'],
    ] as const) {
      const drawn = await chart.locator(`path.wb-pt[data-profile="${p}"]${sel}[data-metric="${metric}"]`).evaluateAll((es) => es.map((e) => [Number(e.getAttribute('data-cpus')), Number(e.getAttribute('data-value'))]));
      expect(drawn, `${p} ${String(bump)} ${metric}`).toEqual(core.map((c) => [c.cpus, +c[field].toFixed(4)]));
    }
  }
  // The overlay keeps maple-rfc off the global lock: with it on, less of the time is spent holding it.
  const hold = async (b: string) => Number(await shares.locator(`path.wb-pt[data-profile="maple-rfc"][data-bump="${b}"][data-metric="globalLockHold"][data-cpus="64"]`).getAttribute('data-value'));
  expect(await hold('on')).toBeLessThan(await hold('off'));

  // A chart as SVG.
  const [d] = await Promise.all([page.waitForEvent('download'), wb.charts.locator('button[data-action="cost-random-svg"]').click()]);
  expect(readFileSync((await d.path()) as string, 'utf8')).toContain('data-profile="linux-5.1"');

  await wb.charts.scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0);
  await wb.root.screenshot({ path: fileURLToPath(new URL('../test-results/workbench-charts.png', import.meta.url)) });
});
