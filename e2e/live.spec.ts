// Live mode end to end (issue 62): vmap-live plays a recorded capture at full speed through the
// same path as a live kernel (source, recorder, follower, feed), the page follows /feed, and at
// the end shows what `vmap-replay --import capture` gives for that bundle: the same report line
// and the same trace; the header counts the busy and lazy areas of the kernel's own after file.
// The server's refusals (token, Host, Origin, paths, methods) are tested in core/live/tests.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { StatsWidget } from './pages/stats';

const BUNDLE = '../shared/captures/linux-6.18-mixed';

let live: ChildProcess | null = null;
let url = '';
const expected = { trace: '', summary: '' };

test.describe.configure({ timeout: 240_000 });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  // Built in release (the binaries users run); up to date in a second when they are.
  execFileSync('cargo', ['build', '--release', '-p', 'vmapviz-live', '-p', 'vmapviz-core', '--bin', 'vmap-live', '--bin', 'vmap-replay'], {
    stdio: 'inherit',
  });
  const r = spawnSyncText('target/release/vmap-replay', ['--import', 'capture', BUNDLE]);
  expected.trace = r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .join('\n');
  expected.summary = r.stderr.trim().split('\n').pop() ?? '';
  expect(expected.summary).toMatch(/^capture: \d+ allocations/);
  live = spawn('target/release/vmap-live', ['--live-from', BUNDLE, '--speed', 'max', '--port', '0', '--dist', 'dist', '--out', `test-results/live-session-${process.pid}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    live!.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /vmap-live: open (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    live!.on('exit', (code) => reject(new Error(`vmap-live exited (${code}): ${out}`)));
  });
});

test.afterAll(() => {
  live?.kill('SIGTERM');
});

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
  const other = spawn('target/release/vmap-live', ['--live-from', BUNDLE, '--speed', '1', '--dist', 'dist', '--out', `test-results/live-session-drop-${process.pid}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const otherUrl = await new Promise<string>((resolve) => {
    let out = '';
    other.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /vmap-live: open (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
  });
  await page.goto(otherUrl);
  await expect(bar).toHaveAttribute('data-state', 'following');
  other.kill('SIGKILL');
  await expect(bar).toHaveAttribute('data-state', 'dropped', { timeout: 15_000 });
  await expect(bar.locator('[data-role="message"]')).toContainText('The feed dropped');
});
