// Compare mode, micro-step by micro-step (issue 15, "both trees, both searches animated"):
// linux-6.9 and maple-rfc on one trace with holes; inside the last allocation, frame f of each
// column is shown at once, each with its own counter, narration and highlighted node, checked
// against that column's own frames as the core replays them here (not through the page); a
// column with fewer frames holds its last; stepping back restores each frame as it was.
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator } from '@playwright/test';
import { Workbench } from './panels/workbench';
import { coreEvents, type CoreEvent } from './support/core';
import { holesTrace, RFC_S2_SETUP, VEND as VE } from './fixtures/rfc';

/** Compare mode with linux-6.9 and maple-rfc only, not following the main player. */
async function sixNineAgainstRfc(wb: Workbench): Promise<Locator> {
  const cmp = wb.compare;
  await cmp.locator('input[name="follow"]').uncheck();
  await wb.compareOnly('linux-6.9', 'maple-rfc');
  return cmp;
}

/** The trace as compare mode replays it under linux-6.9: `bump off` keeps its index as a `dump`. */
function as69(trace: string): string {
  return trace.replace('profile maple-rfc', 'profile linux-6.9').replace('bump off', 'dump');
}

/** The kind the narration names for an event: an occupied-tree maple event by its own kind. */
function told(e: CoreEvent): string {
  if (e.kind !== 'maple') return e.kind;
  return e.tree === 'occupied' ? (e.event?.kind ?? '') : `busy:${e.event?.kind ?? ''}`;
}

/** What a column shows, to compare a frame with itself after stepping back. */
async function snapshot(col: Locator): Promise<string> {
  return col.evaluate((c) => {
    const marks = [...c.querySelectorAll('g.node[data-mark]')].map((n) => `${n.getAttribute('data-id')}:${n.getAttribute('data-mark')}`).join(',');
    const maple = [...c.querySelectorAll('g.maple-node.on-path, g.maple-node.current')].map((n) => `${n.getAttribute('data-maple-id')}:${n.getAttribute('class')}`).join(',');
    const cells = [...c.querySelectorAll('g.maple-node g[data-slot]')]
      .filter((n) => /scanned|at-slot|found|gap-/.test(n.getAttribute('class') ?? '')).map((n) => `${n.getAttribute('data-slot')}:${n.getAttribute('class')}`).join(',');
    // The bar: the areas drawn and the ranges outlined over them.
    const bar = [...c.querySelectorAll('g.area[data-va-start], g.range[data-va-start]')].map((n) => `${n.getAttribute('class')}:${n.getAttribute('data-va-start')}`).join(',');
    const h = c as HTMLElement;
    return [bar, h.dataset.frame, h.dataset.held, h.dataset.focusNode, c.querySelector('[data-testid="compare-frame"]')?.textContent, c.querySelector('[data-testid="compare-narration"]')?.textContent, marks, maple, cells].join('|');
  });
}

