// Issue 16, "made for a projector" and the keyboard: timeline markers wide enough to see, a
// disabled Play that looks disabled in the dark theme, the help dialog as a real modal dialog,
// focus kept while the workbench loads, the charts' BENCHMARKS.md as a link; and a larger tree
// (200 allocations, about 68 free blocks): R/B markers and ids at every level of detail, Fit
// without cropping, zoom around the focus, the named node in view.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { Workbench } from './panels/workbench';

const WINDOW = '0xffffc90000000000 0xffffe8ffffffffff';
const BASE = 0xffffc90000000000n;

/** 200 two-page allocations, then every third one freed: about 68 free blocks. */
function bigTrace(): string {
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) lines.push(`alloc 0x2000 0x1 ${WINDOW}`);
  for (let i = 0; i < 200; i += 3) lines.push(`free 0x${(BASE + BigInt(i) * 0x2000n).toString(16)}`);
  return lines.join('\n');
}

test('timeline markers are at least 6 px wide in lecture mode', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./?lecture');
  await expect(page.locator('#app[data-markers="ready"]')).toBeAttached({ timeout: 15_000 });
  const widths = await app.player.root.locator('svg.markers rect').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
  expect(widths.length).toBeGreaterThan(0);
  for (const w of widths) expect(w).toBeGreaterThanOrEqual(6);
  const h = await app.player.root.locator('svg.markers rect').first().evaluate((e) => e.getBoundingClientRect().height);
  expect(h).toBeGreaterThanOrEqual(5);
});

test.describe('dark theme', () => {
  test.use({ colorScheme: 'dark' });
  test('a disabled Play button looks like the other disabled buttons, not like an enabled one', async ({ page }) => {
    const app = new AppPage(page);
    await app.open();
    await page.keyboard.press('End');
    await expect(app.player.play).toBeDisabled();
    await expect(app.player.end).toBeDisabled();
    const look = (l: import('@playwright/test').Locator) =>
      l.evaluate((e) => {
        const cs = getComputedStyle(e);
        return { bg: cs.backgroundColor, color: cs.color, opacity: cs.opacity };
      });
    const play = await look(app.player.play);
    expect(play).toEqual(await look(app.player.end));
    await page.keyboard.press('Home');
    await expect(app.player.play).toBeEnabled();
    expect((await look(app.player.play)).bg).not.toEqual(play.bg);
  });
});

test('the help dialog keeps the focus, Esc closes it and gives the focus back', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  // Go to the end of the default scenario (it opens mid-way).
  await page.keyboard.press('End');
  const opener = page.locator('[data-tool="help"]');
  await opener.focus();
  await page.keyboard.press('Enter');
  const help = page.locator('[data-widget="help"]');
  await expect(help).toBeVisible();
  const inside = () => page.evaluate(() => !!document.activeElement?.closest('[data-widget="help"]'));
  expect(await inside()).toBe(true);
  for (const key of ['Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
    await page.keyboard.press(key);
    expect(await inside(), key).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await expect(opener).toBeFocused();
  // The ? key too: the focus goes back where it was.
  await app.player.start.focus();
  await page.keyboard.press('?');
  await expect(help).toBeVisible();
  expect(await inside()).toBe(true);
  await page.keyboard.press('Escape');
  await expect(app.player.start).toBeFocused();
  expect(app.problems).toEqual([]);
});

test('focus stays in the workbench while it loads (Tab into it)', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  const wb = page.locator('[data-widget="workbench"]');
  await expect(wb).toHaveAttribute('data-panels-state', 'idle');
  // Tab from the last field before it, as a keyboard user does.
  await page.locator('[data-widget="ops"] input.push-input').focus();
  let guard = 0;
  while (!(await page.evaluate(() => !!document.activeElement?.closest('[data-widget="workbench"]'))) && guard++ < 20) {
    await page.keyboard.press('Tab');
  }
  // And Tab again at once, while it loads: the focus must not fall out of the page.
  await page.keyboard.press('Tab');
  await expect(wb).toHaveAttribute('data-panels-state', 'ready', { timeout: 15_000 });
  expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
  expect(await page.evaluate(() => !!document.activeElement?.closest('[data-widget="workbench"]'))).toBe(true);
  expect(app.problems).toEqual([]);
});

test('the charts tab links to BENCHMARKS.md', async ({ page }) => {
  const wb = new Workbench(page);
  await wb.open();
  await wb.tab('charts');
  const link = wb.charts.getByRole('link', { name: 'BENCHMARKS.md' });
  await expect(link).toBeVisible();
  const href = await link.evaluate((a) => (a as HTMLAnchorElement).href);
  const res = await page.request.get(href);
  expect(res.status()).toBe(200);
  expect(await res.text()).toContain('#');
});

