// A `maple-rfc` trace in the page (issues 12, 14, 15): the era keeps no free tree, so the state
// carries its occupied maple tree and the page draws it with the maple view. The drawn nodes
// equal the core's own `dump` of that tree (printed by MapleTree::dump, a path independent of
// the snapshot the view draws), node by node.
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';

interface DumpNode {
  depth: string;
  type: string;
  min: string;
  max: string;
  slots: string;
}

function lastDump(output: string): DumpNode[] {
  const blocks = output.split('dump height=');
  expect(blocks.length).toBeGreaterThan(1);
  return blocks[blocks.length - 1]
    .split('\n')
    .filter((l) => l.startsWith('node '))
    .map((l) => {
      const [head, slots] = l.split(' | ');
      const w = head.split(' ');
      return { depth: w[1], type: w[2], min: w[3].slice(4), max: w[4].slice(4), slots: slots.trim() };
    });
}

async function drawnNodes(page: Page): Promise<DumpNode[]> {
  return page.locator('[data-widget="maple-tree"] [data-maple-depth]').evaluateAll((els) =>
    els.map((e) => ({
      depth: e.getAttribute('data-maple-depth') ?? '',
      type: e.getAttribute('data-maple-type') ?? '',
      min: e.getAttribute('data-maple-min') ?? '',
      max: e.getAttribute('data-maple-max') ?? '',
      slots: e.getAttribute('data-maple-slots') ?? '',
    })),
  );
}

const byPlace = (a: DumpNode, b: DumpNode) => Number(a.depth) - Number(b.depth) || (BigInt(a.min) < BigInt(b.min) ? -1 : 1);

/** 60 one-page vmallocs with the bump overlay off, every third freed, purged, then a dump. */
function trace(): string {
  const lines = ['profile maple-rfc', 'bump off'];
  const addrs: string[] = [];
  let a = 0xffffc90000000000n;
  for (let i = 0; i < 60; i++) {
    lines.push('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
    addrs.push(`0x${a.toString(16)}`);
    a += 0x2000n;
  }
  addrs.forEach((x, i) => {
    if (i % 3 === 1) lines.push(`free ${x}`);
  });
  lines.push('dump');
  return lines.join('\n');
}

test('a maple-rfc trace draws its occupied maple tree, node for node as the core dumps it', async ({ page }) => {
  test.setTimeout(60_000);
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(trace())}&step=end`);
  await expect(page.locator('[data-widget="maple-tree"] svg')).toBeVisible({ timeout: 20_000 });
  await expect(page.locator('#tree-title')).toHaveText(/Occupied tree/);
  await expect(page.locator('[data-widget="free-tree"]')).toBeHidden();
  const output = await page.evaluate(() => window.vmapviz?.app.core?.output() ?? '');
  const want = lastDump(output);
  // The allocations split the root leaf: the dump has more than one node.
  expect(want.length).toBeGreaterThan(1);
  await expect.poll(async () => (await drawnNodes(page)).length, { timeout: 10_000 }).toBe(want.length);
  expect((await drawnNodes(page)).sort(byPlace)).toEqual([...want].sort(byPlace));
});

test('a free-tree profile keeps the free tree view', async ({ page }) => {
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent('profile linux-6.9\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff')}&step=end`);
  await expect(page.locator('[data-widget="free-tree"]')).toBeVisible();
  await expect(page.locator('#tree-title')).toHaveText('Free tree');
});
