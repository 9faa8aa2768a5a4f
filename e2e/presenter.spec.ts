// Issue 33, item 1: the presenter view. The lesson card opens a second window (presenter.html)
// that shows the stop's notes and the next stop, follows the page, and drives it with a remote's
// keys through a BroadcastChannel.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test('the presenter view follows the lesson and steps it: notes, the next stop, the keys', async ({ page, context }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=free-tree&stop=3');
  const card = page.locator('[data-widget="lesson"]');
  await expect(card).toHaveAttribute('data-stop', '3');
  const [p] = await Promise.all([context.waitForEvent('page'), card.locator('button[data-action="lesson-presenter"]').click()]);
  const problems: string[] = [];
  p.on('console', (m) => (m.type() === 'error' ? problems.push(m.text()) : undefined));
  p.on('pageerror', (e) => problems.push(String(e)));
  await p.waitForLoadState();
  expect(new URL(p.url()).pathname).toMatch(/presenter\.html$/);
  // The stop's notes, as the page's card shows them once its question is revealed (the card's
  // title is a neutral one while it is asked; the lecturer's window has the stop's own).
  await expect(card.getByTestId('lesson-title')).toHaveText('Your turn');
  await expect(p.getByTestId('p-title')).not.toHaveText('Your turn');
  const title3 = (await p.getByTestId('p-title').textContent()) ?? '';
  expect(title3).not.toBe('');
  await expect(p.getByTestId('p-text')).toHaveText((await card.getByTestId('lesson-text').textContent()) ?? '');
  await expect(p.getByTestId('p-where')).toContainText('stop 3 / 14');
  const next3 = (await p.getByTestId('p-next-title').textContent()) ?? '';
  expect(next3).not.toBe('');
  // Stop 3 asks a question: the presenter reads its answer before the hall does, and a remote's
  // first PageDown reveals it on the page, as on the page itself.
  await expect(p.getByTestId('p-question')).toContainText('not revealed yet');
  await expect(p.getByTestId('p-question')).toContainText('Answer:');
  await p.keyboard.press('PageDown');
  await expect(card).toHaveAttribute('data-revealed', 'true');
  await expect(p.getByTestId('p-question')).toContainText('(revealed)');
  await expect(card.getByTestId('lesson-title')).toHaveText(title3);
  // The next PageDown steps the page to the next stop, whose title is the one the presenter
  // announced as next.
  await p.keyboard.press('PageDown');
  await expect(card).toHaveAttribute('data-stop', '4');
  await expect(card.getByTestId('lesson-title')).toHaveText(next3);
  await expect(p.getByTestId('p-title')).toHaveText(next3);
  await expect(p.getByTestId('p-where')).toContainText('stop 4 / 14');
  // Its button back, and the page's own keys move the presenter too.
  await p.locator('button[data-action="p-prev"]').click();
  await expect(card).toHaveAttribute('data-stop', '3');
  await expect(p.getByTestId('p-title')).toHaveText(title3);
  await page.bringToFront();
  await page.keyboard.press('PageUp');
  await expect(card).toHaveAttribute('data-stop', '2');
  await expect(p.getByTestId('p-where')).toContainText('stop 2 / 14');
  // Stepping away from the stop on the page is said in the presenter view.
  await page.keyboard.press('ArrowRight');
  await expect(p.getByTestId('p-away')).toBeVisible();
  // Leaving the lesson: the presenter says there is none.
  await card.locator('button[data-action="lesson-leave"]').click();
  await expect(p.locator('[data-widget="presenter"]')).toHaveAttribute('data-state', 'none');
  expect(problems).toEqual([]);
  expect(app.problems).toEqual([]);
});

test('a presenter view opened first waits, then picks the lesson up', async ({ page, context }) => {
  const p = await context.newPage();
  await p.goto('./presenter.html');
  await expect(p.getByTestId('p-where')).toContainText('Waiting for the page');
  const app = new AppPage(page);
  await app.open('./#lesson=maple&stop=5');
  await expect(page.locator('[data-widget="lesson"]')).toHaveAttribute('data-stop', '5');
  await expect(p.getByTestId('p-where')).toContainText('stop 5 / 10');
  await expect(p.getByTestId('p-title')).toHaveText((await page.locator('[data-widget="lesson"]').getByTestId('lesson-title').textContent()) ?? '');
});

