// Live mode end to end (issue 62): vmap-live plays a recorded capture at full speed through the
// same path as a live kernel (source, recorder, follower, feed), the page follows /feed, and at
// the end shows what `vmap-replay --import capture` gives for that bundle: the same report line
// and the same trace; the header counts the busy and lazy areas of the kernel's own after file.
// The server's refusals (token, Host, Origin, paths, methods) are tested in core/live/tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { StatsWidget } from './pages/stats';
import { buildShippedBinaries } from './support/binaries';

const BUNDLE = '../shared/captures/linux-6.18-mixed';

let live: ChildProcess | null = null;
let url = '';
const expected = { trace: '', summary: '' };

test.describe.configure({ timeout: 240_000 });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  // Built in release (the binaries users run); up to date in a second when they are.
  buildShippedBinaries();
  const r = spawnSyncText('target/release/vmap-replay', ['--import', 'capture', BUNDLE]);
  expected.trace = r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .join('\n');
  expected.summary = r.stderr.trim().split('\n').pop() ?? '';
  expect(expected.summary).toMatch(/^capture: \d+ allocations/);
  ({ proc: live, url } = await startLive('', ['--speed', 'max', '--port', '0']));
});

test.afterAll(() => {
  live?.kill('SIGTERM');
});

/** `vmap-live` playing the recorded bundle (extra arguments: pace, port), and the URL it prints. */
async function startLive(name: string, args: string[]): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn('target/release/vmap-live', ['--live-from', BUNDLE, ...args, '--dist', 'dist', '--out', `test-results/live-session${name}-${process.pid}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /vmap-live: open (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`vmap-live exited (${code}): ${out}`)));
  });
  return { proc, url };
}

function spawnSyncText(cmd: string, args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return r;
}

/** The kernel's own after file: its busy areas and its lazily freed ones. */
function afterCounts(): { busy: number; lazy: number } {
  const text = gunzipSync(readFileSync(`${BUNDLE}/vmallocinfo.after.gz`)).toString('utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const lazy = lines.filter((l) => l.includes('unpurged vm_area')).length;
  return { busy: lines.length - lazy, lazy };
}

/** The busy areas of the kernel's after file (no module's), by range `start-end`: caller, symbol and flags as printed. */
function afterAreas(): Map<string, { caller: string; symbol: string; flags: string }> {
  const text = gunzipSync(readFileSync(`${BUNDLE}/vmallocinfo.after.gz`)).toString('utf8');
  const m = new Map<string, { caller: string; symbol: string; flags: string }>();
  for (const w of text.split('\n').map((l) => l.trim().split(/\s+/))) {
    if (w.length < 4 || w[2] === 'unpurged' || w[3].startsWith('[')) continue;
    m.set(w[0], { caller: w[2], symbol: w[2].split('+')[0], flags: w.slice(3).join(' ') });
  }
  return m;
}

test('live: a capture played through vmap-live ends where vmap-replay --import capture does', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  // The token was traded for the cookie: the address bar no longer has it.
  await expect(page).toHaveURL(`${new URL(url).origin}/#live=1`);
  const bar = page.locator('[data-widget="live"]');
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute('data-ended', 'true', { timeout: 120_000 });
  await expect(bar).toHaveAttribute('data-summary', expected.summary);
  await expect(bar.locator('[data-role="report"]')).toContainText(/\d+ allocations, \d+ equal, \d+ explained, 0 unexplained/);
  await expect(bar).toHaveAttribute('data-state', 'ended');
  // The player holds the followed trace, the capture replay's, and shows its end.
  await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentTrace().trim()), { timeout: 60_000 }).toBe(expected.trace);
  const n = expected.trace.split('\n').length;
  await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentStep())).toBeGreaterThanOrEqual(n - 3);
  const { busy, lazy } = afterCounts();
  const stats = new StatsWidget(page);
  await expect(stats.value('busy')).toHaveText(String(busy));
  await expect(stats.value('lazy')).toHaveText(String(lazy));
  await expect(bar.locator('[data-role="message"]')).toHaveText('');
  await expect(bar.locator('[data-role="problem"]')).toHaveText('');
  expect(errors).toEqual([]);
});

