// Permalinks `#trace=...&step=...`: conformance traces draw exactly what the kernel's code dumps,
// and a bad link shows an error naming the line while the page stays usable.
import { expect, test } from '@playwright/test';
import { createRequire } from 'node:module';
import { AppPage } from './pages/app';
import { checks, lastDump, readVector, traceOps } from './support/conformance';

// lz-string is CommonJS: Node's ESM loader does not see its named exports.
const { compressToEncodedURIComponent } = createRequire(import.meta.url)('lz-string') as typeof import('lz-string');

// Vectors 01–06 opened at step=end draw exactly the tree of their final dump.
for (const name of ['01_first_allocs', '02_fit_types', '03_merges', '04_alignment', '05_windows', '06_edges']) {
  test(`${name} at step=end draws exactly its final dump`, async ({ page }) => {
    const { trace, expected } = readVector(name);
    const app = new AppPage(page);
    await app.openTrace(trace, 'end');
    await expect(app.loadError).toBeHidden();
    const want = lastDump(expected);
    expect(await app.tree.data()).toEqual(want);
    // 02 ends with every block used: an empty tree, said so.
    if (want.length === 0) await expect(app.tree.root.locator('.empty')).toContainText('empty');
    await expect(app.player.stepLabel).toHaveText(`${traceOps(trace).length} / ${traceOps(trace).length} done`);
    expect(app.problems).toEqual([]);
  });
}

test('&frame=F opens a micro-step of an operation and the link follows the player', async ({ page }) => {
  const { trace } = readVector('02_fit_types');
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=5&frame=3`);
  expect(await app.player.position()).toEqual({ op: 5, frame: 3 });
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'clip');
  await page.keyboard.press('ArrowRight');
  await expect(page).toHaveURL(/&step=5&frame=4$/);
  await page.keyboard.press('Shift+ArrowRight');
  await expect(page).toHaveURL(/&step=6$/);
});

// Every dump and busy listing of the small vectors, reached by clicking the op in the list.
const SMALL = [
  '01_first_allocs',
  '02_fit_types',
  '03_merges',
  '04_alignment',
  '05_windows',
  '06_edges',
  '07_refused_requests',
  '20_lazy_order_v52',
  '21_lazy_adjacent_v52',
  '23_lazy_alloc_retry_v52',
  '30_lazy_order_v61',
  '31_lazy_adjacent_v61',
  '33_lazy_alloc_retry_v61',
];

for (const name of SMALL) {
  test(`${name}: every dump and busy listing matches the drawing`, async ({ page }) => {
    const { trace, expected } = readVector(name);
    const list = checks(trace, expected);
    expect(list.length).toBeGreaterThan(0);
    const app = new AppPage(page);
    await app.openTrace(trace, 0);
    await expect(app.loadError).toBeHidden();
    for (const c of list) {
      await app.ops.op(c.op).click();
      await expect(app.player.stepLabel).toHaveText(new RegExp(`^${c.op + 1} / \\d+ done$`));
      if (c.kind === 'dump') {
        expect(await app.tree.data(), `${name}: dump at op ${c.op}`).toEqual(c.nodes);
      } else {
        const drawn = (await app.bar.data()).filter((a) => a.state === 'busy' || a.state === 'lazy');
        // `busy` lists 6.1's purge-tree blocks after the busy areas; the bar is in address order.
        const want = [...c.areas].sort((a, b) => (BigInt(a.vaStart) < BigInt(b.vaStart) ? -1 : 1));
        expect(drawn, `${name}: busy at op ${c.op}`).toEqual(want);
      }
    }
    expect(app.problems).toEqual([]);
  });
}

test('step=N opens at that step', async ({ page }) => {
  const { trace } = readVector('03_merges');
  const app = new AppPage(page);
  await app.openTrace(trace, 2);
  await expect(app.player.stepLabel).toHaveText(`2 / ${traceOps(trace).length} done`);
  await expect(app.ops.op(1)).toHaveClass(/current/);
});

test('a bad #trace= shows an error naming the line and leaves a usable page', async ({ page }) => {
  const app = new AppPage(page);
  const trace = 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n# fine so far\nfrobnicate 0x1000\n';
  await app.openTrace(trace, 'end');
  await expect(app.loadError).toBeVisible();
  await expect(app.loadError).toContainText('line 3');
  // The default scenario is drawn instead, at its start, and works.
  await expect(app.player.stepLabel).toHaveText('0 / 13 done');
  await app.player.end.click();
  await expect(app.tree.nodes).toHaveCount(5);
  await app.player.back.click();
  // One micro-step back from the end: the last micro-step of op 13.
  await expect(app.player.stepLabel).toHaveText('op 13 / 13');
  expect(app.problems).toEqual([]);
});

test('an invalid step is reported and the end is shown', async ({ page }) => {
  const { trace } = readVector('01_first_allocs');
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=soon`);
  await expect(app.loadError).toContainText('step=soon');
  await expect(app.player.stepLabel).toHaveText('8 / 8 done');
});

test('editing the hash in the address bar opens the new trace', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  const { trace, expected } = readVector('01_first_allocs');
  await page.evaluate((h) => (location.hash = h), `#trace=${encodeURIComponent(trace)}&step=end`);
  await expect(app.player.stepLabel).toHaveText('8 / 8 done');
  expect(await app.tree.data()).toEqual(lastDump(expected));
});

test('a link that fails on a page already showing a trace keeps that trace, and its link', async ({ page }) => {
  const app = new AppPage(page);
  const { trace } = readVector('01_first_allocs');
  await app.open(`./#trace=${encodeURIComponent(trace)}&step=2&lecture=1`);
  await expect(app.player.stepLabel).toHaveText('2 / 8 done');
  const shown = await page.evaluate(() => location.hash);
  for (const [bad, says] of [
    ['#trace=frobnicate%200x1000&step=end', 'frobnicate'],
    ['#z=%%%garbage%%%', 'damaged'],
    ['#trace=%E0%A4%A', 'URI encoding'],
    ['#trace=&step=end', 'empty'],
  ]) {
    await page.evaluate((h) => (location.hash = h), bad);
    await expect(app.loadError).toContainText(says);
    await expect(app.loadError).toContainText('The trace shown before is kept.');
    // Nothing of the failed link applies: lecture mode stays as it was.
    await expect(page.locator('body')).toHaveClass(/\blecture\b/);
    await expect(app.loadError).not.toContainText('default scenario');
    await expect(app.player.stepLabel).toHaveText('2 / 8 done');
    // The address bar names what is shown again: a reload opens it, not the error.
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(shown);
  }
  // One message for a damaged #z= (not also "not valid URI encoding").
  await page.evaluate(() => (location.hash = '#z=%%%garbage%%%'));
  await expect(app.loadError).toContainText('damaged');
  await expect(app.loadError).not.toContainText('URI encoding');
  expect(app.problems).toEqual([]);
});

test('a #z= link with a bad step says so, as a #trace= link does', async ({ page }) => {
  const app = new AppPage(page);
  const { trace } = readVector('01_first_allocs');
  await app.open(`./#z=${compressToEncodedURIComponent(trace)}&step=-4`);
  await expect(app.loadError).toContainText('step=-4');
  await expect(app.player.stepLabel).toHaveText('8 / 8 done');
});
