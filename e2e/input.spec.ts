// Issue 16, "input that must not hurt": an empty or comment-only import, or one that gives no
// operation, is refused like an empty paste; every replacing action can be undone; the three inputs (the allocate form, the
// free form, "Add an operation") accept and refuse the same lines, by the core's rule; a
// one-line field's error says "this line"; a long error wraps instead of widening the page.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { Workbench } from './panels/workbench';

const WINDOW = '0xffffc90000000000 0xffffe8ffffffffff';
const A = (size: string) => `alloc ${size} 0x1 ${WINDOW}`;
const MINE = [A('0x2000'), A('0x3000'), A('0x2000'), 'vfree 0xffffc90000002000'].join('\n');

test('an empty or comment-only file is refused and changes nothing', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.openTrace(MINE, 2);
  const before = await wb.fingerprint();
  for (const [name, content, why] of [
    ['empty.trace', '', 'is empty'],
    ['blank.trace', '\n  \n\n', 'is empty'],
    ['comments.trace', '# only a comment\n# and another\n', 'holds only comments'],
  ] as const) {
    await wb.importFile(name, content);
    await expect(wb.importError).toBeVisible();
    await expect(wb.importError).toContainText(`${name}: nothing to import: the file ${why}`);
    expect(await wb.fingerprint()).toEqual(before);
  }
  await expect(page.getByTestId('undo-toast')).toBeHidden();
  // A comment-only paste too.
  await wb.importText('# nothing here\n');
  await expect(wb.importError).toContainText('only comments');
  expect(await wb.fingerprint()).toEqual(before);
  expect(wb.problems).toEqual([]);
});

test('an import that gives no operation is refused like an empty one, in every format, pasted or as a file', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.openTrace(MINE, 2);
  const before = await wb.fingerprint();
  const hashBefore = new URL(page.url()).hash;
  const unmatchedFree = '          <idle>-0     [000] .....    98.123456: free_vmap_area_noflush: va_start=12345 nr_lazy=0 nr_lazy_max=8192';
  const check = async (what: string, says: RegExp) => {
    await expect(wb.importError).toBeVisible();
    await expect(wb.importError).toContainText(`${what}: nothing to import: `);
    await expect(wb.importError).toContainText(says);
    await expect(wb.importStatus).toContainText('Nothing changed');
    expect(await wb.fingerprint()).toEqual(before);
    expect(new URL(page.url()).hash).toBe(hashBefore);
  };
  await wb.importText('{"ops":[]}', 'json');
  await check('pasted text', /JSON trace gives no operation\.$/);
  await wb.importText('{"ops": []}');
  await check('pasted text', /JSON trace gives no operation/);
  await wb.importText(unmatchedFree, 'ftrace');
  await check('pasted text', /ftrace capture gives no operation \(1 line left out; line 1: /);
  await wb.importFile('empty.json', '{"ops":[]}\n');
  await check('empty.json', /JSON trace gives no operation/);
  await wb.importFile('free.txt', `# tracer: nop\n${unmatchedFree}\n`);
  await check('free.txt', /ftrace capture gives no operation \(1 line left out; line 2: /);
  // A profile chosen for the import is not an operation either.
  await wb.root.getByLabel('Profile for the import').selectOption('linux-6.1');
  await wb.importText('{"ops":[]}');
  await check('pasted text', /JSON trace gives no operation/);
  await wb.importText('profile linux-6.1\n# nothing else\n', 'trace');
  await check('pasted text', /trace gives no operation/);
  // Nor are the settings an import adds (here `cpus 1`, from the capture's CPU column).
  await wb.importText(unmatchedFree, 'ftrace');
  await check('pasted text', /ftrace capture gives no operation/);
  await wb.importText('cpus 2\nbump off\n', 'trace');
  await check('pasted text', /trace gives no operation/);
  await wb.root.getByLabel('Profile for the import').selectOption('');
  await wb.importFile('profile.trace', 'profile linux-6.1\n');
  await check('profile.trace', /trace gives no operation/);
  await expect(page.getByTestId('undo-toast')).toBeHidden();
  expect(wb.problems).toEqual([]);
});

test('an import that replaces the trace can be undone: the previous trace at its step', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.openTrace(MINE, 2);
  const before = await wb.fingerprint();
  const hashBefore = new URL(page.url()).hash;
  await wb.importFile('other.trace', [A('0x5000'), 'purge'].join('\n'));
  await expect(wb.importError).toBeHidden();
  expect(await wb.mainOps().count()).toBe(2);
  const toast = page.getByTestId('undo-toast');
  await expect(toast).toBeVisible();
  await expect(toast).toContainText('in place of yours (4)');
  await toast.getByRole('button', { name: 'Undo' }).click();
  await expect(toast).toBeHidden();
  expect(await wb.fingerprint()).toEqual(before);
  expect(new URL(page.url()).hash).toBe(hashBefore);

  // A teaching scenario opened over the trace: undoable the same way.
  await wb.tab('workloads');
  const first = wb.workloadList.locator('button[data-workload]').first();
  await first.click();
  await wb.generate();
  await expect(toast).toBeVisible();
  await toast.getByRole('button', { name: 'Undo' }).click();
  expect(await wb.fingerprint()).toEqual(before);
  expect(wb.problems).toEqual([]);
});

