// Lecture mode (a toggle, `?lecture` or `&lecture=1`): large type, only the player, fits a
// 1280×720 projector with no scrolling. Light and dark themes, remembered.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { readVector } from './support/conformance';
import { DEFAULT_TRACE } from '../web/src/scenario';

test.use({ viewport: { width: 1280, height: 720 } });

async function noOverflow(page: import('@playwright/test').Page) {
  const size = await page.evaluate(() => ({
    w: document.documentElement.scrollWidth,
    h: document.documentElement.scrollHeight,
    bodyW: document.body.scrollWidth,
    bodyH: document.body.scrollHeight,
  }));
  expect(size.w).toBeLessThanOrEqual(1280);
  expect(size.h).toBeLessThanOrEqual(720);
  expect(size.bodyW).toBeLessThanOrEqual(1280);
  expect(size.bodyH).toBeLessThanOrEqual(720);
  // Every widget a lecturer needs is inside the screen.
  for (const w of ['player', 'space-bar', 'free-tree', 'narration', 'code']) {
    const box = await page.locator(`[data-widget="${w}"]`).boundingBox();
    expect(box, w).not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0), w).toBeLessThanOrEqual(720 + 0.5);
    expect((box?.x ?? 0) + (box?.width ?? 0), w).toBeLessThanOrEqual(1280 + 0.5);
  }
}

test('?lecture opens lecture mode: only the player, large type, no overflow at 1280×720', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./?lecture');
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await expect(app.ops.root).toBeHidden();
  await expect(app.forms.root).toBeHidden();
  await expect(app.stats.root).toBeHidden();
  await expect(app.player.root).toBeVisible();
  await page.keyboard.press('Home');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await noOverflow(page);
  const font = await app.narration.text.evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
  expect(font).toBeGreaterThanOrEqual(18);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: 'test-results/lecture-1280x720.png' });
  // The permalink keeps the mode.
  await expect(page).toHaveURL(/&lecture=1$/);
  expect(app.problems).toEqual([]);
});

test('the lecture toggle and the theme toggle; the theme is remembered', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(readVector('03_merges').trace, 16);
  const lecture = page.locator('[data-tool="lecture"]');
  await lecture.click();
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await expect(lecture).toHaveAttribute('aria-pressed', 'true');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await noOverflow(page);

  await page.locator('[data-tool="theme"]').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: 'test-results/lecture-dark-1280x720.png' });
  await page.reload();
  await app.waitReady();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  // Still in lecture mode: it came back from the permalink.
  await expect(page.locator('body')).toHaveClass(/\blecture\b/);
  await lecture.click();
  await expect(page.locator('body')).not.toHaveClass(/\blecture\b/);
  await expect(app.ops.root).toBeVisible();
  await page.locator('[data-tool="theme"]').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test.describe('dark by default when the system prefers it', () => {
  test.use({ colorScheme: 'dark' });
  test('prefers-color-scheme: dark', async ({ page }) => {
    const app = new AppPage(page);
    await app.open();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.keyboard.press('Home');
    for (let i = 0; i < 14; i++) await page.keyboard.press('ArrowRight');
    await page.mouse.move(0, 0);
    await page.screenshot({ path: 'test-results/dark-theme.png', fullPage: false });
  });
});

// ---------- made for a projector (issue 16) ----------

/** The smallest node text of the tree as drawn on screen (font size times the zoom), in px. */
async function smallestTreeText(page: import('@playwright/test').Page): Promise<{ min: number; count: number }> {
  return page.evaluate(() => {
    let min = Infinity;
    let count = 0;
    for (const t of document.querySelectorAll<SVGTextElement>('[data-widget="free-tree"] g.node text')) {
      const cs = getComputedStyle(t);
      if (cs.display === 'none' || !t.textContent?.trim() || t.getBBox().width === 0) continue;
      const k = t.getScreenCTM()?.a ?? 1;
      min = Math.min(min, parseFloat(cs.fontSize) * k);
      count++;
    }
    return { min, count };
  });
}

/** The highlighted code line and its list: nothing cut on the right. */
interface CodeLine {
  li: number[];
  ol: number[];
  cut: number;
  scrolled: number;
}

/**
 * The code panel's current line and its list's scroll: now, or (`stops` > 0) after each of that
 * many micro-steps forward, walked in the page in one call with the player's forward button. A
 * step is drawn in its click's handler; the list scrolls to the current line on the next frame,
 * so each stop is measured after two frames.
 */
