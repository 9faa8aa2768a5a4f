// axe-core in every mode of the page: default, a lesson stop, lecture mode, a question before and
// after its reveal, the workbench, the presenter view, an embed, and a phone. No violation of any
// impact is allowed.
import { expect, test } from '@playwright/test';
import { axeViolations } from './support/axe';
import { AppPage } from './pages/app';
import { Workbench } from './panels/workbench';

const MODES: [string, string][] = [
  ['the default page', './'],
  ['a lesson stop', './#lesson=free-tree&stop=5'],
  ['lecture mode', './#lesson=free-tree&stop=5&lecture=1'],
  ['a question in lecture mode', './#lesson=free-tree&stop=3&lecture=1'],
  ['the maple lesson in lecture mode', './#lesson=maple&stop=2&lecture=1'],
  ['an embed', './#lesson=free-tree&stop=5&embed=1'],
];

for (const [what, url] of MODES) {
  test(`axe: ${what}`, async ({ page }) => {
    const app = new AppPage(page);
    await app.open(url);
    expect(await axeViolations(page)).toEqual([]);
  });
}

test('axe: a question after its reveal', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=free-tree&stop=3&lecture=1');
  const reveal = page.locator('[data-widget="lesson"] button', { hasText: /reveal/i }).first();
  if (await reveal.count()) await reveal.click();
  expect(await axeViolations(page)).toEqual([]);
});

test('axe: the workbench', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  expect(await axeViolations(page)).toEqual([]);
});

test('axe: the presenter view', async ({ page, context }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=free-tree&stop=3');
  const card = page.locator('[data-widget="lesson"]');
  const [p] = await Promise.all([context.waitForEvent('page'), card.locator('button[data-action="lesson-presenter"]').click()]);
  await p.waitForLoadState();
  await expect(p.getByTestId('p-title')).not.toBeEmpty();
  expect(await axeViolations(p)).toEqual([]);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 3 });
  test('axe: a lesson stop at 390×844', async ({ page }) => {
    const app = new AppPage(page);
    await app.open('./#lesson=free-tree&stop=5');
    expect(await axeViolations(page)).toEqual([]);
  });
});

test('axe: lecture mode with its legend shown (G)', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const app = new AppPage(page);
  await app.open('./#lesson=maple&stop=5&lecture=1');
  await page.keyboard.press('g');
  await expect(page.getByTestId('lecture-legend')).toBeVisible();
  if (process.env.AXE_SHOTS) await page.screenshot({ path: `${process.env.AXE_SHOTS}/lecture-legend.png` });
  expect(await axeViolations(page)).toEqual([]);
});
