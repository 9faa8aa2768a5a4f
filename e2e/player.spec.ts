// The player: micro-steps and whole operations, play/pause, speed (remembered), the keyboard
// (never while typing), the help overlay, the timeline's markers, and exact stepping back.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test('stepping back N micro-steps then forward N restores identical views, also after jumps', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.mouse.move(0, 0);
  await page.keyboard.press('Home');
  for (let i = 0; i < 26; i++) await page.keyboard.press('ArrowRight');
  const pos = await app.player.position();
  expect(pos.frame).toBeGreaterThanOrEqual(0);
  const html = await app.viewsHtml();
  const N = 17;
  for (let i = 0; i < N; i++) await page.keyboard.press('ArrowLeft');
  expect(await app.player.position()).not.toEqual(pos);
  for (let i = 0; i < N; i++) await page.keyboard.press('ArrowRight');
  expect(await app.player.position()).toEqual(pos);
  expect(await app.viewsHtml()).toEqual(html);

  // Jumps: to the end, to an operation, back to the start, then the same 26 micro-steps.
  await page.keyboard.press('End');
  await app.ops.op(6).click();
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Home');
  for (let i = 0; i < 26; i++) await page.keyboard.press('ArrowRight');
  expect(await app.viewsHtml()).toEqual(html);
  expect(app.problems).toEqual([]);
});

test('keyboard: arrows, Shift+arrows, Home/End, Space, −/+, ? and Esc; never while typing', async ({ page }) => {
  const app = new AppPage(page);
  const { player } = app;
  await app.open();
  await page.keyboard.press('Home');
  expect(await player.position()).toEqual({ op: 0, frame: -1 });
  await page.keyboard.press('ArrowRight');
  expect(await player.position()).toEqual({ op: 0, frame: 0 });
  await expect(player.frameLabel).toHaveText(/^micro-step 1 \/ \d+$/);
  await page.keyboard.press('Shift+ArrowRight');
  expect(await player.position()).toEqual({ op: 1, frame: -1 });
  await page.keyboard.press('ArrowLeft');
  const back = await player.position();
  expect(back.op).toBe(0);
  expect(back.frame).toBe((await app.coreKinds(0)).length - 1);
  await page.keyboard.press('Shift+ArrowLeft');
  expect(await player.position()).toEqual({ op: 0, frame: -1 });
  await page.keyboard.press('End');
  expect(await player.position()).toEqual({ op: 13, frame: -1 });

  // Speed: − and + step through 0.25× … 4×, and the choice is remembered.
  await expect(player.speed).toHaveText('1×');
  await page.keyboard.press('+');
  await expect(player.speed).toHaveText('1.5×');
  for (let i = 0; i < 10; i++) await page.keyboard.press('+');
  await expect(player.speed).toHaveText('4×');
  await expect(player.faster).toBeDisabled();
  for (let i = 0; i < 10; i++) await page.keyboard.press('-');
  await expect(player.speed).toHaveText('0.25×');
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await expect(player.speed).toHaveText('1×');
  await page.keyboard.press('=');
  await expect(player.speed).toHaveText('1.5×');
  await page.reload();
  await app.waitReady();
  await expect(player.speed).toHaveText('1.5×');

  // Space plays and pauses; the page opens paused.
  await expect(player.root).toHaveAttribute('data-playing', 'false');
  await page.keyboard.press('Home');
  for (let i = 0; i < 4; i++) await page.keyboard.press('+');
  await page.keyboard.press(' ');
  await expect(player.root).toHaveAttribute('data-playing', 'true');
  await expect(player.play).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => (await player.position()).frame, { timeout: 5000 }).toBeGreaterThan(1);
  await page.keyboard.press(' ');
  await expect(player.root).toHaveAttribute('data-playing', 'false');
  const paused = await player.position();
  await page.waitForTimeout(600);
  expect(await player.position()).toEqual(paused);

  // ? opens the help, Esc closes it.
  const help = page.locator('[data-widget="help"]');
  await page.keyboard.press('?');
  await expect(help).toBeVisible();
  await expect(help).toContainText('Shift + ← / →');
  await page.screenshot({ path: 'test-results/help-overlay.png' });
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();

  // Keys typed into a field belong to it.
  const size = app.forms.field('size');
  await size.click();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('End');
  await page.keyboard.press(' ');
  expect(await player.position()).toEqual(paused);
  await expect(size).toHaveValue('4K ');
  await expect(player.root).toHaveAttribute('data-playing', 'false');
  expect(app.problems).toEqual([]);
});