async function codeLines(page: import('@playwright/test').Page, stops = 0): Promise<(CodeLine | null)[]> {
  return page.evaluate(async (stops) => {
    const measure = () => {
      const li = document.querySelector<HTMLElement>('[data-widget="code"] li.code-line.current');
      const ol = document.querySelector<HTMLElement>('[data-widget="code"] .code-lines');
      if (!li || !ol) return null;
      // The first line showing at the top of the list: how much of it is scrolled out of view.
      const top = ol.getBoundingClientRect().top + ol.clientTop;
      const first = Array.from(ol.children).find((l) => l.getBoundingClientRect().bottom > top + 0.5);
      const cut = first ? Math.max(0, top - first.getBoundingClientRect().top) : 0;
      return { li: [li.scrollWidth, li.clientWidth], ol: [ol.scrollWidth, ol.clientWidth], cut, scrolled: ol.scrollTop };
    };
    if (!stops) return [measure()];
    const next = document.querySelector('[data-widget="player"] button[data-action="next"]') as HTMLButtonElement;
    const out: (CodeLine | null)[] = [];
    for (let i = 0; i < stops; i++) {
      next.click();
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      out.push(measure());
    }
    return out;
  }, stops);
}

async function codeLineFits(page: import('@playwright/test').Page): Promise<CodeLine | null> {
  return (await codeLines(page))[0];
}

for (const [w, h] of [
  [1280, 720],
  [1920, 1080],
] as const) {
  test.describe(`lecture mode at ${w}×${h}`, () => {
    test.use({ viewport: { width: w, height: h } });
    test(`tree text of at least 16 px, code lines wrapped, narration and the changed node in view (${w}×${h})`, async ({ page }) => {
      const app = new AppPage(page);
      await app.open('./?lecture');
      await page.keyboard.press('Home');
      // Through the first operations' micro-steps, checking each stop.
      for (let i = 0; i < 14; i++) {
        await page.keyboard.press('ArrowRight');
        if (i % 3 !== 2) continue;
        const text = await smallestTreeText(page);
        expect(text.count, 'visible node text').toBeGreaterThan(0);
        expect(text.min, `smallest node text at stop ${i}`).toBeGreaterThanOrEqual(16);
        const code = await codeLineFits(page);
        if (code) {
          expect(code.li[0], 'highlighted line cut').toBeLessThanOrEqual(code.li[1]);
          expect(code.ol[0], 'code list cut').toBeLessThanOrEqual(code.ol[1]);
        }
        // The narration and the node the step is about are on screen.
        const narr = await app.narration.text.boundingBox();
        expect(narr).not.toBeNull();
        expect((narr?.y ?? 0) + (narr?.height ?? 0)).toBeLessThanOrEqual(h);
        const svg = await app.tree.root.locator('svg.free-tree-svg').boundingBox();
        const marked = app.tree.root.locator('g.node[data-mark]:not([data-mark="path"]):not([data-mark="prop-path"])');
        if ((await marked.count()) > 0 && svg) {
          const b = await marked.first().boundingBox();
          expect(b, 'changed node drawn').not.toBeNull();
          if (b) {
            expect(b.x + b.width / 2).toBeGreaterThanOrEqual(svg.x);
            expect(b.x + b.width / 2).toBeLessThanOrEqual(svg.x + svg.width);
            expect(b.y + b.height / 2).toBeGreaterThanOrEqual(svg.y);
            expect(b.y + b.height / 2).toBeLessThanOrEqual(svg.y + svg.height);
          }
        }
      }
      // The tree has most of the width.
      const tree = await page.locator('.tree-panel').boundingBox();
      expect((tree?.width ?? 0) / w).toBeGreaterThan(0.55);
      await noOverflowAt(page, w, h);
      // Type grows with the screen.
      const font = await app.narration.text.evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
      expect(font).toBeGreaterThanOrEqual(w > 1600 ? 24 : 18);
      await page.mouse.move(0, 0);
      await page.screenshot({ path: `test-results/lecture-${w}x${h}.png` });
      expect(app.problems).toEqual([]);
    });

    test(`the code panel never shows its top line cut (${w}×${h})`, async ({ page }) => {
      const app = new AppPage(page);
      await app.open('./?lecture');
      await page.keyboard.press('Home');
      // Through the whole scenario (about 130 stops): the listing changes and scrolls to the
      // current line, near a listing's end too.
      // One call walks them all (three round trips a stop took 19-27 s of 30 on a loaded machine).
      let scrolled = 0;
      const stops = await codeLines(page, 135);
      expect(stops.filter(Boolean).length, 'stops with a current code line').toBeGreaterThan(100);
      for (const [i, code] of stops.entries()) {
        if (!code) continue;
        if (code.scrolled > 0) scrolled++;
        expect(code.cut, `top line of the code scrolled partly out of view at stop ${i}`).toBeLessThan(2);
      }
      // At 1280×720 the listings are taller than their box (the test is about something).
      if (h < 800) expect(scrolled, 'stops where the code list was scrolled').toBeGreaterThan(0);
      expect(app.problems).toEqual([]);
    });
  });
}

