// Issue 33: the import tab's report is about the trace shown. After a failed import it no longer
// sits beside the error (it was the previous file's), and after an Undo (the trace before the
// import back) it goes.
import { expect, test } from '@playwright/test';
import { Workbench } from './panels/workbench';

const VSTART = '0xffffc90000000000';
const INFO = [
  `${VSTART}-0xffffc90000005000   20480 acpi_os_map_iomem+0x1ab/0x1e0 phys=0x00000000bffe0000 ioremap`,
  '0xffffc90000005000-0xffffc90000007000    8192 foo+0x1/0x2 pages=1 vmalloc',
].join('\n');

test('a failed import hides the previous file\'s report', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.importFile('first.vmallocinfo', INFO);
  await expect(wb.report).toBeVisible();
  await expect(wb.report).toHaveAttribute('data-format', 'vmallocinfo');
  // A file that is no trace: the error, and no report of first.vmallocinfo beside it.
  await wb.importFile('second.txt', 'this is not a trace at all\n');
  await expect(wb.importError).toBeVisible();
  await expect(wb.importError).toContainText('second.txt');
  await expect(wb.report).toBeHidden();
  expect(wb.problems).toEqual([]);
});

test('Undo of an import hides its report', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.importFile('first.vmallocinfo', INFO);
  await expect(wb.report).toBeVisible();
  const toast = page.getByTestId('undo-toast');
  await expect(toast).toBeVisible();
  await toast.getByRole('button', { name: 'Undo' }).click();
  // The default scenario is back: the report of the file no longer shown goes.
  await expect(wb.mainOps().first()).not.toContainText('0xffffc90000005000');
  await expect(wb.report).toBeHidden();
  expect(wb.problems).toEqual([]);
});
