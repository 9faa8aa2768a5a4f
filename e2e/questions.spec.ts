// "Your turn": a lesson stop with a question asks it before showing the step; a click (the bar, a
// node of the free tree or the maple tree, a slot) or a store type's button answers it, right or
// wrong, and the answer is revealed on the micro-step that shows it. A hall's lecturer reveals
// without an answer (R, or the remote's PgDn). The right answers here are argued from the traces
// (web/src/lessons/question.test.ts says why), not read from the page.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { AppPage } from './pages/app';

const card = (page: Page) => page.locator('[data-widget="lesson"]');

async function asked(page: Page, id: string, stop: number, ask: string): Promise<Locator> {
  const app = new AppPage(page);
  await page.goto('about:blank');
  await app.open(`./#lesson=${id}&stop=${stop}`);
  const c = card(page);
  await expect(c).toHaveAttribute('data-stop', String(stop));
  await expect(c).toHaveAttribute('data-ask', ask);
  await expect(c).toHaveAttribute('data-revealed', 'false');
  await expect(c.getByTestId('lesson-text')).toBeHidden();
  return c;
}

async function expectFeedback(c: Locator, right: boolean): Promise<void> {
  await expect(c).toHaveAttribute('data-revealed', 'true');
  const fb = c.getByTestId('quiz-feedback');
  await expect(fb).toHaveAttribute('data-right', String(right));
  await expect(fb).toContainText(right ? /^Right\. Answer: / : /^Not quite: you picked .*\. Answer: /);
  await expect(c.getByTestId('lesson-text')).toBeVisible();
}

/** Click the address bar at `addr`, inside the drawn segment that holds it (linear within a segment). */
async function clickBarAt(page: Page, addr: bigint): Promise<void> {
  const segs = await page.locator('[data-widget="space-bar"] g.area').evaluateAll((els) =>
    els.map((e) => {
      const r = e.querySelector('rect.fill')?.getBoundingClientRect();
      return { start: e.getAttribute('data-va-start') ?? '', end: e.getAttribute('data-va-end') ?? '', x: r?.left ?? 0, w: r?.width ?? 0, y: (r?.top ?? 0) + (r?.height ?? 0) / 2 };
    }),
  );
  const seg = segs.find((s) => s.start && BigInt(s.start) <= addr && addr < BigInt(s.end));
  expect(seg, `a segment of the bar holds 0x${addr.toString(16)}`).toBeDefined();
  const s = seg as (typeof segs)[number];
  const frac = Number(addr - BigInt(s.start)) / Number(BigInt(s.end) - BigInt(s.start));
  await page.mouse.click(s.x + frac * s.w, s.y);
}

test('where will it land: a click inside 0x20000’s page is right, one low in the block is wrong', async ({ page }) => {
  const app = new AppPage(page);
  let c = await asked(page, 'free-tree', 3, 'land');
  // Asked before the operation: no micro-step of its search is shown.
  expect(await page.locator('#app').getAttribute('data-frame')).toBe('-1');
  await clickBarAt(page, 0x20800n);
  await expectFeedback(c, true);
  await expect(c.getByTestId('quiz-feedback')).toContainText('[0x20000, 0x21000)');
  // Revealed on the stop: the NE fit, as its claim says.
  await expect(c).toHaveAttribute('data-at-stop', 'true');
  expect(await page.locator('#app').getAttribute('data-frame')).not.toBe('-1');
  c = await asked(page, 'free-tree', 3, 'land');
  await clickBarAt(page, 0x12800n);
  await expectFeedback(c, false);
  // The pick is the page under the click.
  await expect(c.getByTestId('quiz-feedback')).toContainText('you picked 0x12000.');
  expect(app.problems).toEqual([]);
});

test('which node next (free tree): #7 is right, #5 is wrong; "On to the stop" leads to the stop’s own step', async ({ page }) => {
  const app = new AppPage(page);
  let c = await asked(page, 'free-tree', 13, 'visit');
  await page.locator('[data-widget="free-tree"] [data-id="7"]').first().click();
  await expectFeedback(c, true);
  await c.locator('button[data-action="quiz-onward"]').click();
  await expect(c).toHaveAttribute('data-at-stop', 'true');
  await expect(c.locator('button[data-action="quiz-onward"]')).toBeHidden();
  c = await asked(page, 'free-tree', 13, 'visit');
  await page.locator('[data-widget="free-tree"] [data-id="5"]').first().click();
  await expectFeedback(c, false);
  expect(app.problems).toEqual([]);
});

