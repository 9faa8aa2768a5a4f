// Issue 60, item 1 (in part): the whole course at 1280×720 and 1920×1080 in lecture mode, walked
// with PageDown from the first stop of the first lesson to the last of the last, as a lecturer
// does; bounding boxes, not screenshots. At 1280×720, at every stop of the course that is not
// about the tree, the kernel code sits under the tree and its current line is whole on screen,
// inside the code list; the side column keeps the card and the narration. A tree stop keeps the
// tree's height (three levels need it).
//
// At both sizes, at every stop, everything the stop's `look`
// names (the marked nodes and their callouts, the bar's areas and outlined ranges, the current
// code line, the narration), the card's title and, for a question, its answer controls and the
// node or slot that answers it, lie inside the window and inside every panel or SVG that clips
// them (e2e/support/hall.ts); and before a question's reveal nothing said holds its answer.
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { ASKED, said } from './support/asked';
import { measureStop, settledStop } from './support/hall';

/** Whether the stop looks at the tree; whether the code sits under it; its current line whole on screen. */
async function codeLine(page: Page): Promise<{ tree: boolean; under: boolean; line: boolean; whole: boolean }> {
  return page.evaluate(() => {
    const tree = document.querySelector('.tree-panel')?.classList.contains('lesson-look') ?? false;
    const code = document.querySelector<HTMLElement>('[data-widget="code"]');
    const under = !!code?.closest('.tree-panel');
    const cur = code?.querySelector('.code-line.current')?.getBoundingClientRect() ?? null;
    const list = code?.querySelector('.code-lines')?.getBoundingClientRect() ?? null;
    const whole =
      cur !== null && list !== null && cur.height > 0 && cur.top >= Math.max(0, list.top) - 0.5 && cur.bottom <= Math.min(innerHeight, list.bottom) + 0.5;
    return { tree, under, line: cur !== null, whole };
  });
}

test.use({ viewport: { width: 1280, height: 720 } });

for (const [width, height] of [
  [1280, 720],
  [1920, 1080],
] as const) {
  test(`every stop whole at ${width}×${height}: what its look names, the card, a question's answer targets${width === 1280 ? ', the code line under the tree' : ''}`, async ({ page }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width, height });
    const app = new AppPage(page);
    await app.open('./#lesson=walk&stop=1&lecture=1');
    const card = page.locator('[data-widget="lesson"]');
    await expect(card).toHaveAttribute('data-lesson', 'walk');
    const seen: string[] = [];
    const bad: string[] = [];
    let asked = 0;
    let codeChecked = 0;
    for (let i = 0; i < 80; i++) {
      const at = `${await card.getAttribute('data-lesson')} ${await card.getAttribute('data-stop')}`;
      if (seen.includes(at)) break;
      seen.push(at);
      await page.waitForTimeout(300);
      if ((await card.getAttribute('data-revealed')) === 'false') {
        asked++;
        const m = await settledStop(page);
        bad.push(...m.cut.map((c) => `${at} (asked): ${c}`));
        const q = ASKED.find((a) => `${a.lesson} ${a.stop}` === at);
        if (!q) bad.push(`${at}: a question not in e2e/support/asked.ts`);
        const words = await said(page);
        for (const w of q?.answer ?? []) if (words.includes(w)) bad.push(`${at}: "${w}" said before the reveal`);
        await page.keyboard.press('r');
        const onward = card.locator('button[data-action="quiz-onward"]');
        if (await onward.isVisible()) await onward.click();
        await expect(card).toHaveAttribute('data-at-stop', 'true');
        await page.waitForTimeout(300);
      }
      await expect.poll(async () => (await measureStop(page)).at).toBe(at);
      const m = await settledStop(page);
      bad.push(...m.cut.map((c) => `${at}: ${c}`));
      if (width === 1280) {
        // At the stop's own step for 300 ms at least (the waits above), as the code list settles.
        await expect(card).toHaveAttribute('data-at-stop', 'true');
        const c = await codeLine(page);
        if (!c.tree) {
          codeChecked++;
          if (!c.under) bad.push(`${at}: the code is not under the tree`);
          if (c.line && !c.whole) bad.push(`${at}: the code line is not whole on screen`);
        } else if (c.under) bad.push(`${at}: a tree stop lost the tree's height to the code`);
      }
      await page.keyboard.press('PageDown');
      await expect.poll(async () => `${await card.getAttribute('data-lesson')} ${await card.getAttribute('data-stop')}`).not.toBe(at).catch(() => undefined);
    }
    expect(seen.length, 'the course has 52 stops').toBe(52);
    expect(asked).toBe(ASKED.length);
    if (width === 1280) expect(codeChecked).toBeGreaterThan(10);
    expect(bad).toEqual([]);
    expect(app.problems).toEqual([]);
  });
}
