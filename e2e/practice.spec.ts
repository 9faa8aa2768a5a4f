// Issue 60, item 2: practice mode. After a "where does it land?" question, a fresh case of the
// same kind from the core's seeded generator (`#lesson=practice-land-SEED`), five questions,
// a score at the end. The right answers typed here are the core's own `allocated` events of
// each stop's operation (window.vmapviz), not the card's.
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';

test.use({ viewport: { width: 1280, height: 720 } });

/** Where the core says the current practice stop's allocation landed. */
async function coreLanding(page: Page): Promise<string> {
  return page.evaluate(() => {
    const app = (window as unknown as { vmapviz: { app: { lesson: { lesson: { stops: { at: { op: number } }[] }; index: number }; core: { frames(op: number): { frames: { event: Record<string, unknown> }[] } | null } } } }).vmapviz.app;
    const op = app.lesson.lesson.stops[app.lesson.index].at.op;
    const e = app.core.frames(op)?.frames.map((f) => f.event).find((x) => x.kind === 'allocated');
    return String(e?.addr);
  });
}

test('a practice of five fresh cases: answered by keyboard, scored at the end', async ({ page }) => {
  test.setTimeout(90_000);
  const app = new AppPage(page);
  await app.open('./#lesson=practice-land-7&stop=1&lecture=1');
  const card = page.locator('[data-widget="lesson"]');
  await expect(card).toHaveAttribute('data-lesson', 'practice-land-7');
  await expect(card).toHaveAttribute('data-ask', 'land');
  await expect(card.getByTestId('lesson-head')).toContainText('stop 1 / 5');
  const score = card.getByTestId('practice-score');
  const input = card.locator('input.quiz-typed-input');
  // Stop 1: a wrong address (below the vmalloc range).
  await input.fill('0x1000');
  await input.press('Enter');
  await expect(card.getByTestId('quiz-feedback')).toHaveAttribute('data-right', 'false');
  await expect(score).toHaveText('Score: 0 of 1 answered right (5 questions).');
  // Stops 2–5: the core's answer.
  for (let stop = 2; stop <= 5; stop++) {
    // An answer's feedback takes the focus from the field (keys typed in a field are its own).
    await expect(input).not.toBeFocused();
    await page.keyboard.press('PageDown');
    await expect(card).toHaveAttribute('data-stop', String(stop));
    await expect(card).toHaveAttribute('data-revealed', 'false');
    const addr = await coreLanding(page);
    expect(addr).toMatch(/^0xffffc9/);
    await input.fill(addr);
    await input.press('Enter');
    await expect(card.getByTestId('quiz-feedback')).toHaveAttribute('data-right', 'true');
  }
  await expect(score).toHaveText('Practice done: 4 of 5 right.');
  await expect(score).toHaveAttribute('data-done', 'true');
  // The practice ends there: no next lesson.
  await expect(card.locator('button', { hasText: 'Next stop' })).toBeDisabled();
  expect(app.problems).toEqual([]);
});

test('the same seed, the same practice; another seed, other cases', async ({ page }) => {
  const app = new AppPage(page);
  const ops = async (seed: number) => {
    await page.goto('about:blank');
    await app.open(`./#lesson=practice-land-${seed}&stop=1&lecture=1`);
    await expect(page.locator('[data-widget="lesson"]')).toHaveAttribute('data-lesson', `practice-land-${seed}`);
    return page.evaluate(() => (window as unknown as { vmapviz: { app: { lesson: { lesson: { stops: { at: { op: number } }[] } } } } }).vmapviz.app.lesson.lesson.stops.map((s) => s.at.op));
  };
  const a = await ops(11);
  expect(await ops(11)).toEqual(a);
  expect(await ops(12)).not.toEqual(a);
});