test('compare: linux-6.9 and maple-rfc step through one allocation micro-step by micro-step, side by side', async ({ page }) => {
  test.setTimeout(120_000);
  const trace = holesTrace();
  const last = 55; // the two-page allocation: op 56, from step 55 to 56
  const events: Record<string, CoreEvent[]> = { 'linux-6.9': coreEvents(as69(trace), last), 'maple-rfc': coreEvents(trace, last) };
  const n69 = events['linux-6.9'].length;
  const nRfc = events['maple-rfc'].length;
  // The searches differ in length: the free tree's is the shorter and will hold.
  expect(n69).toBeGreaterThan(5);
  expect(nRfc).toBeGreaterThan(n69);

  const wb = new Workbench(page);
  await wb.openTrace(trace);
  await wb.tab('compare');
  const cmp = await sixNineAgainstRfc(wb);
  const cols = cmp.getByTestId('compare-column');
  await expect(cols).toHaveCount(2);
  const col: Record<string, Locator> = { 'linux-6.9': cols.nth(0), 'maple-rfc': cols.nth(1) };
  await expect(col['linux-6.9']).toHaveAttribute('data-profile', 'linux-6.9');
  await expect(col['maple-rfc']).toHaveAttribute('data-profile', 'maple-rfc');

  // To the step before the last allocation, between operations.
  await cmp.locator('button[data-action="last"]').click();
  await cmp.locator('button[data-action="prev"]').click();
  await expect(cmp).toHaveAttribute('data-step', String(last));
  await expect(cmp).toHaveAttribute('data-frame', '-1');
  // Between operations the counters table names the last one done (op 55).
  const head = cmp.getByTestId('counters-table').locator('thead tr').nth(1).locator('th').first();
  await expect(head).toHaveText(`op ${last}`);
  let table = '';

  const seen: string[][] = [];
  let visits69 = 0;
  let visitsRfc = 0;
  for (let f = 0; f < nRfc; f++) {
    await cmp.locator('button[data-action="next-frame"]').click();
    await expect(cmp).toHaveAttribute('data-frame', String(f));
    await expect(cmp).toHaveAttribute('data-frames', String(nRfc));
    if (f === 0) {
      // Inside op 56 the columns show its micro-steps: the table names op 56 too (issue 33: it
      // named the one before), its counters that operation's.
      await expect(head).toHaveText(`op ${last + 1}`);
      table = await cmp.getByTestId('counters-table').innerHTML();
    }
    const row: string[] = [];
    for (const p of ['linux-6.9', 'maple-rfc']) {
      const c = col[p];
      const evs = events[p];
      const i = Math.min(f, evs.length - 1);
      const held = f >= evs.length;
      const e = evs[i];
      await expect(c).toHaveAttribute('data-frame', String(i));
      await expect(c).toHaveAttribute('data-frames', String(evs.length));
      await expect(c).toHaveAttribute('data-held', String(held));
      await expect(c.getByTestId('compare-frame')).toHaveText(`frame ${i + 1}/${evs.length}`);
      const said = c.getByTestId('compare-narration');
      await expect(said).toHaveAttribute('data-event', e.kind);
      if (held) await expect(said).toContainText('holds its last frame');
      else await expect(said).not.toContainText('holds its last frame');
      if (p === 'linux-6.9' && (e.kind === 'visit' || e.kind === 'roll_back')) {
        // The free tree's search: the narration is the visit's, and the node it visits is marked.
        await expect(said).toHaveAttribute('data-kind', told(e));
        await expect(c).toHaveAttribute('data-focus-node', String(e.id));
        await expect(c.locator(`[data-widget="compare-tree-linux-6.9"] g.node[data-id="${String(e.id)}"]`)).toHaveAttribute('data-mark', /visit|found/);
        visits69++;
      }
      const inner = e.kind === 'maple' && e.tree === 'occupied' ? e.event : undefined;
      if (p === 'maple-rfc' && inner && (inner.kind === 'visit' || inner.kind === 'scan')) {
        // The occupied tree's search: the narration is the maple step's, its node the current one.
        await expect(said).toHaveAttribute('data-kind', told(e));
        await expect(c).toHaveAttribute('data-focus-node', String(inner.node));
        await expect(c.locator('g.maple-node.current')).toHaveAttribute('data-maple-id', String(inner.node));
        if (inner.kind === 'scan') await expect(c.locator(`g.maple-node.current g.at-slot[data-slot="${String(inner.slot)}"]`)).toHaveCount(1);
        visitsRfc++;
      }
      row.push(await snapshot(c));
    }
    seen.push(row);
    if (f === 7) {
      // Mid-search in both columns: the picture the README's compare paragraph describes.
      await cmp.scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await cmp.getByTestId('compare-columns').screenshot({ path: fileURLToPath(new URL('../test-results/compare-lockstep-1440.png', import.meta.url)) });
    }
    if (f === 25) {
      // linux-6.9 done and holding, maple-rfc still searching.
      await page.mouse.move(0, 0);
      await cmp.getByTestId('compare-columns').screenshot({ path: fileURLToPath(new URL('../test-results/compare-lockstep-held-1440.png', import.meta.url)) });
    }
  }
  expect(visits69).toBeGreaterThan(2);
  expect(visitsRfc).toBeGreaterThan(2);
  // The counters table is per operation: the micro-steps of one leave it as it was.
  expect(await cmp.getByTestId('counters-table').innerHTML()).toBe(table);

  // Stepping back with the keyboard (the panel has the focus): each frame comes back as it was.
  for (let f = nRfc - 2; f >= 0; f--) {
    await page.keyboard.press('ArrowLeft');
    await expect(cmp).toHaveAttribute('data-frame', String(f));
    expect([await snapshot(col['linux-6.9']), await snapshot(col['maple-rfc'])], `frame ${f}`).toEqual(seen[f]);
  }
  await page.keyboard.press('ArrowLeft');
  await expect(cmp).toHaveAttribute('data-frame', '-1');
  await expect(cmp).toHaveAttribute('data-step', String(last));
  await expect(col['linux-6.9'].getByTestId('compare-narration')).toBeHidden();

  // Shift+→: the whole operation, to the step after it; both answer the same address.
  await page.keyboard.press('Shift+ArrowRight');
  await expect(cmp).toHaveAttribute('data-step', String(last + 1));
  await expect(cmp).toHaveAttribute('data-frame', '-1');
  for (const p of ['linux-6.9', 'maple-rfc']) await expect(col[p].locator('.wb-col-status')).toHaveAttribute('data-output', 'alloc -> 0xffffc90000050000');
  // Shift+←: back to its start; → enters it again at frame 0.
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(cmp).toHaveAttribute('data-step', String(last));
  await page.keyboard.press('ArrowRight');
  await expect(cmp).toHaveAttribute('data-frame', '0');
  expect([await snapshot(col['linux-6.9']), await snapshot(col['maple-rfc'])]).toEqual(seen[0]);

  // What a micro-step costs the page: the panel's synchronous redraw of both columns (bar,
  // tree, narration), measured in the page from the click to its return, for every frame.
  const ms = await cmp.evaluate((root, n) => {
    const next = root.querySelector<HTMLButtonElement>('button[data-action="next-frame"]')!;
    const out: number[] = [];
    for (let f = 1; f < n; f++) {
      const t0 = performance.now();
      next.click();
      out.push(performance.now() - t0);
    }
    return out.sort((a, b) => a - b);
  }, nRfc);
  await expect(cmp).toHaveAttribute('data-frame', String(nRfc - 1));
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  console.log(`compare micro-step (2 columns): median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms over ${ms.length} steps`);
  expect(q(0.5)).toBeLessThan(200);
  expect(wb.problems).toEqual([]);
});

