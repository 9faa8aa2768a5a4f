// A capture bundle (scripts/capture.sh) through the workbench's import (issue 32): all its files
// chosen together are replayed in the worker from the before file, compared with the kernel,
// and opened in the main view (its operations handed over as bytes and stepped into the main
// view's session: one replay into a session, no text), where the timeline marks the allocations the replay explained
// and those nothing explains, and each one's note says which (from the core, not the page).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { Workbench } from './panels/workbench';

// A capture that still has unexplained allocations to mark.
const BUNDLE = fileURLToPath(new URL('../core/tests/data/corpus-9/mixed-k9', import.meta.url));

/** What the replay worker's replies said, recorded on the page: its progress messages and what each `open` gave. */
interface Seen {
  progress: number;
  opened: { kind: string; total: number; text: string | null; ops: number | null }[];
}

test('import: a capture bundle opens from its before file, with explained and unexplained allocations marked', async ({ page }) => {
  test.setTimeout(120_000);
  // Every reply of the replay worker, as the page receives it.
  await page.addInitScript(() => {
    const seen: Seen = { progress: 0, opened: [] };
    (window as unknown as { seen: Seen }).seen = seen;
    const W = window.Worker;
    window.Worker = class extends W {
      constructor(url: string | URL, opts?: WorkerOptions) {
        super(url, opts);
        this.addEventListener('message', (e: MessageEvent) => {
          const d = e.data as { type?: string; value?: { kind?: string; total?: number; text?: string | null; ops?: unknown } };
          if (d?.type === 'progress') seen.progress++;
          const v = d?.type === 'ok' ? d.value : null;
          if (v && typeof v === 'object' && typeof v.kind === 'string')
            seen.opened.push({ kind: v.kind, total: v.total ?? -1, text: v.text ?? null, ops: v.ops instanceof Uint8Array ? v.ops.length : null });
        });
      }
    };
  });
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('io');
  const io = wb.root.locator('[data-widget="import-export"]');
  const files = readdirSync(BUNDLE).map((f) => join(BUNDLE, f));
  expect(files.length).toBeGreaterThanOrEqual(4);
  await wb.root.getByTestId('import-file').setInputFiles(files);
  await expect(io).toHaveAttribute('data-imports', '1', { timeout: 60_000 });
  await expect(wb.importError).toBeHidden();
  await expect(wb.importStatus).toContainText('opened in the main view');
  await expect(wb.report).toHaveAttribute('data-format', 'capture');
  // The comparison's last line, as `vmap-replay --import capture` prints it.
  const facts = (await wb.report.locator('.wb-report-facts').textContent()) ?? '';
  const m = /^capture: 2497 allocations, (\d+) equal, (\d+) explained, (\d+) unexplained; final busy equal; purges 11 of 11 equal$/.exec(facts);
  expect(m, facts).not.toBeNull();
  const [equal, explained, unexplained] = (m as RegExpExecArray).slice(1).map(Number);
  expect(equal + explained + unexplained).toBe(2497);
  expect(explained).toBeGreaterThan(0);
  expect(unexplained).toBeGreaterThan(0);
  await expect(wb.report).toHaveAttribute('data-unexplained', String(unexplained));

  // Replayed once: the worker replayed the capture and stepped nothing (no progress message);
  // the page got its operations as bytes, no text, and stepped them into its session.
  const seen = await page.evaluate(() => (window as unknown as { seen: Seen }).seen);
  expect(seen.progress).toBe(0);
  expect(seen.opened).toHaveLength(1);
  const opened = seen.opened[0];
  expect(opened.kind).toBe('small');
  expect(opened.text).toBeNull();
  expect(opened.ops).toBeGreaterThan(opened.total);
  const shown = await page.evaluate(() => {
    const core = (window as unknown as { vmapviz: { app: { core: { length: number; marks(): Set<string>[] } } } }).vmapviz.app.core;
    const marks = core.marks();
    return { length: core.length, explained: marks.filter((m) => m.has('explained')).length, unexplained: marks.filter((m) => m.has('unexplained')).length };
  });
  // The main view's session is the capture replay's: its operations, and the comparison's counts.
  expect(shown).toEqual({ length: opened.total, explained, unexplained });

  // The timeline: one tall marker per explained or unexplained allocation, and their legend.
  await expect(page.locator('[data-markers="ready"]')).toBeAttached({ timeout: 60_000 });
  await expect(page.locator('.markers .mk-explained')).toHaveCount(explained);
  await expect(page.locator('.markers .mk-unexplained')).toHaveCount(unexplained);
  await expect(page.locator('.marker-legend .mk-unexplained')).toBeVisible();

  // Right after an unexplained allocation, its note: the kernel's address and the model's.
  const op = Number(await page.locator('.markers .mk-unexplained').first().getAttribute('data-op'));
  const scrub = page.getByRole('slider', { name: 'Timeline: operations' });
  await scrub.fill(String(op + 1));
  const warning = page.getByTestId('narration-warning');
  await expect(warning).toBeVisible();
  await expect(warning).toContainText(/^unexplained: the kernel returned 0x[0-9a-f]+, the model's answer was 0x[0-9a-f]+; nothing known explains it; the model takes the kernel's area/);
  // And after an explained one, the unknown it resolved.
  const ex = Number(await page.locator('.markers .mk-explained').first().getAttribute('data-op'));
  await scrub.fill(String(ex + 1));
  await expect(warning).toContainText(/^explained: the kernel returned 0x[0-9a-f]+, .*this resolved an unknown of the start state: /);
});

