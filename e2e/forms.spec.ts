// Operation input: the allocate form (vmalloc()'s defaults), the free form, a click on a busy
// area; bad input gets an inline message and changes nothing.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test('allocate with the defaults of vmalloc(): the size in pages plus a guard page, in the vmalloc window', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  const { forms, ops } = app;
  await expect(forms.field('align')).toHaveValue('0x1');
  await expect(forms.field('vstart')).toHaveValue('0xffffc90000000000');
  await expect(forms.field('vend')).toHaveValue('0xffffe8ffffffffff');
  await forms.field('size').fill('5000');
  await expect(forms.preview).toContainText('vmalloc(5000): 2 pages + a guard page = 0x3000');
  await forms.allocate({});
  await expect(forms.allocError).toBeHidden();
  await expect(ops.ops).toHaveCount(14);
  await expect(ops.op(13)).toContainText('alloc 0x3000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
  // Start paused: the player waits before the new operation; stepping through it allocates.
  await expect(app.player.stepLabel).toHaveText('13 / 14 done');
  await page.keyboard.press('Shift+ArrowRight');
  await expect(ops.op(13)).toContainText('alloc -> 0x');
  await expect(app.bar.area('busy')).toHaveCount(6);
  expect(app.problems).toEqual([]);
});

test('bad input gets a clear inline message and changes nothing', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  const { forms, ops } = app;
  const url = page.url();
  const opened = (await app.player.stepLabel.textContent()) ?? '';

  await forms.allocate({ size: 'lots' });
  await expect(forms.allocError).toBeVisible();
  await expect(forms.allocError).toHaveText('size: "lots" is not a number (write 4096, 0x1000 or 4K)');
  await expect(ops.ops).toHaveCount(13);

  await forms.allocate({ size: '4K', align: '0x3' });
  await expect(forms.allocError).toContainText('align 0x3 is not a power of two');
  await expect(ops.ops).toHaveCount(13);

  await forms.allocate({ align: '1', vstart: '0xffffe8ffffffffff', vend: '0xffffc90000000000' });
  await expect(forms.allocError).toHaveText(/the window is empty: vstart 0xffffe8ffffffffff must be below vend/);
  await expect(ops.ops).toHaveCount(13);

  await forms.freeAt('0xffffc90000001000');
  await expect(forms.freeError).toContainText('No busy area starts at 0xffffc90000001000');
  await forms.freeAt('here');
  await expect(forms.freeError).toContainText('address: "here" is not a number');
  await forms.freeAt('0xffffc90000005000');
  await expect(forms.freeError).toContainText('already freed lazily');
  await expect(ops.ops).toHaveCount(13);
  // Still where the page opened (mid-scenario).
  await expect(app.player.stepLabel).toHaveText(opened);
  expect(page.url()).toBe(url);
  await forms.root.screenshot({ path: 'test-results/forms-errors.png' });

  // A good free clears the message and is added.
  await forms.freeAt('0xffffc90000000000', 'free');
  await expect(forms.freeError).toBeHidden();
  await expect(ops.op(13)).toContainText('free 0xffffc90000000000');
  expect(app.problems).toEqual([]);
});

test('clicking a busy area offers to free it', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.keyboard.press('End'); // the default scenario opens mid-way
  const busy = app.bar.root.locator('g.area[data-state="busy"][data-va-start="0xffffc90000000000"]');
  await busy.click();
  const pop = app.forms.popover;
  await expect(pop).toBeVisible();
  await expect(pop).toContainText('[0xffffc90000000000, 0xffffc90000002000)');
  await pop.screenshot({ path: 'test-results/free-popover.png' });
  await pop.getByRole('button', { name: 'free (at once)' }).click();
  await expect(pop).toBeHidden();
  await expect(app.ops.ops).toHaveCount(14);
  await expect(app.ops.op(13)).toContainText('free 0xffffc90000000000');
  await page.keyboard.press('Shift+ArrowRight');
  await expect(app.ops.op(13)).toContainText('free 0xffffc90000000000 ok');
  // It merged with the free block below: no busy area starts there any more.
  await expect(app.bar.root.locator('g.area[data-state="busy"][data-va-start="0xffffc90000000000"]')).toHaveCount(0);
  await expect(app.bar.root.locator('g.area[data-state="free"][data-va-end="0xffffc90000002000"]')).toHaveCount(1);

  // In the zoomed view too, and vfree frees lazily.
  const seg = app.zoom.root.locator('g.seg[data-state="busy"]').first();
  const start = await seg.getAttribute('data-va-start');
  await seg.click();
  await expect(pop).toBeVisible();
  await pop.getByRole('button', { name: 'vfree (lazy)' }).click();
  await expect(app.ops.op(14)).toContainText(`vfree ${start}`);
  await page.keyboard.press('End');
  await expect(app.bar.root.locator(`g.area[data-va-start="${start}"]`)).toHaveAttribute('data-state', 'lazy');
  expect(app.problems).toEqual([]);
});