test('compare: following the main view, it shows the main player\'s micro-step too', async ({ page }) => {
  test.setTimeout(60_000);
  const wb = new Workbench(page);
  await wb.openTrace(holesTrace(), 55);
  await wb.tab('compare');
  await wb.compareOnly('linux-6.9', 'maple-rfc');
  const cmp = wb.compare;
  await expect(cmp.locator('input[name="follow"]')).toBeChecked();
  await expect(cmp).toHaveAttribute('data-step', '55');
  await expect(cmp).toHaveAttribute('data-frame', '-1');
  const main = page.locator('#app');
  await main.focus();
  for (const f of [0, 1, 2]) {
    await page.keyboard.press('ArrowRight');
    await expect(main).toHaveAttribute('data-frame', String(f));
    await expect(cmp).toHaveAttribute('data-frame', String(f));
    await expect(cmp).toHaveAttribute('data-step', '55');
    await expect(cmp.getByTestId('compare-column').nth(1)).toHaveAttribute('data-frame', String(f));
  }
  await page.keyboard.press('ArrowLeft');
  await expect(main).toHaveAttribute('data-frame', '1');
  await expect(cmp).toHaveAttribute('data-frame', '1');
  // Unfollowed, the main player's micro-steps leave compare where it is.
  await cmp.locator('input[name="follow"]').uncheck();
  await main.focus();
  await page.keyboard.press('ArrowRight');
  await expect(main).toHaveAttribute('data-frame', '2');
  await expect(cmp).toHaveAttribute('data-frame', '1');
  expect(wb.problems).toEqual([]);
});