test.describe('a larger tree (200 allocations, about 68 free blocks)', () => {
  test('Fit shows every node, each with its R/B marker and id, at every level of detail', async ({ page }) => {
    test.setTimeout(90_000);
    const app = new AppPage(page);
    await app.openTrace(bigTrace(), 'end');
    const tree = app.tree.root;
    const n = Number(await tree.getAttribute('data-nodes'));
    expect(n).toBeGreaterThan(60);
    await expect(tree.locator('svg.free-tree-svg')).toHaveClass(/\bcompact\b/);
    await tree.locator('button.fit').click();
    // Fitted without cropping: every node drawn, inside the panel.
    await expect(tree).toHaveAttribute('data-drawn', String(n));
    const svg = await tree.locator('svg.free-tree-svg').boundingBox();
    if (!svg) throw new Error('no svg');
    const boxes = await app.tree.nodes.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
    expect(boxes.length).toBe(n);
    for (const b of boxes) {
      expect(b.x).toBeGreaterThanOrEqual(svg.x - 0.5);
      expect(b.x + b.width).toBeLessThanOrEqual(svg.x + svg.width + 0.5);
      expect(b.y).toBeGreaterThanOrEqual(svg.y - 0.5);
      expect(b.y + b.height).toBeLessThanOrEqual(svg.y + svg.height + 0.5);
    }
    const labels = () =>
      app.tree.nodes.evaluateAll((els) =>
        els.map((e) => {
          const seen = (sel: string) => {
            const t = e.querySelector<SVGTextElement>(sel);
            return !!t && getComputedStyle(t).display !== 'none' && !!t.textContent?.trim() && t.getBoundingClientRect().width > 0;
          };
          return { marker: seen('text.marker'), id: seen('text.id'), text: `${e.querySelector('text.marker')?.textContent} ${e.querySelector('text.id')?.textContent}` };
        }),
      );
    for (const lod of ['fit', 'whole', 'zoomed out', 'zoomed in']) {
      if (lod === 'whole') await tree.locator('button.whole').click();
      if (lod === 'zoomed out') for (let i = 0; i < 3; i++) await tree.locator('button.zoom-out').click();
      if (lod === 'zoomed in') for (let i = 0; i < 8; i++) await tree.locator('button.zoom-in').click();
      const ls = await labels();
      expect(ls.length, lod).toBeGreaterThan(0);
      for (const l of ls) {
        expect(l.marker, `${lod}: marker of ${l.text}`).toBe(true);
        expect(l.id, `${lod}: id of ${l.text}`).toBe(true);
        expect(l.text).toMatch(/^[RB] #\d+$/);
      }
    }
    await tree.locator('button.fit').click();
    await page.mouse.move(0, 0);
    await tree.screenshot({ path: 'test-results/view-free-tree-68.png' });
    expect(app.problems).toEqual([]);
  });

  test('+ and − zoom around the node the step is about, which stays in view', async ({ page }) => {
    test.setTimeout(90_000);
    const app = new AppPage(page);
    await app.openTrace(bigTrace(), 200);
    const tree = app.tree.root;
    // Into the next free's micro-steps until a node is marked as changed or new.
    const marked = tree.locator('g.node[data-mark]:not([data-mark="path"]):not([data-mark="prop-path"])');
    for (let i = 0; i < 30 && (await marked.count()) === 0; i++) await page.keyboard.press('ArrowRight');
    expect(await marked.count()).toBeGreaterThan(0);
    // The node the step is about: the one with the callout (what the narration names), else the marked one.
    const callout = tree.locator('g.callout');
    const id = (await callout.count()) > 0 ? await callout.first().getAttribute('data-callout-for') : await marked.first().getAttribute('data-id');
    const node = tree.locator(`g.node[data-id="${id}"]`);
    const svg = await tree.locator('svg.free-tree-svg').boundingBox();
    if (!svg) throw new Error('no svg');
    const centre = async () => {
      const b = await node.boundingBox();
      if (!b) throw new Error('node not drawn');
      return [b.x + b.width / 2, b.y + b.height / 2];
    };
    const inView = ([x, y]: number[]) => x >= svg.x && x <= svg.x + svg.width && y >= svg.y && y <= svg.y + svg.height;
    const before = await centre();
    expect(inView(before)).toBe(true);
    await tree.locator('button.zoom-in').click();
    const after = await centre();
    // Zoomed around the node (its centre moves by at most a few px: the zoom point is its middle).
    expect(Math.abs(after[0] - before[0])).toBeLessThan(4);
    expect(inView(after)).toBe(true);
    await tree.locator('button.zoom-out').click();
    await tree.locator('button.zoom-out').click();
    expect(inView(await centre())).toBe(true);
    // The node the narration names has its callout or mark on screen at every later micro-step.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('ArrowRight');
      const named = tree.locator('g.callout');
      if ((await named.count()) === 0) continue;
      const cid = await named.first().getAttribute('data-callout-for');
      const b = await tree.locator(`g.node[data-id="${cid}"]`).boundingBox();
      expect(b, `node #${cid} drawn`).not.toBeNull();
      if (b) expect(inView([b.x + b.width / 2, b.y + b.height / 2]), `node #${cid} in view`).toBe(true);
    }
    expect(app.problems).toEqual([]);
  });
});