async function noOverflowAt(page: import('@playwright/test').Page, w: number, h: number) {
  const size = await page.evaluate(() => ({ w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight }));
  expect(size.w).toBeLessThanOrEqual(w);
  expect(size.h).toBeLessThanOrEqual(h);
}

test.describe('outside lecture mode at 1440×900', () => {
  test.use({ viewport: { width: 1440, height: 900 } });
  test('the bar, the tree and the narration are on the first screen together', async ({ page }) => {
    const app = new AppPage(page);
    await app.open();
    await page.keyboard.press('Home');
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    for (const [name, loc] of [
      ['player', app.player.root],
      ['space bar', app.bar.root],
      ['free tree', app.tree.root.locator('svg.free-tree-svg')],
      ['narration', app.narration.root],
    ] as const) {
      const b = await loc.boundingBox();
      expect(b, name).not.toBeNull();
      expect(b?.y ?? -1, name).toBeGreaterThanOrEqual(0);
      expect((b?.y ?? 0) + (b?.height ?? 0), name).toBeLessThanOrEqual(900);
    }
    // The highlighted code line is not cut either.
    const code = await codeLineFits(page);
    if (code) expect(code.li[0]).toBeLessThanOrEqual(code.li[1]);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: 'test-results/page-1440x900.png' });
    expect(app.problems).toEqual([]);
  });
});

test.describe('lecture mode on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });
  test('nothing overlaps and nothing runs past the right edge', async ({ page }) => {
    const app = new AppPage(page);
    await app.open('./?lecture');
    await page.keyboard.press('Home');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const sel of ['.site-header', '.transport-panel', '.space-panel', '.tree-panel', '.step-panel', '.tree-toolbar', '[data-widget="narration"]', '[data-widget="code"]']) {
      const b = await page.locator(sel).first().boundingBox();
      expect(b, sel).not.toBeNull();
      expect((b?.x ?? 0) + (b?.width ?? 0), sel).toBeLessThanOrEqual(390 + 0.5);
    }
    // The tree's buttons do not sit on the narration (nor on each other's panels).
    const boxes = await page.evaluate(() => {
      const r = (e: Element) => {
        const b = e.getBoundingClientRect();
        return { x: b.x, y: b.y, w: b.width, h: b.height };
      };
      return {
        buttons: [...document.querySelectorAll('.tree-toolbar button, .tree-toolbar select')].map(r),
        narration: r(document.querySelector('[data-widget="narration"]') as Element),
        code: r(document.querySelector('[data-widget="code"]') as Element),
      };
    });
    const overlap = (a: { x: number; y: number; w: number; h: number }, b: typeof a) =>
      a.w > 0 && b.w > 0 && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    for (const b of boxes.buttons) {
      expect(overlap(b, boxes.narration), 'a tree button on the narration').toBe(false);
      expect(overlap(b, boxes.code), 'a tree button on the code').toBe(false);
    }
    await page.screenshot({ path: 'test-results/lecture-phone.png', fullPage: true });
    expect(app.problems).toEqual([]);
  });
});

test('a link step keeps the new node and the parent the narration names in view', async ({ page }) => {
  // Default scenario, op 9 (`free 0xffffc90000002000`), micro-step 4: block #3 is linked under
  // block #1. At 1280×720 the cards are too large for the whole tree: the view follows the step.
  const app = new AppPage(page);
  await app.open(`./#trace=${encodeURIComponent(DEFAULT_TRACE)}&step=8&frame=3&lecture=1`);
  await expect(app.narration.text).toContainText('block #3');
  await expect(app.narration.text).toContainText('right child of block #1');
  const panel = await page.locator('[data-widget="free-tree"] svg').first().boundingBox();
  await expect(async () => {
    for (const id of ['3', '1']) {
      const b = await page.locator(`[data-widget="free-tree"] g.node[data-id="${id}"] rect`).first().boundingBox();
      expect(b, `block #${id}`).not.toBeNull();
      expect(b!.y, `block #${id}: its top`).toBeGreaterThanOrEqual(panel!.y - 0.5);
      expect(b!.y + b!.height, `block #${id}: its bottom`).toBeLessThanOrEqual(panel!.y + panel!.height + 0.5);
    }
  }).toPass({ timeout: 5_000 });
});