test('compare: the counters table says why this operation\'s answers differ, from each column\'s events', async ({ page }) => {
  // The spec's S2: a 64 KiB-aligned request whose low hole is too short once padded.
  const S2 = [
    ...RFC_S2_SETUP,
    `alloc 0x6000 0x10000 0xffffc90000000000 ${VE}`,
  ].join('\n');
  const wb = new Workbench(page);
  await wb.openTrace(S2, 7);
  await wb.tab('compare');
  await wb.compareOnly('linux-6.9', 'maple-rfc');
  await expect(wb.compare).toHaveAttribute('data-step', '7');
  const table = wb.compare.getByTestId('counters-table');
  await expect(table.locator('tr[data-row="result"]')).toHaveAttribute('data-differs', 'true');
  const why = table.locator('tr[data-row="why"]');
  await expect(why.locator('td[data-profile="maple-rfc"]')).toHaveText(/^searched for size \+ align − 1 = 0x15fff \(align 0x10000 > PAGE_SIZE\)/);
  await expect(why.locator('td[data-profile="linux-6.9"]')).toHaveText('its search');
  // An operation whose answers agree has no such row.
  await wb.compare.locator('button[data-action="prev"]').click();
  await expect(wb.compare).toHaveAttribute('data-step', '6');
  await expect(table.locator('tr[data-row="result"]')).toHaveAttribute('data-differs', 'false');
  await expect(table.locator('tr[data-row="why"]')).toHaveCount(0);
  expect(wb.problems).toEqual([]);
});

test.describe('compare mode in lecture mode at 1280×720', () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test('the lecture view shows compare mode alone, mid-search, in large type; leaving lecture mode leaves it', async ({ page }) => {
    test.setTimeout(90_000);
    const trace = holesTrace();
    const last = 55;
    const events = { six: coreEvents(as69(trace), last), rfc: coreEvents(trace, last) };
    const wb = new Workbench(page);
    await wb.openTrace(trace);
    await wb.tab('compare');
    const cmp = await sixNineAgainstRfc(wb);
    await cmp.locator('button[data-action="last"]').click();
    await cmp.locator('button[data-action="prev"]').click();
    await expect(cmp).toHaveAttribute('data-step', String(last));

    await cmp.locator('button[data-action="compare-lecture"]').click();
    await expect(page.locator('body')).toHaveClass(/\blecture\b/);
    await expect(page.locator('body')).toHaveAttribute('data-lecture-view', 'compare');
    await expect(page.locator('#app > main')).toBeHidden();
    await expect(cmp.getByTestId('compare-columns')).toBeVisible();
    // The keys step the panel (it has the focus): eight micro-steps into the allocation.
    for (let f = 0; f < 8; f++) await page.keyboard.press('ArrowRight');
    await expect(cmp).toHaveAttribute('data-frame', '7');
    const cols = cmp.getByTestId('compare-column');
    await expect(cols.nth(0).getByTestId('compare-narration')).toHaveAttribute('data-event', events.six[7].kind);
    await expect(cols.nth(1).getByTestId('compare-narration')).toHaveAttribute('data-event', events.rfc[7].kind);
    // Both columns side by side in the screen's width, their narration in large type and in view.
    for (let i = 0; i < 2; i++) {
      const said = cols.nth(i).getByTestId('compare-narration');
      expect(await said.evaluate((e) => Number.parseFloat(getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(16);
      const b = await said.boundingBox();
      expect(b && b.y >= 0 && b.y + b.height <= 720 && b.x >= 0 && b.x + b.width <= 1280).toBe(true);
    }
    // The maple tree at lecture mode's readable size: the node of the step at least 16 px.
    const cur = cols.nth(1).locator('g.maple-node.current').first();
    await expect(cur).toHaveCount(1);
    const px = await cur.locator('text').first().evaluate((t) => {
      const m = (t as unknown as SVGGraphicsElement).getScreenCTM();
      return Number.parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
    });
    expect(px).toBeGreaterThanOrEqual(16);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: fileURLToPath(new URL('../test-results/compare-lockstep-lecture-1280.png', import.meta.url)) });
    // A resize (a projector's resolution changing) draws again with no NaN transform logged.
    for (const [w, h] of [
      [1024, 640],
      [640, 400],
      [1920, 1080],
      [1280, 720],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    }
    expect(wb.problems.filter((p) => /NaN/.test(p))).toEqual([]);

    // The header's Lecture button leaves lecture mode and the lecture view with it.
    await page.locator('[data-tool="lecture"]').click();
    await expect(page.locator('body')).not.toHaveClass(/\blecture\b/);
    await expect(page.locator('body')).not.toHaveAttribute('data-lecture-view', 'compare');
    await expect(page.locator('#app > main')).toBeVisible();
    await expect(cmp.locator('button[data-action="compare-lecture"]')).toHaveAttribute('aria-pressed', 'false');
    expect(wb.problems).toEqual([]);
  });
});
