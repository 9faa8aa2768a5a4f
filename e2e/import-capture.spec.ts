// A real-looking /proc/vmallocinfo through the page's import panel (issue 16): thousands of lines
// with hashed pointers (kptr_restrict: an end can be below its start), thousands of
// `unpurged vm_area` lines and every form s_show prints. The page opens it, the report says what
// was assumed, and the header counts the busy and lazy areas of the replay.
import { expect, test } from '@playwright/test';
import { StatsWidget } from './pages/stats';
import { Workbench } from './panels/workbench';

/** Every form s_show prints after the range and the size ({p}: pages, {h}: half of them). */
const FORMS: [string, string][] = [
  ['kernel_clone+0xb8/0x400', ' pages={p} vmalloc N0={p}'],
  ['alloc_large_system_hash+0x1b1/0x2b0', ' pages={p} vmalloc vpages N0={h} N1={h}'],
  ['acpi_os_map_iomem+0x1bc/0x1e0', ' phys=0x00000000000a0000 ioremap'],
  ['irq_init_percpu_irqstack+0xed/0x120', ' vmap'],
  ['', 'vm_map_ram'],
  ['xfs_buf_alloc+0x12/0x40 [xfs]', ' pages={p} vmalloc N0={p}'],
  ['vmalloc_user+0x1c/0x30', ' pages={p} vmalloc user N0={p}'],
  ['dma_common_contiguous_remap+0x60/0x90', ' vmap dma-coherent'],
  ['pcpu_get_vm_areas+0x0/0x1050', ' vmalloc'],
  ['0xffffffffc0a1b2c3', ' pages={p} vmalloc N0={p}'],
  ['xen_remap+0x10/0x20', ' phys=0x00000000fee00000 ioremap xen'],
  ['bpf_arena_alloc+0x1/0x2', ' sparse'],
];

/** A deterministic 32-bit generator (xorshift32): the same capture on every run. */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

function capture(busy: number, lazy: number): { text: string; lazyPages: number } {
  const next = rng(0x9e3779b9);
  const hash = () => `0x${next().toString(16).padStart(16, '0')}`;
  const lines: string[] = [];
  let lazyPages = 0;
  let prevEnd = hash();
  for (let i = 0; i < busy + lazy; i++) {
    const pages = 1 + (next() % 16);
    const size = (pages + 1) * 4096;
    const start = next() % 2 ? prevEnd : hash();
    const end = hash();
    prevEnd = end;
    let rest: string;
    if (i < busy) {
      const [caller, form] = FORMS[i % FORMS.length];
      rest = caller + form.replaceAll('{p}', String(pages)).replaceAll('{h}', String(pages >> 1));
    } else {
      rest = 'unpurged vm_area';
      lazyPages += pages + 1;
    }
    lines.push(`${start}-${end} ${String(size).padStart(7)} ${rest}`);
  }
  return { text: lines.join('\n') + '\n', lazyPages };
}

test('import: a /proc/vmallocinfo of 5,000 lines with hashed pointers and 2,000 lazily freed areas opens in the page', async ({ page }) => {
  test.setTimeout(90_000);
  const { text, lazyPages } = capture(3000, 2000);
  // One CPU's lazy_max_pages() is 8192 pages, four CPUs' 3 * 8192.
  expect(lazyPages).toBeGreaterThan(2 * 8192);
  expect(lazyPages).toBeLessThanOrEqual(3 * 8192);
  const wb = new Workbench(page);
  await wb.open();
  await wb.importFile('vmallocinfo', text, 'vmallocinfo');
  await expect(wb.importError).toBeHidden();
  await expect(wb.importStatus).toContainText('opened in the main view');
  await expect(wb.report).toHaveAttribute('data-format', 'vmallocinfo');
  await expect(wb.report).toHaveAttribute('data-mapped', '5000');
  await expect(wb.report).toHaveAttribute('data-skipped', '0');
  // What was assumed: the layout from VMALLOC_START, and the CPU count that keeps the lazy areas lazy.
  const notes = wb.report.locator('.wb-report-notes');
  await expect(notes).toContainText('the addresses are hashed');
  await expect(notes).toContainText('laid out one after the other from VMALLOC_START');
  await expect(notes).toContainText('cpus 4 assumed');
  await expect(notes).toContainText('3000 busy');
  await expect(notes).toContainText('2000 lazily freed');
  // The page shows the state after the last operation: 3,000 busy and 2,000 lazy areas.
  const end = page.locator('[data-widget="player"] button[data-action="last"]');
  if (await end.isEnabled()) await end.click();
  const stats = new StatsWidget(page);
  await expect(stats.value('cpus')).toHaveText('4');
  await expect(stats.value('busy')).toHaveText('3000');
  await expect(stats.value('lazy')).toHaveText('2000');
  await expect(stats.value('lazy-pages')).toHaveText(`${lazyPages} / ${3 * 8192}`);
  // The bar draws them (runs of small areas as clusters): every area is counted there.
  const counted = await page.locator('[data-widget="space-bar"] g.area').evaluateAll((gs) =>
    gs.reduce((n, g) => {
      const c = g.getAttribute('data-count');
      const s = g.getAttribute('data-state');
      return n + (c ? Number(c) : s === 'busy' || s === 'lazy' ? 1 : 0);
    }, 0),
  );
  expect(counted).toBe(5000);
  expect(wb.problems).toEqual([]);
});
