// Issue 33: maple-rfc S5 (the syzbot overlap) in lecture mode: the WARNING of the operation the
// RFC's check stops is on screen (the narration; lecture mode hides the operations list), and the
// maple view says why the occupied tree is empty instead of showing a bare panel.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test.use({ viewport: { width: 1280, height: 720 } });

test('S5 in lecture mode: the WARNING on screen at the failing allocation, the empty occupied tree explained', async ({ page }) => {
  const app = new AppPage(page);
  // The maple-rfc lesson's S5 stop: op 3 (the allocation in the module area), its window loop.
  await app.open('./#lesson=maple-rfc&stop=7&lecture=1');
  const warning = page.getByTestId('tree-warning');
  const empty = page.locator('[data-widget="maple-tree"] p.empty');
  // The stop is the allocation's last micro-step (its window loop found the hole the check then
  // refuses): the WARNING is shown, in view and at least 16 px.
  await expect(page.locator('#app')).toHaveAttribute('data-frame', '1');
  await expect(warning).toBeVisible();
  await expect(warning).toContainText('WARNING in alloc_vmap_area');
  const b = (await warning.boundingBox())!;
  expect(b.y + b.height).toBeLessThanOrEqual(720);
  expect(await warning.evaluate((e) => parseFloat(getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(16);
  // The maple panel is not a bare box: it says why the occupied tree is empty.
  await expect(empty).toBeVisible();
  await expect(empty).toContainText('occupied tree is empty');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: 'test-results/maple-rfc-s5-lecture-1280x720.png' });
  // A micro-step earlier the check has not run: no WARNING yet.
  await page.locator('[data-widget="player"] button[data-action="prev"]').click();
  await expect(page.locator('#app')).toHaveAttribute('data-frame', '0');
  await expect(warning).toBeHidden();
  expect(app.problems).toEqual([]);
});
