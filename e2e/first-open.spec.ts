// Issue 60, item 9 (in part): the first open at 1440×900 shows a way into the course, on screen
// without scrolling, in the hall's 16 px; it opens the first stop of the first lesson in lecture
// mode, and is gone there.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test.use({ viewport: { width: 1440, height: 900 } });

test('the first open shows "Start the course", which opens the first stop in lecture mode', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./');
  const start = page.getByRole('link', { name: /Start the course/ });
  await expect(start).toBeVisible();
  const box = await start.boundingBox();
  expect(box && box.y >= 0 && box.y + box.height <= 900 && box.x + box.width <= 1440).toBe(true);
  expect(await start.evaluate((e) => parseFloat(getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(16);
  await start.click();
  const card = page.locator('[data-widget="lesson"]');
  await expect(card).toHaveAttribute('data-lesson', 'walk');
  await expect(card).toHaveAttribute('data-stop', '1');
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await expect(start).toBeHidden();
  expect(app.problems).toEqual([]);
});