test('live: the areas carry their callers, from the before file and then the after file', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  const bar = page.locator('[data-widget="live"]');
  await expect(bar).toHaveAttribute('data-ended', 'true', { timeout: 120_000 });
  await expect(bar).toHaveAttribute('data-callers', 'vmallocinfo.after');
  // The workbench's fragmentation tab shows them (the hover reads the same index).
  const note = page.getByTestId('frag-callers-note');
  await expect(note).toContainText('(vmallocinfo.before, vmallocinfo.after)', { timeout: 60_000 });
  const { busy, lazy } = afterCounts();
  expect(Number(await note.getAttribute('data-areas'))).toBeGreaterThanOrEqual(busy + lazy);
  // An area the address space draws busy at the end, as the kernel's after file has it: its caller and flags as the file prints them.
  await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentTrace().trim()), { timeout: 60_000 }).toBe(expected.trace);
  const kernel = afterAreas();
  const drawn = await page
    .locator('[data-widget="space-bar"] g.area[data-state="busy"]')
    .evaluateAll((es) => es.map((e) => `${e.getAttribute('data-va-start')}-${e.getAttribute('data-va-end')}`));
  // One whose caller the table lists (it shows the callers holding the most space).
  const listed = await page.getByTestId('frag-callers').locator('tbody tr[data-caller]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-caller')));
  const range = drawn.find((r) => kernel.has(r) && listed.includes(kernel.get(r)!.symbol));
  expect(range, `a busy area drawn is one of the after file's, its caller listed (${drawn.length} drawn; ${listed.join(', ')})`).toBeDefined();
  const a = kernel.get(range!)!;
  const area = page.locator(`[data-widget="space-bar"] g.area[data-state="busy"][data-va-start="${range!.split('-')[0]}"]`).first();
  await area.scrollIntoViewIfNeeded();
  await area.hover({ force: true });
  const tip = page.getByTestId('caller-tip');
  await expect(tip).toBeVisible();
  await expect(tip.locator('.frag-tip-row').first()).toHaveAttribute('data-caller', a.caller);
  await expect(tip.locator('.frag-tip-row').first()).toHaveAttribute('data-flags', a.flags);
  await expect(tip).toContainText('vmallocinfo.after');
  await expect(bar.locator('[data-role="message"]')).toHaveText('');
  expect(errors).toEqual([]);
});

test('live: at the recorded pace the page adds the new lines to the session it shows, and ends where the capture replay does', async ({ page }) => {
  // The bundle's 19 s at its own pace: many rounds while it plays, even where the page takes
  // seconds to open (at four times the pace, a loaded machine opened it after the last round).
  const { proc: slow, url: slowUrl } = await startLive('-slow', ['--speed', '1', '--port', '0']);
  try {
    await page.goto(slowUrl);
    const bar = page.locator('[data-widget="live"]');
    await expect(bar).toHaveAttribute('data-ended', 'true', { timeout: 120_000 });
    await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentTrace().trim()), { timeout: 60_000 }).toBe(expected.trace);
    await expect(bar).toHaveAttribute('data-summary', expected.summary);
    // Opened once, then only grown (while the feed's `from` was the page's length).
    expect(Number(await bar.getAttribute('data-extended'))).toBeGreaterThanOrEqual(1);
    const { busy, lazy } = afterCounts();
    const stats = new StatsWidget(page);
    await expect(stats.value('busy')).toHaveText(String(busy));
    await expect(stats.value('lazy')).toHaveText(String(lazy));
    const n = expected.trace.split('\n').length;
    await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentStep())).toBeGreaterThanOrEqual(n - 3);
    await expect(bar.locator('[data-role="problem"]')).toHaveText('');
  } finally {
    slow.kill('SIGTERM');
  }
});

test('live: pause keeps the step shown; follow goes back to the end', async ({ page }) => {
  await page.goto(url);
  const bar = page.locator('[data-widget="live"]');
  await expect(bar).toHaveAttribute('data-ended', 'true', { timeout: 120_000 });
  await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentTrace().trim()), { timeout: 60_000 }).toBe(expected.trace);
  const button = bar.locator('[data-action="live-follow"]');
  await button.click();
  await expect(button).toHaveText('Follow');
  await expect(bar).toHaveAttribute('data-state', 'ended');
  // Scroll back through the player's timeline: it stays there.
  await page.locator('[data-widget="player"] button[data-action="first"]').click();
  await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentStep())).toBe(0);
  await page.waitForTimeout(1500);
  expect(await page.evaluate(() => window.vmapviz!.app.currentStep())).toBe(0);
  await button.click();
  await expect(button).toHaveText('Pause');
  await expect.poll(() => page.evaluate(() => window.vmapviz!.app.currentStep()), { timeout: 30_000 }).toBeGreaterThan(1000);
});

test('live: the page says plainly when the feed drops', async ({ page }) => {
  await page.goto(url);
  const bar = page.locator('[data-widget="live"]');
  await expect(bar).toHaveAttribute('data-ended', 'true', { timeout: 120_000 });
  // A second server stopped at once: its page sees the feed drop.
  const { proc: other, url: otherUrl } = await startLive('-drop', ['--speed', '1']);
  await page.goto(otherUrl);
  await expect(bar).toHaveAttribute('data-state', 'following');
  other.kill('SIGKILL');
  await expect(bar).toHaveAttribute('data-state', 'dropped', { timeout: 15_000 });
  await expect(bar.locator('[data-role="message"]')).toContainText('The feed dropped');
});
