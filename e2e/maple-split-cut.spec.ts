// Issue 33: the split step ("mab_calc_split cuts after slot N; the halves go into new nodes") draws
// the cut on the full node: a marked line between slot N and slot N + 1.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

for (const [w, h, lecture] of [
  [1440, 900, false],
  [1280, 720, true],
] as const) {
  test(`the split step draws mab_calc_split's cut between slot N and N + 1 (${w}×${h}${lecture ? ', lecture' : ''})`, async ({ page }) => {
    await page.setViewportSize({ width: w, height: h });
    const app = new AppPage(page);
    // The maple lesson's split stop: a 16-slot leaf, the cut after slot 9.
    await app.open(`./#lesson=maple&stop=5${lecture ? '&lecture=1' : ''}`);
    await expect(app.narration.root).toHaveAttribute('data-event-kind', 'split');
    const said = (await app.narration.text.textContent()) ?? '';
    const n = Number(/cuts after slot (\d+)/.exec(said)?.[1]);
    expect(n).toBe(9);
    const cut = page.locator('[data-widget="maple-tree"] g.maple-node g.split-cut');
    await expect(cut).toHaveCount(1);
    await expect(cut).toHaveAttribute('data-after', String(n));
    const node = page.locator('[data-widget="maple-tree"] g.maple-node:has(g.split-cut)');
    // The line on screen: right of slot N's cell, left of slot N + 1's.
    const line = (await cut.locator('line').boundingBox())!;
    const left = (await node.locator(`g.maple-cell[data-slot="${n}"] rect.slot`).boundingBox())!;
    const right = (await node.locator(`g.maple-cell[data-slot="${n + 1}"] rect.slot`).boundingBox())!;
    const x = line.x + line.width / 2;
    expect(x).toBeGreaterThanOrEqual(left.x + left.width - 1);
    expect(x).toBeLessThanOrEqual(right.x + 1);
    // On screen: inside the maple view's drawing.
    const view = (await page.locator('[data-widget="maple-tree"] svg').first().boundingBox())!;
    expect(x, 'the cut in view').toBeGreaterThanOrEqual(view.x);
    expect(x, 'the cut in view').toBeLessThanOrEqual(view.x + view.width);
    // Its words whole inside the drawing too (they were clipped at the panel's right edge).
    const label = (await cut.locator('.cut-label').boundingBox())!;
    await expect(cut.locator('.cut-label')).toHaveText(`cut after slot ${n}`);
    expect(label.x, 'the label in view').toBeGreaterThanOrEqual(view.x);
    expect(label.x + label.width, 'the label in view').toBeLessThanOrEqual(view.x + view.width);
    // It crosses the node from top to bottom.
    const frame = (await node.locator('rect.frame').boundingBox())!;
    expect(line.y).toBeLessThanOrEqual(frame.y);
    expect(line.y + line.height).toBeGreaterThanOrEqual(frame.y + frame.height);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `test-results/maple-split-cut-${w}x${h}.png` });
    // The next micro-step shows the new nodes: no cut any more.
    await page.keyboard.press('ArrowRight');
    await expect(cut).toHaveCount(0);
    expect(app.problems).toEqual([]);
  });
}