test('a lesson\'s "where does it land?" offers practice once answered', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=free-tree&stop=3&lecture=1');
  const card = page.locator('[data-widget="lesson"]');
  const practise = card.locator('button[data-action="quiz-practise"]');
  // The stop's question is posed before the lecturer's key reveals it (a key before it is lost).
  await expect(card).toHaveAttribute('data-ask', 'land');
  await expect(practise).toBeHidden();
  await page.keyboard.press('r');
  await expect(practise).toBeVisible();
  await practise.click();
  await expect(card).toHaveAttribute('data-lesson', /^practice-land-\d+$/);
  await expect(card).toHaveAttribute('data-ask', 'land');
  await expect(page).toHaveURL(/lecture=1/);
  expect(app.problems).toEqual([]);
});

/** The node the core's search visits at the current practice stop's question (its nth visit). */
async function coreVisit(page: Page): Promise<number> {
  return page.evaluate(() => {
    const app = (window as unknown as { vmapviz: { app: { lesson: { lesson: { stops: { at: { op: number }; ask: { nth?: number } }[] }; index: number }; core: { frames(op: number): { frames: { event: Record<string, unknown> }[] } | null } } } }).vmapviz.app;
    const stop = app.lesson.lesson.stops[app.lesson.index];
    const visits = (app.core.frames(stop.at.op)?.frames ?? []).map((f) => f.event).filter((e) => e.kind === 'visit');
    return Number(visits[stop.ask.nth ?? 0]?.id);
  });
}

test('a practice of "which node next?": five visits of the core\'s search, scored', async ({ page }) => {
  test.setTimeout(90_000);
  const app = new AppPage(page);
  await app.open('./#lesson=practice-visit-7&stop=1&lecture=1');
  const card = page.locator('[data-widget="lesson"]');
  await expect(card).toHaveAttribute('data-lesson', 'practice-visit-7');
  await expect(card.getByTestId('lesson-head')).toContainText('stop 1 / 5');
  const score = card.getByTestId('practice-score');
  const input = card.locator('input.quiz-typed-input');
  for (let stop = 1; stop <= 5; stop++) {
    // Once revealed, PageDown goes on to the stop's own micro-step (the fit), then to the next stop.
    if (stop > 1) {
      // An answer's feedback takes the focus from the field (keys typed in a field are its own).
      await expect(input).not.toBeFocused();
      await page.keyboard.press('PageDown');
      await expect(page.locator('[data-widget="narration"]')).toHaveAttribute('data-event-kind', 'fit');
      await page.keyboard.press('PageDown');
    }
    await expect(card).toHaveAttribute('data-stop', String(stop));
    await expect(card).toHaveAttribute('data-ask', 'visit');
    await expect(card).toHaveAttribute('data-revealed', 'false');
    const node = await coreVisit(page);
    expect(Number.isInteger(node)).toBe(true);
    // The first answer wrong (a node number the tree has not), the rest right.
    await input.fill(stop === 1 ? `#${node + 1000}` : `#${node}`);
    await input.press('Enter');
    await expect(card.getByTestId('quiz-feedback')).toHaveAttribute('data-right', String(stop !== 1));
    await expect(card.getByTestId('quiz-feedback')).toContainText(`#${node}`);
  }
  await expect(score).toHaveText('Practice done: 4 of 5 right.');
  expect(app.problems).toEqual([]);
});

test('a lesson\'s "which node next?" offers a practice of its own kind once answered', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=free-tree&stop=13&lecture=1');
  const card = page.locator('[data-widget="lesson"]');
  const practise = card.locator('button[data-action="quiz-practise"]');
  await expect(card).toHaveAttribute('data-ask', 'visit');
  await expect(practise).toBeHidden();
  await page.keyboard.press('r');
  await expect(practise).toBeVisible();
  await practise.click();
  await expect(card).toHaveAttribute('data-lesson', /^practice-visit-\d+$/);
  await expect(card).toHaveAttribute('data-ask', 'visit');
  expect(app.problems).toEqual([]);
});
