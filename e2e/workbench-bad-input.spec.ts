// Bad input: every import is all or nothing. A malformed line, an unknown command, a number
// that overflows u64, a request the kernel would crash on, a truncated JSON, a binary file, a
// 50 MB paste, an unknown ftrace event, a bad link: each gives a message naming the line and
// the problem, and what the page showed before is kept.
import { createRequire } from 'node:module';
import { expect, test } from '@playwright/test';
import { Workbench } from './panels/workbench';

// lz-string is CommonJS: Node's ESM loader does not see its named exports.
const { compressToEncodedURIComponent } = createRequire(import.meta.url)('lz-string') as typeof import('lz-string');

const VSTART = '0xffffc90000000000';
const VEND = '0xffffe8ffffffffff';
const A = (size: string, align = '0x1') => `alloc ${size} ${align} ${VSTART} ${VEND}`;
const BEFORE = ['profile linux-5.2', A('0x2000'), A('0x3000'), `vfree ${VSTART}`].join('\n');

/** Open a known trace, run `bad`, and check the error names `line` and says `problem`, with nothing changed. */
async function refused(wb: Workbench, bad: () => Promise<void>, line: number, problem: RegExp): Promise<void> {
  await wb.openTrace(BEFORE, 2);
  const before = await wb.fingerprint();
  expect(before.ops).toHaveLength(4);
  await bad();
  await expect(wb.importError).toBeVisible();
  await expect(wb.importError).toContainText(`line ${line}`);
  await expect(wb.importError).toContainText(problem);
  await expect(wb.importStatus).toContainText('Nothing changed');
  expect(await wb.fingerprint()).toEqual(before);
}

test('a malformed line (missing arguments) is refused with its line', async ({ page }) => {
  const wb = new Workbench(page);
  await refused(wb, () => wb.importText(`# header\n${A('0x2000')}\nalloc 0x2000 0x1\n`), 3, /`alloc` takes 4 arguments, got 2/);
});

test('an unknown command is refused with its line', async ({ page }) => {
  const wb = new Workbench(page);
  await refused(wb, () => wb.importText(`${A('0x2000')}\nfrobnicate 0x1000\n`), 2, /unknown command `frobnicate`/);
});

test('a number that overflows u64 is refused', async ({ page }) => {
  const wb = new Workbench(page);
  await refused(wb, () => wb.importText(`alloc 0x10000000000000000 0x1 ${VSTART} ${VEND}\n`), 1, /does not fit in 64 bits/);
});

test('size 0 in linux-5.2 (a kernel BUG_ON) is refused at its line, after the lines before it replayed', async ({ page }) => {
  const wb = new Workbench(page);
  await refused(wb, () => wb.importText(`profile linux-5.2\n${A('0x2000')}\n${A('0x0')}\n`), 3, /size is 0.*BUG_ON/);
});

test('an alignment that is not a power of two is refused', async ({ page }) => {
  const wb = new Workbench(page);
  await refused(wb, () => wb.importText(`${A('0x2000')}\n${A('0x2000', '0x3000')}\n`), 2, /not a power of two/);
});

test('a truncated JSON trace is refused with the line where it stops', async ({ page }) => {
  const wb = new Workbench(page);
  const json = `{"profile": "linux-6.1", "ops": [\n  {"op":"alloc","size":"0x2000","align":"0x1","vstart":"${VSTART}","vend":"${VEND}"},\n  {"op":"vfree","addr":`;
  await refused(wb, () => wb.importText(json), 3, /truncated JSON/);
});

test('a JSON trace whose operation the kernel would crash on names the operation', async ({ page }) => {
  const wb = new Workbench(page);
  const json = JSON.stringify({ ops: [{ op: 'alloc', size: '0x2000', align: '0x1', vstart: VSTART, vend: VEND }, { op: 'alloc', size: '0x0', align: '0x1', vstart: VSTART, vend: VEND }] });
  await refused(wb, () => wb.importText(json), 2, /operation 2 of the trace converted from json.*size is 0/);
});

test('a binary file (NUL bytes) is refused', async ({ page }) => {
  const wb = new Workbench(page);
  const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(64)]);
  await refused(wb, () => wb.importFile('vmlinux.o', elf), 1, /binary data/);
  await expect(wb.importError).toContainText('vmlinux.o');
});

test('a file that is not UTF-8 text is refused with the line of the first bad byte', async ({ page }) => {
  const wb = new Workbench(page);
  const latin1 = Buffer.concat([Buffer.from(`${A('0x2000')}\n# caf`), Buffer.from([0xe9]), Buffer.from('\n')]);
  await refused(wb, () => wb.importFile('latin1.trace', latin1), 2, /not UTF-8/);
});

