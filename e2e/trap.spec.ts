// A wasm trap never leaves a blank page (web/src/trap.ts): the page makes a new instance (a reload
// on the link of what it showed), keeps the trace shown before and says what happened; a trap
// again falls back to the default scenario, and a third stops trying rather than reload for ever.
import { expect, type Page, test } from '@playwright/test';
import { AppPage } from './pages/app';

const TRACE = [
  'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
  'alloc 0x3000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
  'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
  'free 0xffffc90000002000',
  'alloc 0x1000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
].join('\n');

/** Make the core trap in a task of its own, as a bug hit from a click or a timer would. */
async function trap(page: Page): Promise<void> {
  await page.evaluate(() => {
    setTimeout(() => window.vmapviz?.trap(), 0);
  });
}

const ops = (page: Page) => page.locator('[data-widget="ops"] ol.ops > li code.text').allTextContents();

test('a trap restarts the core on the trace shown before, says so, and the page works on', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(TRACE)}&step=3`);
  const before = await ops(page);
  expect(before).toHaveLength(5);
  await expect(page.locator('#app')).toHaveAttribute('data-step', '3');

  await Promise.all([page.waitForEvent('load'), trap(page)]);
  await app.waitReady();
  const note = page.getByTestId('trap-note');
  await expect(note).toContainText('The core stopped (a WebAssembly trap: unreachable');
  await expect(note).toContainText('The trace shown before is back.');
  expect(await ops(page)).toEqual(before);
  await expect(page.locator('#app')).toHaveAttribute('data-step', '3');
  // A new instance: the core answers again.
  await page.keyboard.press('Shift+ArrowRight');
  await expect(page.locator('#app')).toHaveAttribute('data-step', '4');
  // The note is said once: a later reload by the user does not repeat it.
  await page.reload();
  await app.waitReady();
  await expect(page.getByTestId('trap-note')).toHaveCount(0);
});

test('a trap again falls back to the default scenario, and a third stops trying instead of reloading for ever', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(TRACE)}&step=2`);
  await Promise.all([page.waitForEvent('load'), trap(page)]);
  await app.waitReady();
  await expect(page.getByTestId('trap-note')).toContainText('The trace shown before is back.');

  await Promise.all([page.waitForEvent('load'), trap(page)]);
  await app.waitReady();
  await expect(page.getByTestId('trap-note')).toContainText('Showing the default scenario.');
  expect(await ops(page)).not.toEqual(TRACE.split('\n'));

  // Third time: no reload (a mark set on this document survives), the note asks for one.
  await page.evaluate(() => ((window as unknown as { mark: number }).mark = 7));
  await trap(page);
  await expect(page.getByTestId('trap-note')).toContainText('The core stopped again');
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(7);
});
