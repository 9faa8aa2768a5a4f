// Issue 33, item 6: in lecture mode at 1280×720 every text a student must read (the tree, the
// address bar's labels, the code, the narration, the counters) is at least 16 px on screen.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test.use({ viewport: { width: 1280, height: 720 } });

const MIN_PX = 16;

/**
 * Every visible text of the lecture's widgets drawn smaller than `min` px on screen (font size
 * times the SVG's scale), as `widget: "text" size`.
 */
async function smallTexts(page: import('@playwright/test').Page, min: number): Promise<string[]> {
  return page.evaluate((min) => {
    const out: string[] = [];
    const widgets = ['space-bar', 'free-tree', 'maple-tree', 'narration', 'code', 'player', 'lesson'];
    for (const w of widgets) {
      const root = document.querySelector(`[data-widget="${w}"]`);
      if (!root) continue;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent?.trim();
        const e = n.parentElement;
        if (!text || !e) continue;
        // Hidden, screen-reader-only, or inside a closed <details>/a title: not read from the screen.
        if (e.closest('title, desc, [hidden], .sr-only, .visually-hidden, option, select, button, [aria-hidden="true"]')) continue;
        const cs = getComputedStyle(e);
        if (cs.display === 'none' || cs.visibility === 'hidden' || parseFloat(cs.opacity) === 0) continue;
        const r = e.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        // Off screen (scrolled out of the code list, or past the viewport): not read either.
        if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue;
        let k = 1;
        if (e instanceof SVGElement) {
          const m = (e as unknown as SVGGraphicsElement).getScreenCTM?.();
          if (m) k = Math.hypot(m.a, m.b);
        }
        const px = parseFloat(cs.fontSize) * k;
        if (px < min - 0.05) out.push(`${w}: "${text.slice(0, 30)}" ${px.toFixed(1)}px`);
      }
    }
    return out;
  }, min);
}

test('lecture mode at 1280×720: every text of the bar, tree, code, narration and counters is at least 16 px', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./?lecture');
  await page.keyboard.press('Home');
  const small = new Set<string>();
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('ArrowRight');
    if (i % 3 !== 2) continue;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    for (const s of await smallTexts(page, MIN_PX)) small.add(s);
  }
  await page.mouse.move(0, 0);
  await page.screenshot({ path: 'test-results/lecture-type-1280x720.png' });
  expect([...small]).toEqual([]);
  expect(app.problems).toEqual([]);
});

test('lecture mode at 1280×720: the lessons\' stops, the card included, keep every text at least 16 px', async ({ page }) => {
  test.setTimeout(90_000);
  const app = new AppPage(page);
  const small = new Set<string>();
  // The first and a middle stop of each lesson (the whole course is walked by hand, docs/lecturers.md).
  for (const [id, stop] of [['walk', 1], ['free-tree', 1], ['free-tree', 9], ['lazy', 4], ['nodes', 5], ['maple', 1], ['maple', 7], ['maple-rfc', 6]] as const) {
    await app.open(`./#lesson=${id}&stop=${stop}&lecture=1`);
    await expect(page.locator('[data-widget="lesson"]')).toContainText(`stop ${stop} /`);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    for (const s of await smallTexts(page, MIN_PX)) small.add(`${id} ${stop}: ${s}`);
  }
  expect([...small]).toEqual([]);
  expect(app.problems).toEqual([]);
});