test('import: a drained capture replays with no unexplained allocation, purges seen half done included', async ({ page }) => {
  test.setTimeout(120_000);
  const dir = fileURLToPath(new URL('../core/tests/data/capture-6.18-drained-s4', import.meta.url));
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('io');
  const io = wb.root.locator('[data-widget="import-export"]');
  await wb.root.getByTestId('import-file').setInputFiles(readdirSync(dir).map((f) => join(dir, f)));
  await expect(io).toHaveAttribute('data-imports', '1', { timeout: 60_000 });
  await expect(wb.importError).toBeHidden();
  const facts = (await wb.report.locator('.wb-report-facts').textContent()) ?? '';
  expect(facts).toMatch(/^capture: 6200 allocations, \d+ equal, \d+ explained, 0 unexplained; final busy equal; purges 11 of 11 equal$/);
  await expect(wb.report).toHaveAttribute('data-unexplained', '0');
  await expect(page.locator('[data-markers="ready"]')).toBeAttached({ timeout: 60_000 });
  await expect(page.locator('.markers .mk-unexplained')).toHaveCount(0);
  // The report says where an allocation saw a purge before its event.
  await expect(wb.report).toContainText('had begun by then');
});

test('import: a bundle without its trace names what is missing, and nothing changes', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('io');
  const io = wb.root.locator('[data-widget="import-export"]');
  const files = readdirSync(BUNDLE)
    .filter((f) => !f.startsWith('trace.txt'))
    .map((f) => join(BUNDLE, f));
  await wb.root.getByTestId('import-file').setInputFiles(files);
  await expect(io).toHaveAttribute('data-imports', '1', { timeout: 30_000 });
  await expect(wb.importError).toBeVisible();
  await expect(wb.importError).toContainText('a capture bundle needs trace.txt');
  await expect(wb.importStatus).toContainText('Nothing changed');
});

// Node 1's area at VMALLOC_START, then an allocation the kernel served higher than the model's
// lowest fit (VMALLOC_START + 0x2000): the model takes the kernel's area, as the kernel did.
const CAPTURE_TRACE = [
  'profile linux-6.18',
  'cpus 2',
  'defer-drain',
  'place 0xffffc90000000000 0xffffc90000002000 node 1',
  'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000010000 unexplained',
].join('\n');

test('a link to a capture trace loads the core that replays it, then opens it', async ({ page }) => {
  await page.goto(`./#trace=${encodeURIComponent(CAPTURE_TRACE)}&step=end`);
  await expect(page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 30_000 });
  await expect(page.getByRole('slider', { name: 'Timeline: operations' })).toHaveAttribute('max', '5');
  await expect(page.getByTestId('narration-warning')).toContainText(
    'unexplained: the kernel returned 0xffffc90000010000, the model\'s answer was 0xffffc90000002000; nothing known explains it',
  );
  await expect(page.locator('.markers .mk-unexplained')).toHaveCount(1);
});

// An allocation the trace does not show (its area freed twice with none traced in between), made
// where the kernel's pool gave it: node 0's head of 5 pages, on CPU 0.
const UNTRACED_TRACE = [
  'profile linux-6.18',
  'cpus 2',
  'defer-drain',
  'pooled 0 0xffffc90000010000 0x5000',
  'alloc 0x5000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000010000 untraced',
  'vfree 0xffffc90000010000',
].join('\n');

test('a capture trace marks an allocation the trace does not show, and its note says so', async ({ page }) => {
  await page.goto(`./#trace=${encodeURIComponent(UNTRACED_TRACE)}&step=5`);
  await expect(page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 30_000 });
  await expect(page.getByTestId('narration-warning')).toContainText(
    'untraced: an allocation the trace does not show (its area is freed twice with none traced in between), made where the kernel\'s pool gave it: 0xffffc90000010000, the model\'s answer too',
  );
  const marks = page.locator('.markers .mk-untraced');
  await expect(marks).toHaveCount(1);
  await expect(marks).toHaveAttribute('data-op', '4');
  await expect(page.locator('.markers .mk-unexplained, .markers .mk-explained')).toHaveCount(0);
  await expect(page.locator('.marker-legend .mk-untraced')).toBeVisible();
});

// The vmap node shrinker's scan in a capture's printed trace: node 0's pool of 5 pages (two
// entries) given back whole, the decay's micro-steps as a purge's.
const SHRINK_TRACE = [
  'profile linux-6.18',
  'cpus 2',
  'defer-drain',
  'pooled 0 0xffffc90000010000 0x5000',
  'pooled 0 0xffffc90000020000 0x5000',
  'shrink',
  'alloc 0x5000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000000000',
].join('\n');

test('a capture trace\'s shrink line gives back every pool whole, narrated as a decay', async ({ page }) => {
  await page.goto(`./#trace=${encodeURIComponent(SHRINK_TRACE)}&step=5`);
  await expect(page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 30_000 });
  await page.keyboard.press('ArrowRight');
  await expect(page.getByText('Node 0, pool 4: 2 areas go back to the free tree, 0 stay.')).toBeVisible();
  await expect(page.getByText('all on reclaim and when the shrinker runs')).toBeVisible();
  await expect(page.getByRole('listitem', { name: 'op 6 shrink 2' })).toBeVisible();
});

test('import: a capture trace pasted as text loads the core that replays it, then opens it', async ({ page }) => {
  // The link test's trace, through the workbench's import instead: the main view opens it in
  // the workbench's build of the core, loaded first.
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('io');
  await wb.importText(CAPTURE_TRACE);
  await expect(wb.importError).toBeHidden();
  await expect(wb.importStatus).toContainText('opened in the main view');
  await expect(page.getByRole('slider', { name: 'Timeline: operations' })).toHaveAttribute('max', '5');
  await expect(page.getByTestId('narration-warning')).toContainText(
    'unexplained: the kernel returned 0xffffc90000010000, the model\'s answer was 0xffffc90000002000; nothing known explains it',
  );
});