test('with two tabs of vmapviz open, the presenter view steps only the page that opened it', async ({ page, context }) => {
  const a = new AppPage(page);
  await a.open('./#lesson=free-tree&stop=5');
  const other = await context.newPage();
  const b = new AppPage(other);
  await b.open('./#lesson=free-tree&stop=7');
  const cardA = page.locator('[data-widget="lesson"]');
  const cardB = other.locator('[data-widget="lesson"]');
  await expect(cardB).toHaveAttribute('data-stop', '7');
  await page.bringToFront();
  const [p] = await Promise.all([context.waitForEvent('page'), cardA.locator('button[data-action="lesson-presenter"]').click()]);
  await p.waitForLoadState();
  // It shows tab A's stop, not B's (B posts its state too, on the same channel).
  await expect(p.getByTestId('p-where')).toContainText('stop 5 / 14');
  await p.locator('button[data-action="p-next"]').click();
  await expect(cardA).toHaveAttribute('data-stop', '6');
  await expect(p.getByTestId('p-where')).toContainText('stop 6 / 14');
  // B heard the command too and left it alone; its own step does not move the presenter.
  await other.bringToFront();
  await other.keyboard.press('PageUp');
  await expect(cardB).toHaveAttribute('data-stop', '6');
  await p.locator('button[data-action="p-prev"]').click();
  await expect(cardA).toHaveAttribute('data-stop', '5');
  await expect(cardB).toHaveAttribute('data-stop', '6');
  await expect(p.getByTestId('p-where')).toContainText('stop 5 / 14');
  expect(a.problems).toEqual([]);
  expect(b.problems).toEqual([]);
});

test('the presenter view previews the picture shown and the next one, and follows the steps', async ({ page, context }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=free-tree&stop=5');
  const card = page.locator('[data-widget="lesson"]');
  await expect(card).toHaveAttribute('data-stop', '5');
  const [p] = await Promise.all([context.waitForEvent('page'), card.locator('button[data-action="lesson-presenter"]').click()]);
  await p.waitForLoadState();
  const root = page.locator('#app');
  const now = p.frameLocator('[data-testid="p-preview-now"]').locator('#app');
  const next = p.frameLocator('[data-testid="p-preview-next"]').locator('#app');
  const where = async () => ({ op: Number(await root.getAttribute('data-step')), frame: Number(await root.getAttribute('data-frame')) });
  const count = (op: number) => page.evaluate((k) => window.vmapviz?.app.core?.frames(k)?.frames.length ?? -1, op);
  /** Both previews: the page's own picture, and the micro-step after it (or the stop after it). */
  const follows = async (nextStop: number | null) => {
    const w = await where();
    for (const id of ['p-preview-now', 'p-preview-next']) await expect(p.frameLocator(`[data-testid="${id}"]`).locator('body')).toHaveAttribute('data-ready', 'true', { timeout: 30_000 });
    await expect(now).toHaveAttribute('data-lesson-stop', String(await card.getAttribute('data-stop')));
    await expect(now).toHaveAttribute('data-step', String(w.op));
    await expect(now).toHaveAttribute('data-frame', String(w.frame));
    if (nextStop === null) {
      await expect(next).toHaveAttribute('data-lesson-stop', String(await card.getAttribute('data-stop')));
      await expect(next).toHaveAttribute('data-step', String(w.op));
      await expect(next).toHaveAttribute('data-frame', String(w.frame + 1));
    } else {
      await expect(next).toHaveAttribute('data-lesson-stop', String(nextStop));
    }
  };
  await follows(null);
  // The previews are embedded pages: no toolbar, no lesson card of their own to press.
  await expect(p.frameLocator('[data-testid="p-preview-now"]').locator('body')).toHaveClass(/\bembed\b/);
  // A click on a preview leaves the keys with the presenter window.
  const before = await where();
  await p.getByTestId('p-preview-now').click({ force: true });
  expect(await p.evaluate(() => document.activeElement?.tagName)).not.toBe('IFRAME');
  await p.keyboard.press('ArrowRight');
  await expect(root).toHaveAttribute('data-frame', String(before.frame + 1));
  await follows(null);
  // To the operation's last micro-step: the next picture is then the next stop's.
  const { op } = await where();
  const n = await count(op);
  expect(n).toBeGreaterThan(2);
  while ((await where()).frame < n - 1) {
    const f = (await where()).frame;
    await p.keyboard.press('ArrowRight');
    await expect(root).toHaveAttribute('data-frame', String(f + 1));
  }
  await follows(6);
  await p.keyboard.press('PageDown');
  await expect(card).toHaveAttribute('data-stop', '6');
  await expect(now).toHaveAttribute('data-lesson-stop', '6');
  await follows(null);
  expect(app.problems).toEqual([]);
});