test('a tree larger than its view has an overview; a click there moves the view', async ({ page }) => {
  // 60 one-page allocations, every other one freed: 30 free blocks, five levels, too tall and
  // too wide at 1280×720 in lecture mode even as compact cards of a readable size, so the view
  // shows part of the tree. (The default scenario's three levels now fit there, compact.)
  await page.setViewportSize({ width: 1280, height: 720 });
  const app = new AppPage(page);
  const lines = ['init 0x100000 0x200000'];
  for (let i = 0; i < 60; i++) lines.push('alloc 0x1000 0x1 0x100000 0x200000');
  for (let i = 0; i < 60; i += 2) lines.push(`free 0x${(0x100000 + i * 0x1000).toString(16)}`);
  await app.open(`./#trace=${encodeURIComponent(lines.join('\n'))}&step=end&lecture=1`);
  const overview = page.locator('[data-widget="tree-overview"]');
  await expect(overview).toBeVisible();
  // Every node of the tree (a compact tree draws only those near the screen).
  await expect(overview).toHaveAttribute('data-nodes', (await app.tree.root.getAttribute('data-nodes')) ?? '');
  // It covers none of the step's nodes the view shows whole.
  const box = (await overview.boundingBox())!;
  const svg = (await app.tree.root.locator('svg.free-tree-svg').boundingBox())!;
  const inView = async (id: string) => {
    const b = await app.tree.root.locator(`g.node[data-id="${id}"] rect`).first().boundingBox();
    return b !== null && b.y >= svg.y - 0.5 && b.y + b.height <= svg.y + svg.height + 0.5 && b.x >= svg.x - 0.5 && b.x + b.width <= svg.x + svg.width + 0.5;
  };
  const ids = await app.tree.nodes.evaluateAll((gs) =>
    gs.map((g) => [g.getAttribute('data-id') ?? '', !['', 'path', 'prop-path'].includes(g.getAttribute('data-mark') ?? '')] as const),
  );
  const hiddenBefore: string[] = [];
  for (const [id, marked] of ids) {
    if (!(await inView(id))) {
      hiddenBefore.push(id);
      continue;
    }
    if (!marked) continue;
    const b = (await app.tree.root.locator(`g.node[data-id="${id}"] rect`).first().boundingBox())!;
    const covered = b.x < box.x + box.width && b.x + b.width > box.x && b.y < box.y + box.height && b.y + b.height > box.y;
    expect(covered, `the overview covers block #${id}`).toBe(false);
  }
  expect(hiddenBefore.length, 'nodes out of view').toBeGreaterThan(0);
  // A click on a node of the deepest level in the overview brings it into view.
  const deepest = await overview.locator('svg').evaluate((svg) => {
    let best: [number, number] | null = null;
    for (const p of svg.querySelectorAll('path')) {
      for (const m of (p.getAttribute('d') ?? '').matchAll(/M([\d.]+),([\d.]+)h([\d.]+)v([\d.]+)/g)) {
        const [x, y, w, h] = m.slice(1).map(Number);
        if (!best || y + h / 2 > best[1]) best = [x + w / 2, y + h / 2];
      }
    }
    const r = svg.getBoundingClientRect();
    return best ? [r.left + best[0], r.top + best[1]] : null;
  });
  if (!deepest) throw new Error('the overview draws no node');
  await page.mouse.click(deepest[0], deepest[1]);
  await expect(app.tree.root).toHaveAttribute('data-auto-fit', 'false');
  // (A compact tree draws only the nodes near the view: compare the ids in view, drawn or not before.)
  const shownBefore = ids.map(([id]) => id).filter((id) => !hiddenBefore.includes(id));
  await expect
    .poll(async () => {
      const now = await app.tree.nodes.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-id') ?? ''));
      for (const id of now) if (!shownBefore.includes(id) && (await inView(id))) return true;
      return false;
    })
    .toBe(true);
  // The whole tree in view: no overview, from the moment the view sets off (decided by where it
  // goes, not by each frame of the flight, which showed the map while a tree that fits moved).
  const hiddenAtOnce = await page.locator('[data-widget="free-tree"] button.whole').evaluate((b) => {
    (b as HTMLButtonElement).click();
    return (document.querySelector('[data-widget="tree-overview"]') as HTMLElement).hidden;
  });
  expect(hiddenAtOnce, 'the map hidden as the view sets off').toBe(true);
  await expect(overview).toBeHidden();
  expect(app.problems).toEqual([]);
});