test('a 50 MB paste is refused above the paste limit, naming the line where it is crossed', async ({ page }) => {
  const wb = new Workbench(page);
  await refused(
    wb,
    async () => {
      await wb.tab('io');
      await wb.paste.evaluate((ta) => {
        const line = 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n'; // 55 bytes
        const dt = new DataTransfer();
        dt.setData('text/plain', line.repeat(50_000_000 / line.length));
        ta.focus();
        ta.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      });
    },
    // 4 MiB / 55 bytes a line: crossed on line 76,261
    Math.floor((4 << 20) / 55) + 1,
    /paste limit of 4\.0 MiB/,
  );
  await expect(wb.importError).toContainText('48 MiB');
  await expect(wb.paste).toHaveValue('');
});

test('an ftrace line of an unknown event is refused with its line', async ({ page }) => {
  const wb = new Workbench(page);
  const ft = [
    '# tracer: nop',
    '#',
    '         vmalloc_test/0-412     [003] .....    98.123456: alloc_vmap_area: va_start: 18446683600570023936 size=8192 align=1 vstart=0xffffc90000000000 vend=0xffffe8ffffffffff failed=0',
    '         vmalloc_test/0-412     [003] .....    98.123460: kmalloc: call_site=foo+0x1/0x2 ptr=0xffff888100000000 bytes_req=64',
  ].join('\n');
  await refused(wb, () => wb.importText(ft), 4, /unknown ftrace event `kmalloc`/);
});

test('a /proc/vmallocinfo line whose range and size disagree is refused', async ({ page }) => {
  const wb = new Workbench(page);
  await refused(wb, () => wb.importText(`${VSTART}-0xffffc90000010000    8192 foo+0x1/0x2 pages=1 vmalloc\n`), 1, /size column says 8192/);
});

test("a profile line that contradicts the import's Profile choice is refused at its line", async ({ page }) => {
  const wb = new Workbench(page);
  const choose = (p: string) => wb.root.getByLabel('Profile for the import').selectOption(p);
  const says = /the trace says `profile linux-5\.2` but profile linux-6\.1 was given: drop one of them/;
  await refused(wb, async () => {
    await wb.tab('io');
    await choose('linux-6.1');
    await wb.importText(`profile linux-5.2\n${A('0x2000')}`);
  }, 1, says);
  await refused(wb, async () => {
    await wb.tab('io');
    await choose('linux-6.1');
    await wb.importFile('key.json', `{"ops": [{"op": "dump"}],\n "profile": "linux-5.2"}`);
  }, 2, says);
  // The same profile as the choice: opens.
  await choose('linux-5.2');
  await wb.importText(`profile linux-5.2\n${A('0x5000')}`);
  await expect(wb.importError).toBeHidden();
  expect((await wb.fingerprint()).ops).toEqual(['profile linux-5.2', A('0x5000')]);
  expect(wb.problems).toEqual([]);
});

test('an empty paste is refused and changes nothing', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.openTrace(BEFORE);
  const before = await wb.fingerprint();
  await wb.tab('io');
  await wb.paste.fill('   \n');
  await wb.root.locator('button[data-action="import-paste"]').click();
  await expect(wb.importError).toContainText('the box is empty');
  expect(await wb.fingerprint()).toEqual(before);
});

test('a #trace= link with a bad line names it and opens the default scenario', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open(`./#trace=${encodeURIComponent(`${A('0x2000')}\nalloc 0x2000 0x1 zz ${VEND}\n`)}&step=end`);
  const banner = page.getByTestId('load-error');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('line 2');
  await expect(banner).toContainText('`zz` is not a number');
  await expect(wb.mainOps()).toHaveCount(13);
});

test('a #z= link with a bad line names it; a damaged one says so', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open(`./#z=${compressToEncodedURIComponent(`${A('0x2000')}\n${A('0x0')}\n`)}&step=end`);
  await expect(page.getByTestId('load-error')).toContainText('line 2');
  await expect(page.getByTestId('load-error')).toContainText('size is 0');
  await expect(wb.mainOps()).toHaveCount(13);

  const other = new Workbench(await page.context().newPage());
  await other.open('./#z=%%%garbage%%%&step=1');
  await expect(other.page.getByText(/damaged/).first()).toBeVisible();
  await expect(other.mainOps()).toHaveCount(13);
});

test('workload knobs the core refuses are reported and change nothing', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.openTrace(BEFORE);
  const before = await wb.fingerprint();
  await wb.workload('long_busy_list_alloc_test');
  await wb.knob('keep').fill('2000000');
  await wb.generate();
  await expect(wb.workloadStatus).toHaveClass(/error/);
  await expect(wb.workloadStatus).toContainText('keep 2000000 is too large');
  expect(await wb.fingerprint()).toEqual(before);
});
