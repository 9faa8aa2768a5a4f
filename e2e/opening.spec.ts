// A long permalink opens a slice at a time: the page stays responsive, shows progress, can be
// cancelled, and a trace the core refuses shows its message and the default scenario.
import { expect, test } from '@playwright/test';
import { createRequire } from 'node:module';
import { AppPage } from './pages/app';

// lz-string is CommonJS: Node's ESM loader does not see its named exports.
const { compressToEncodedURIComponent } = createRequire(import.meta.url)('lz-string') as typeof import('lz-string');

/** A trace of `n` allocations with a free after every fourth (about 60 characters a line). */
function longTrace(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
    if (i % 4 === 3) lines.push(`free 0x${(0xffffc90000000000n + BigInt(i - 1) * 0x2000n).toString(16)}`);
  }
  return lines.join('\n') + '\n';
}

test('a long link opens in slices and shows the whole trace', async ({ page }) => {
  const trace = longTrace(2_000);
  expect(trace.length).toBeGreaterThan(16_384);
  const app = new AppPage(page);
  await app.openTrace(trace, 'end');
  await expect(page.locator('[data-widget="opening"]')).toHaveCount(0);
  await expect(app.loadError).toBeHidden();
  await expect(app.player.stepLabel).toHaveText('2500 / 2500 done');
  expect(app.problems).toEqual([]);
});

test('a long link the core refuses names the line and shows the default scenario', async ({ page }) => {
  const trace = longTrace(2_000) + 'alloc 0x2000 0x1 0xffffc90000000000\n';
  const app = new AppPage(page);
  await app.openTrace(trace, 'end');
  await expect(app.loadError).toBeVisible();
  await expect(app.loadError).toContainText('line 2501: `alloc` takes 4 arguments');
  await expect(app.loadError).toContainText('default scenario');
  await expect(page.locator('[data-widget="opening"]')).toHaveCount(0);
});