test('"Add an operation" accepts and refuses what the forms do (the core decides), and says "this line"', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  // The default scenario opens mid-way: its lazy area exists at the end.
  await page.keyboard.press('End');
  const { ops, forms } = app;
  const n = await ops.ops.count();
  // free of an address no busy area starts at: refused by all three.
  await ops.push('free 0x1234');
  await expect(ops.pushError).toBeVisible();
  await expect(ops.pushError).toHaveText(/^this line: No busy area starts at 0x1234/);
  await forms.freeAt('0x1234');
  await expect(forms.freeError).toContainText('No busy area starts at 0x1234');
  // An empty window.
  await ops.push('alloc 0x2000 0x1 0xffffe8ffffffffff 0xffffc90000000000');
  await expect(ops.pushError).toHaveText(/^this line: the window is empty: vstart 0xffffe8ffffffffff must be below vend 0xffffc90000000000/);
  await forms.allocate({ size: '4K', vstart: '0xffffe8ffffffffff', vend: '0xffffc90000000000' });
  await expect(forms.allocError).toContainText('the window is empty');
  // A double free (the default scenario vfrees 0xffffc90000005000... whichever is lazy at the end).
  const lazy = await app.bar.root.locator('g.area[data-state="lazy"]').first().getAttribute('data-va-start');
  expect(lazy).toBeTruthy();
  await ops.push(`free ${lazy}`);
  await expect(ops.pushError).toContainText('already freed lazily');
  await forms.freeAt(lazy ?? '');
  await expect(forms.freeError).toContainText('already freed lazily');
  // A syntax error names "this line", not a line of the trace.
  await ops.push('alloc 0x2000 0x1 zz 0x10');
  await expect(ops.pushError).toHaveText(/^this line: /);
  await expect(ops.ops).toHaveCount(n);
  // What the forms accept, the field accepts.
  await forms.allocate({ size: '4K', vstart: '0xffffc90000000000', vend: '0xffffe8ffffffffff' });
  await expect(forms.allocError).toBeHidden();
  await expect(ops.ops).toHaveCount(n + 1);
  await ops.push(A('0x2000'));
  await expect(ops.pushError).toBeHidden();
  await expect(ops.ops).toHaveCount(n + 2);
  expect(app.problems).toEqual([]);
});

test('a very long bad token: the message wraps, the page does not widen', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await app.ops.push(`alloc 0x2000 0x1 ${'9'.repeat(10_000)}zz 0x10`);
  await expect(app.ops.pushError).toBeVisible();
  const w = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(w).toBeLessThanOrEqual(1440);
  const box = await app.ops.pushError.boundingBox();
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(1440);
  expect(app.problems).toEqual([]);
});
