// Lecture mode (a toggle, `?lecture` or `&lecture=1`): large type, only the player, fits a
// 1280×720 projector with no scrolling. Light and dark themes, remembered.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { readVector } from './support/conformance';

test.use({ viewport: { width: 1280, height: 720 } });

async function noOverflow(page: import('@playwright/test').Page) {
  const size = await page.evaluate(() => ({
    w: document.documentElement.scrollWidth,
    h: document.documentElement.scrollHeight,
    bodyW: document.body.scrollWidth,
    bodyH: document.body.scrollHeight,
  }));
  expect(size.w).toBeLessThanOrEqual(1280);
  expect(size.h).toBeLessThanOrEqual(720);
  expect(size.bodyW).toBeLessThanOrEqual(1280);
  expect(size.bodyH).toBeLessThanOrEqual(720);
  // Every widget a lecturer needs is inside the screen.
  for (const w of ['player', 'space-bar', 'free-tree', 'narration', 'code']) {
    const box = await page.locator(`[data-widget="${w}"]`).boundingBox();
    expect(box, w).not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0), w).toBeLessThanOrEqual(720 + 0.5);
    expect((box?.x ?? 0) + (box?.width ?? 0), w).toBeLessThanOrEqual(1280 + 0.5);
  }
}

test('?lecture opens lecture mode: only the player, large type, no overflow at 1280×720', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./?lecture');
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await expect(app.ops.root).toBeHidden();
  await expect(app.forms.root).toBeHidden();
  await expect(app.stats.root).toBeHidden();
  await expect(app.player.root).toBeVisible();
  await page.keyboard.press('Home');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await noOverflow(page);
  const font = await app.narration.text.evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
  expect(font).toBeGreaterThanOrEqual(18);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: 'test-results/lecture-1280x720.png' });
  // The permalink keeps the mode.
  await expect(page).toHaveURL(/&lecture=1$/);
  expect(app.problems).toEqual([]);
});

test('the lecture toggle and the theme toggle; the theme is remembered', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(readVector('03_merges').trace, 16);
  const lecture = page.locator('[data-tool="lecture"]');
  await lecture.click();
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await expect(lecture).toHaveAttribute('aria-pressed', 'true');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await noOverflow(page);

  await page.locator('[data-tool="theme"]').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: 'test-results/lecture-dark-1280x720.png' });
  await page.reload();
  await app.waitReady();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  // Still in lecture mode: it came back from the permalink.
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await lecture.click();
  await expect(page.locator('body')).not.toHaveClass(/\blecture\b/);
  await expect(app.ops.root).toBeVisible();
  await page.locator('[data-tool="theme"]').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test.describe('dark by default when the system prefers it', () => {
  test.use({ colorScheme: 'dark' });
  test('prefers-color-scheme: dark', async ({ page }) => {
    const app = new AppPage(page);
    await app.open();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.keyboard.press('Home');
    for (let i = 0; i < 14; i++) await page.keyboard.press('ArrowRight');
    await page.mouse.move(0, 0);
    await page.screenshot({ path: 'test-results/dark-theme.png', fullPage: false });
  });
});
