// Issue 60, item 9: the first open at 1440×900 shows a picture that already shows the idea (the
// default scenario mid-way: busy areas, holes, a free tree of several nodes, a search's fit
// narrated) and a way into the course, on screen without scrolling, in the hall's 16 px; it opens
// the first stop of the first lesson in lecture mode, and is gone there. A phone opens on the
// same picture.
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

/** The picture of the first open: the counts as drawn, and how much of it is on screen. */
async function picture(app: AppPage, w: number, h: number) {
  const nodes = await app.tree.nodes.count();
  const busy = await app.bar.root.locator('g.area[data-state="busy"]').count();
  const free = await app.bar.root.locator('g.area[data-state="free"]').count();
  // Nodes whose box is on screen without scrolling.
  const seen = await app.tree.nodes.evaluateAll(
    (gs, [vw, vh]) => gs.filter((g) => { const r = g.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= vw && r.top >= 0 && r.bottom <= vh; }).length,
    [w, h],
  );
  return { nodes, busy, free, seen };
}

test('the first open shows the default scenario mid-way: busy areas, a free tree of several nodes, a fit narrated', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./');
  // Not the empty bar at the start: an operation part-way through, its micro-step narrated.
  expect(await app.step()).toBeGreaterThan(0);
  expect(Number(await page.locator('#app').getAttribute('data-frame'))).toBeGreaterThanOrEqual(0);
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'fit');
  await expect(app.narration.text).toContainText(/fit|left edge/i);
  const p = await picture(app, 1440, 900);
  expect(p.nodes).toBeGreaterThanOrEqual(4);
  expect(p.seen).toBe(p.nodes);
  expect(p.busy).toBeGreaterThanOrEqual(4);
  expect(p.free).toBeGreaterThanOrEqual(3);
  // The way into the course stays.
  await expect(page.getByRole('link', { name: /Start the course/ })).toBeVisible();
  expect(app.problems).toEqual([]);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  test('the first open shows the same picture: busy areas and the tree on screen', async ({ page }) => {
    const app = new AppPage(page);
    await app.open('./');
    expect(await app.step()).toBeGreaterThan(0);
    const p = await picture(app, 390, 844);
    expect(p.nodes).toBeGreaterThanOrEqual(4);
    expect(p.seen).toBe(p.nodes);
    expect(p.busy).toBeGreaterThanOrEqual(4);
    expect(app.problems).toEqual([]);
  });
});