test('opening a long link shows its progress and can be cancelled', async ({ page }) => {
  // Press Cancel after the first progress update (a watcher in the page, so the race with a
  // fast machine finishing the opening first is not lost).
  await page.addInitScript(() => {
    const w = window as unknown as { progressSeen: string };
    w.progressSeen = '';
    new MutationObserver(() => {
      const note = document.querySelector('[data-widget="opening"]');
      const text = note?.querySelector('[data-role="progress"]')?.textContent ?? '';
      if (note && /%/.test(text) && !w.progressSeen) {
        w.progressSeen = text;
        note.querySelector<HTMLButtonElement>('button')?.click();
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const trace = longTrace(16_000);
  await page.goto(`./#trace=${encodeURIComponent(trace)}&step=end`);
  await expect(page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 15_000 });
  expect(await page.evaluate(() => (window as unknown as { progressSeen: string }).progressSeen)).toMatch(
    /^Opening the trace from the link: (parsing|replaying) \d+ %$/,
  );
  await expect(page.locator('[data-widget="opening"]')).toHaveCount(0);
  await expect(page.getByTestId('load-error')).toContainText('cancelled');
  await expect(page.getByTestId('load-error')).toContainText('default scenario');
});

test('a new link while a long one opens replaces it and leaves no progress line behind', async ({ page }) => {
  const short = 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n';
  await page.addInitScript((next) => {
    const w = window as unknown as { switched: boolean };
    w.switched = false;
    new MutationObserver(() => {
      const text = document.querySelector('[data-widget="opening"] [data-role="progress"]')?.textContent ?? '';
      if (/%/.test(text) && !w.switched) {
        w.switched = true;
        location.hash = next;
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  }, `#trace=${encodeURIComponent(short)}&step=end`);
  const app = new AppPage(page);
  await page.goto(`./#trace=${encodeURIComponent(longTrace(16_000))}&step=end`);
  await expect(page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 15_000 });
  expect(await page.evaluate(() => (window as unknown as { switched: boolean }).switched)).toBe(true);
  await expect(page.locator('[data-widget="opening"]')).toHaveCount(0);
  await expect(app.player.stepLabel).toHaveText('1 / 1 done');
  // The long opening, abandoned, does not come back later.
  await page.waitForTimeout(1500);
  await expect(app.player.stepLabel).toHaveText('1 / 1 done');
  expect(app.problems).toEqual([]);
});

test("a long trace's own address is the compressed link, and a reload opens it at the same step", async ({ page }) => {
  const trace = longTrace(2_000);
  const app = new AppPage(page);
  await app.openTrace(trace, 1200);
  // Compressed in a worker, then written: the plain form would be 190 KB.
  await expect.poll(() => page.evaluate(() => location.hash), { timeout: 15_000 }).toMatch(/^#z=[A-Za-z0-9+\-$]+&step=1200$/);
  const hash = await page.evaluate(() => location.hash);
  expect(hash.length * 10).toBeLessThan(encodeURIComponent(trace).length);
  // A step, then rest: the link follows, still compressed.
  await page.keyboard.press('Shift+ArrowRight');
  await expect(page.locator('#app')).toHaveAttribute('data-step', '1201');
  await expect.poll(() => page.evaluate(() => location.hash), { timeout: 15_000 }).toMatch(/^#z=[A-Za-z0-9+\-$]+&step=1201$/);
  const list = page.locator('[data-widget="ops"] ol.ops');
  const current = list.locator('li.current');
  await expect(current).toHaveAttribute('data-index', '1200');
  const text = await current.locator('code.text').textContent();

  await page.reload();
  await app.waitReady();
  await expect(page.locator('#app')).toHaveAttribute('data-step', '1201');
  await expect(list).toHaveAttribute('data-total', '2500');
  await expect(current).toHaveAttribute('data-index', '1200');
  await expect(current.locator('code.text')).toHaveText(text ?? '');
  expect(app.problems).toEqual([]);
});

test('a long list of operations is built a block at a time, around what is shown', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(longTrace(2_000), 'end');
  const list = page.locator('[data-widget="ops"] ol.ops');
  const rows = list.locator('li[data-index]');
  await expect(list).toHaveAttribute('data-total', '2500');
  // The last block (the current row's) is built; the first ones stand as gaps.
  await expect(list.locator('li.current')).toHaveAttribute('data-index', '2499');
  await expect(list.locator('li.current')).toBeInViewport();
  expect(await rows.count()).toBeLessThan(2_500);
  await expect(list.locator('li.ops-gap').first()).toHaveAttribute('aria-hidden', 'true');
  await expect(list.locator('li.current')).toHaveAttribute('aria-setsize', '2500');
  await expect(list.locator('li.current')).toHaveAttribute('aria-posinset', '2500');
  // Every built row before the current one is done.
  expect(await list.locator('li[data-index]:not(.done)').count()).toBe(0);

  // Home: the first row comes into view, built, and nothing is done.
  await page.keyboard.press('Home');
  await expect(page.locator('#app')).toHaveAttribute('data-step', '0');
  await expect(list.locator('li[data-index="0"]')).toBeInViewport();
  expect(await list.locator('li.done').count()).toBe(0);

  // Scrolled to the middle, the rows there are built and can be clicked.
  await list.evaluate((l) => (l.scrollTop = l.scrollHeight / 2));
  const mid = list.locator('li[data-index="1250"]');
  await expect.poll(async () => (await rows.count()) >= 1_000).toBe(true);
  await mid.scrollIntoViewIfNeeded();
  await mid.click();
  await expect(page.locator('#app')).toHaveAttribute('data-step', '1251');
  await expect(mid).toHaveClass(/current/);
  await expect(list.locator('li[data-index="1249"]')).toHaveClass(/done/);
  await expect(list.locator('li[data-index="1251"]')).not.toHaveClass(/done/);
  expect(app.problems).toEqual([]);
});

test('a long #z= link is decompressed and counted off the main thread, with the progress line and Cancel of any long link', async ({ page }) => {
  test.setTimeout(120_000);
  // 20,000 allocations of assorted sizes (the most the player holds: a longer link opens in the
  // large-trace navigator, e2e/big-link.spec.ts), compressing to more than 16 KB.
  const lines: string[] = [];
  for (let i = 0; i < 20_000; i++) lines.push(`alloc 0x${(((i * 7919) % 251) + 1).toString(16)}000 0x1 0xffffc90000000000 0xffffe8ffffffffff`);
  const z = compressToEncodedURIComponent(`${lines.join('\n')}\n`);
  expect(z.length).toBeGreaterThan(16 * 1024);
  // What the progress line said, from the first moment.
  await page.addInitScript(() => {
    const w = window as unknown as { said: string[] };
    w.said = [];
    new MutationObserver(() => {
      const t = document.querySelector('[data-widget="opening"] [data-role="progress"]')?.textContent;
      if (t && w.said.at(-1) !== t) w.said.push(t);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const app = new AppPage(page);
  await page.goto(`./#z=${z}&step=1000`);
  await app.waitReady();
  await expect(page.locator('#app')).toHaveAttribute('data-step', '1000');
  await expect(page.locator('[data-widget="ops"] ol.ops')).toHaveAttribute('data-total', '20000');
  const said = await page.evaluate(() => (window as unknown as { said: string[] }).said);
  expect(said[0]).toBe('Opening the link: decompressing…');
  expect(said.some((s) => s.startsWith('Opening the trace from the link: replaying'))).toBe(true);
  expect(app.problems).toEqual([]);

  // Cancel while it decompresses (pressed by the page as the progress line appears: the link
  // worker may be done before a click from here lands): the page keeps what it showed.
  await page.evaluate((h) => {
    new MutationObserver((_, o) => {
      const b = document.querySelector<HTMLButtonElement>('[data-action="cancel-opening"]');
      if (!b) return;
      o.disconnect();
      b.click();
    }).observe(document.body, { subtree: true, childList: true });
    location.hash = h;
  }, `#z=${z}&step=5`);
  await expect(page.getByTestId('load-error')).toContainText('cancelled');
  await expect(page.locator('#app')).toHaveAttribute('data-step', '1000');
});