test('play runs to the end of the trace and stops there', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace('init 0x10000 0x30000\nalloc 0x1000 0x1000 0x10000 0x30000\nfree 0x10000\n', 0);
  for (let i = 0; i < 4; i++) await page.keyboard.press('+'); // 4×
  await app.player.play.click();
  await expect(app.player.stepLabel).toHaveText('3 / 3 done', { timeout: 10_000 });
  await expect(app.player.root).toHaveAttribute('data-playing', 'false');
  await expect(app.player.play).toBeDisabled();
});

test('the timeline marks splits, merges and rotations where the core reports them', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await expect(page.locator('#app[data-markers="ready"]')).toBeAttached({ timeout: 15_000 });
  const want: Record<string, number[]> = { split: [], merge: [], rotate: [] };
  for (let op = 0; op < 13; op++) {
    const events = await app.coreEvents(op);
    if (events.some((e) => e.kind === 'clip' && e.fit === 'NE')) want.split.push(op);
    if (events.some((e) => e.kind === 'merge')) want.merge.push(op);
    if (events.some((e) => e.kind === 'rotate')) want.rotate.push(op);
  }
  for (const kind of ['split', 'merge', 'rotate']) {
    const ops = await app.player.root.locator(`svg.markers rect.mk-${kind}`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-op'))));
    expect(ops, kind).toEqual(want[kind]);
  }
  expect(want.split.length + want.merge.length + want.rotate.length).toBeGreaterThan(0);
  // The scrubber jumps to a step.
  await app.player.scrubber.fill('4');
  await expect(app.player.stepLabel).toHaveText('4 / 13 done');
  await app.player.root.screenshot({ path: 'test-results/player.png' });
});

test('on a large tree the timeline marks all three kinds too, as the core reports them', async ({ page }) => {
  const app = new AppPage(page);
  // 600 areas of 6 pages, every other one freed (300 free blocks); then one-page requests that
  // start inside free blocks (NE splits) and frees between two free blocks (merges).
  const START = 0xffffc90000000000n;
  const at = (i: number, off = 0n) => `0x${(START + BigInt(i) * 0x6000n + off).toString(16)}`;
  const lines = Array.from({ length: 600 }, () => `alloc 0x6000 0x1 ${at(0)} 0xffffe8ffffffffff`);
  for (let i = 0; i < 600; i += 2) lines.push(`free ${at(i)}`);
  for (let i = 0; i < 8; i++) lines.push(`alloc 0x1000 0x1 ${at(100 + 2 * i, 0x2000n)} 0xffffe8ffffffffff`, `free ${at(301 + 2 * i)}`);
  await app.openTrace(lines.join('\n'), 'end');
  await expect(page.locator('#app[data-markers="ready"]')).toBeAttached({ timeout: 15_000 });
  const marked = async (kind: string) =>
    app.player.root.locator(`svg.markers rect.mk-${kind}`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-op'))));
  // The last 40 operations (frees that merge, allocations that split): as their events say.
  const from = lines.length - 40;
  const want: Record<string, number[]> = { split: [], merge: [], rotate: [] };
  for (let op = from; op < lines.length; op++) {
    const events = await app.coreEvents(op);
    if (events.some((e) => e.kind === 'clip' && e.fit === 'NE')) want.split.push(op);
    if (events.some((e) => e.kind === 'merge')) want.merge.push(op);
    if (events.some((e) => e.kind === 'rotate')) want.rotate.push(op);
  }
  for (const kind of ['split', 'merge', 'rotate']) {
    expect((await marked(kind)).filter((op) => op >= from), kind).toEqual(want[kind]);
  }
  expect(want.split.length).toBeGreaterThan(0);
  expect(want.merge.length).toBeGreaterThan(0);
});
