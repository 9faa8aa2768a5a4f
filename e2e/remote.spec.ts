// A presenter remote in lecture mode: PageDown/PageUp (↓/↑ on some remotes) step micro-steps like
// →/←, Shift for a whole operation; b or . blanks the screen. And "Copy permalink" keeps the
// micro-step shown, so a slide's link opens on the same picture.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { PlayerWidget } from './pages/player';
import { Workbench } from './panels/workbench';

const A = (s: string) => `alloc ${s} 0x1 0xffffc90000000000 0xffffe8ffffffffff`;
const TRACE = [A('0x2000'), A('0x3000'), A('0x2000'), 'free 0xffffc90000002000', A('0x2000')].join('\n');

test('in lecture mode a remote steps with PageDown/PageUp and ↓/↑, and blanks the screen with b or .', async ({ page }) => {
  const app = new AppPage(page);
  const player = new PlayerWidget(page);
  await app.open(`./#trace=${encodeURIComponent(TRACE)}&step=0&lecture=1`);
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  const at = async (op: number, frame: number) => expect.poll(() => player.position()).toEqual({ op, frame });
  await at(0, -1);
  await page.keyboard.press('PageDown');
  await at(0, 0);
  await page.keyboard.press('PageDown');
  await at(0, 1);
  await page.keyboard.press('ArrowDown');
  await at(0, 2);
  await page.keyboard.press('PageUp');
  await at(0, 1);
  await page.keyboard.press('ArrowUp');
  await at(0, 0);
  // The same position → would reach.
  await page.keyboard.press('ArrowRight');
  await at(0, 1);
  await page.keyboard.press('Shift+PageDown');
  const afterOp = await player.position();
  expect(afterOp.op).toBeGreaterThan(0);
  // Blank: b blacks out, a step key brings the picture back without stepping; . does the same as b.
  await page.keyboard.press('b');
  await expect(page.locator('body')).toHaveAttribute('data-blank', 'true');
  await page.keyboard.press('PageDown');
  await expect(page.locator('body')).not.toHaveAttribute('data-blank', 'true');
  await at(afterOp.op, afterOp.frame);
  await page.keyboard.press('.');
  await expect(page.locator('body')).toHaveAttribute('data-blank', 'true');
  await page.keyboard.press('.');
  await expect(page.locator('body')).not.toHaveAttribute('data-blank', 'true');
  expect(app.problems).toEqual([]);
});

test('outside lecture mode PageDown is the page\'s own (scrolls), not a step', async ({ page }) => {
  const app = new AppPage(page);
  const player = new PlayerWidget(page);
  await app.open(`./#trace=${encodeURIComponent(TRACE)}&step=0`);
  await page.keyboard.press('PageDown');
  await page.keyboard.press('b');
  expect(await player.position()).toEqual({ op: 0, frame: -1 });
  await expect(page.locator('body')).not.toHaveAttribute('data-blank', 'true');
});

test('Copy permalink keeps the micro-step: the link opens on the same picture', async ({ page }) => {
  const wb = new Workbench(page);
  const player = new PlayerWidget(page);
  await wb.openTrace(TRACE, 2);
  await page.locator('#app').focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  const pos = await player.position();
  expect(pos.frame).toBeGreaterThanOrEqual(0);
  await wb.tab('io');
  await wb.root.locator('button[data-action="permalink"]').click();
  await expect(wb.permalink).toHaveValue(new RegExp(`&step=${pos.op}&frame=${pos.frame}$`));
  const url = await wb.permalink.inputValue();
  const fresh = await page.context().newPage();
  await fresh.goto(url);
  await expect(fresh.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 30_000 });
  await expect.poll(() => new PlayerWidget(fresh).position()).toEqual(pos);
});