/** Click a part of a maple node that the view shows (a wide node may run past the view's edge). */
async function clickMapleNode(page: Page, id: number): Promise<void> {
  const at = await page.evaluate((n) => {
    const svg = document.querySelector('[data-widget="maple-tree"] svg')?.getBoundingClientRect();
    const cells = [...document.querySelectorAll(`[data-widget="maple-tree"] g.maple-node[data-maple-id="${n}"] [data-slot]`)];
    for (const c of cells) {
      const r = c.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      if (svg && x > svg.left && x < svg.right && y > svg.top && y < svg.bottom && x > 0 && x < innerWidth && y > 0 && y < innerHeight) return { x, y };
    }
    return null;
  }, id);
  expect(at, `a slot of maple node #${id} is on screen`).not.toBeNull();
  await page.mouse.click(at?.x ?? 0, at?.y ?? 0);
}

test('which node next (maple tree): the left leaf #1 (the wasted descent) is right, the root #3 is wrong', async ({ page }) => {
  let c = await asked(page, 'maple', 7, 'visit');
  const node = (id: number) => page.locator(`[data-widget="maple-tree"] g.maple-node[data-maple-id="${id}"]`);
  await expect(node(1)).toBeVisible({ timeout: 20_000 });
  await clickMapleNode(page, 1);
  await expectFeedback(c, true);
  // The answer comes before the stop's own step: "On to the stop" goes on to it.
  await c.locator('button[data-action="quiz-onward"]').click();
  await expect(c).toHaveAttribute('data-at-stop', 'true');
  c = await asked(page, 'maple', 7, 'visit');
  await expect(node(3)).toBeVisible({ timeout: 20_000 });
  await clickMapleNode(page, 3);
  await expectFeedback(c, false);
});

test('which store type: wr_exact_fit is right, wr_node_store is wrong', async ({ page }) => {
  let c = await asked(page, 'maple', 3, 'store');
  await c.locator('button[data-choice="wr_exact_fit"]').click();
  await expectFeedback(c, true);
  // Revealed on the stop's own micro-step: the store_type event.
  await expect(c).toHaveAttribute('data-at-stop', 'true');
  await expect(c.locator('button[data-choice]').first()).toBeHidden();
  c = await asked(page, 'maple', 3, 'store');
  await c.locator('button[data-choice="wr_node_store"]').click();
  await expectFeedback(c, false);
  await expect(c.getByTestId('quiz-feedback')).toContainText('wr_exact_fit');
});

test('which slot: slot 10 of the right leaf is right, slot 8 is wrong', async ({ page }) => {
  let c = await asked(page, 'maple', 8, 'slot');
  const slot = (n: number, s: number) => page.locator(`[data-widget="maple-tree"] g.maple-node[data-maple-id="${n}"] [data-slot="${s}"]`);
  await expect(slot(2, 10)).toBeVisible({ timeout: 20_000 });
  await slot(2, 10).click();
  await expectFeedback(c, true);
  c = await asked(page, 'maple', 8, 'slot');
  await expect(slot(2, 8)).toBeVisible({ timeout: 20_000 });
  await slot(2, 8).click();
  await expectFeedback(c, false);
});

test('a hall: R reveals without an answer; with a remote, PgDn reveals, then goes on', async ({ page }) => {
  let c = await asked(page, 'maple', 3, 'store');
  await page.locator('#app').focus();
  await page.keyboard.press('r');
  await expect(c).toHaveAttribute('data-revealed', 'true');
  await expect(c.getByTestId('quiz-feedback')).toHaveAttribute('data-right', '');
  await expect(c.getByTestId('quiz-feedback')).toHaveText(/^Answer: wr_exact_fit/);
  c = await asked(page, 'free-tree', 13, 'visit');
  await page.locator('#app').focus();
  await page.keyboard.press('PageDown');
  await expect(c).toHaveAttribute('data-revealed', 'true');
  await expect(c).toHaveAttribute('data-stop', '13');
  // The answer's step is not the stop's: the next press goes to the stop, the one after that on.
  await page.keyboard.press('PageDown');
  await expect(c.locator('button[data-action="quiz-onward"]')).toBeHidden();
  await expect(c).toHaveAttribute('data-stop', '13');
  await page.keyboard.press('PageDown');
  await expect(c).toHaveAttribute('data-lesson', 'free-tree');
  await expect(c).toHaveAttribute('data-stop', '14');
  // The Reveal button, in lecture mode.
  c = await asked(page, 'lazy', 7, 'land');
  await c.locator('button[data-action="quiz-reveal"]').click();
  await expect(c).toHaveAttribute('data-revealed', 'true');
  await expect(c.getByTestId('quiz-feedback')).toContainText('[0x100000, 0x108000)');
});
