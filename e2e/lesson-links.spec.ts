// Issue 60, items 4 and 6: a lesson's link carries the micro-step shown (and a revealed answer), the
// address bar follows the lecturer's → / ←, Copy link is on the card in lecture mode and in the
// presenter view, and a copied link reopens the same picture. The presenter view's keys drive the
// page as its own keys do: b and . blank it, → / ← micro-step, PgDn / PgUp go from stop to stop;
// its timer runs against the lesson's minutes.
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { PlayerWidget } from './pages/player';
import { Workbench } from './panels/workbench';

test.use({ viewport: { width: 1280, height: 720 } });

const card = (page: Page) => page.locator('[data-widget="lesson"]');

/** What the picture shows, in words and marks: the same link must give the same. */
async function picture(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const app = document.querySelector('#app') as HTMLElement;
    const txt = (sel: string) => (document.querySelector(sel)?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const marks = [...document.querySelectorAll('[data-widget="free-tree"] g.node[data-mark], [data-widget="maple-tree"] g.maple-node.current')]
      .map((e) => `${e.getAttribute('data-id') ?? e.getAttribute('data-maple-id')}:${e.getAttribute('data-mark') ?? 'current'}`)
      .sort()
      .join(',');
    return {
      step: app.dataset.step ?? '',
      frame: app.dataset.frame ?? '',
      lecture: String(document.body.classList.contains('lecture')),
      card: txt('[data-widget="lesson"] .lesson-head') + ' | ' + txt('[data-widget="lesson"] .lesson-title'),
      revealed: (document.querySelector('[data-widget="lesson"]') as HTMLElement | null)?.dataset.revealed ?? '',
      narration: txt('[data-widget="narration"] .narration-title') + ' | ' + txt('[data-widget="narration"] .narration-text'),
      line: (document.querySelector('[data-widget="code"]') as HTMLElement | null)?.dataset.line ?? '',
      callouts: [...document.querySelectorAll('g.callout')].map((e) => e.textContent).join(' / '),
      marks,
    };
  });
}

async function grant(context: BrowserContext): Promise<void> {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
}

async function reopen(context: BrowserContext, url: string): Promise<Page> {
  const fresh = await context.newPage();
  const app = new AppPage(fresh);
  await app.open(url);
  await expect(card(fresh)).toBeVisible();
  return fresh;
}

test('the address bar follows the micro-step, Copy link in lecture mode copies it, and the link reopens the same picture', async ({ page, context }) => {
  await grant(context);
  const app = new AppPage(page);
  const player = new PlayerWidget(page);
  await app.open('./#lesson=free-tree&stop=9&lecture=1');
  await expect(card(page)).toHaveAttribute('data-stop', '9');
  const own = await player.position();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const moved = await player.position();
  expect(moved).not.toEqual(own);
  await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#lesson=free-tree&stop=9&step=${moved.op}&frame=${moved.frame}&lecture=1`);
  // Copy link is on the card in lecture mode.
  const copy = card(page).locator('button[data-action="lesson-copy-link"]');
  await expect(copy).toBeVisible();
  await copy.click();
  await expect(card(page).getByTestId('lesson-copied')).toHaveText('Link copied.');
  const url = await page.evaluate(() => navigator.clipboard.readText());
  expect(url).toBe(page.url());
  const want = await picture(page);
  const fresh = await reopen(context, url);
  await expect.poll(() => new PlayerWidget(fresh).position()).toEqual(moved);
  await expect.poll(() => picture(fresh)).toEqual(want);
  // Back on the stop's own micro-step, the link is the stop's plain one again.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect.poll(() => page.evaluate(() => location.hash)).toBe('#lesson=free-tree&stop=9&lecture=1');
  expect(app.problems).toEqual([]);
});

test('a revealed answer travels with the link, and a micro-step past the trace is said and refused', async ({ page, context }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=maple&stop=3&lecture=1');
  await expect(card(page)).toHaveAttribute('data-revealed', 'false');
  await page.keyboard.press('r');
  await expect(card(page)).toHaveAttribute('data-revealed', 'true');
  await expect.poll(() => page.evaluate(() => location.hash)).toContain('&answer=1');
  const want = await picture(page);
  const fresh = await reopen(context, page.url());
  await expect(card(fresh)).toHaveAttribute('data-revealed', 'true');
  await expect.poll(() => picture(fresh)).toEqual(want);
  // A damaged link: the stop as it opens, and a message naming what was wrong.
  const bad = await context.newPage();
  const badApp = new AppPage(bad);
  await badApp.open('./#lesson=free-tree&stop=9&step=999&frame=3&lecture=1');
  await expect(card(bad)).toHaveAttribute('data-stop', '9');
  await expect(card(bad)).toHaveAttribute('data-at-stop', 'true');
  await expect(badApp.loadError).toContainText('past this lesson\'s trace');
});

test('the presenter view: b and . blank the page, → / ← micro-step it, PgDn goes on; a timer against the minutes; Copy link', async ({ page, context }) => {
  await grant(context);
  const app = new AppPage(page);
  const player = new PlayerWidget(page);
  await app.open('./#lesson=free-tree&stop=9&lecture=1');
  await expect(card(page)).toHaveAttribute('data-stop', '9');
  const [p] = await Promise.all([context.waitForEvent('page'), card(page).locator('button[data-action="lesson-presenter"]').click()]);
  await p.waitForLoadState();
  await expect(p.getByTestId('p-where')).toContainText('stop 9 / 14');
  // The timer counts against the lesson's 27 minutes (measured: docs/lecturers.md).
  await expect(p.getByTestId('p-clock')).toHaveText(/^\d+:\d\d \/ 27:00$/);
  const body = page.locator('body');
  await p.keyboard.press('b');
  await expect(body).toHaveAttribute('data-blank', 'true');
  await expect(p.getByTestId('p-blank')).toBeVisible();
  await p.keyboard.press('b');
  await expect(body).not.toHaveAttribute('data-blank', 'true');
  await p.keyboard.press('.');
  await expect(body).toHaveAttribute('data-blank', 'true');
  await p.keyboard.press('.');
  await expect(body).not.toHaveAttribute('data-blank', 'true');
  await expect(p.getByTestId('p-blank')).toBeHidden();
  // → / ←: one micro-step, the stop stays.
  const own = await player.position();
  await p.keyboard.press('ArrowRight');
  await expect.poll(() => player.position()).toEqual({ op: own.op, frame: own.frame + 1 });
  await expect(card(page)).toHaveAttribute('data-stop', '9');
  await expect(p.getByTestId('p-away')).toBeVisible();
  // Copy link in the presenter view: the page's picture, micro-step and all.
  await p.locator('button[data-action="p-copy-link"]').click();
  await expect(p.getByTestId('p-copied')).toHaveText('Link copied.');
  const url = await p.evaluate(() => navigator.clipboard.readText());
  expect(url).toContain(`&step=${own.op}&frame=${own.frame + 1}`);
  await p.keyboard.press('ArrowLeft');
  await expect.poll(() => player.position()).toEqual(own);
  await expect(p.getByTestId('p-away')).toBeHidden();
  // PgDn: the next stop, as before.
  await p.keyboard.press('PageDown');
  await expect(card(page)).toHaveAttribute('data-stop', '10');
  expect(app.problems).toEqual([]);
});

test('outside lecture mode the workbench\'s Copy permalink keeps the lesson, its stop and micro-step', async ({ page, context }) => {
  await grant(context);
  const wb = new Workbench(page);
  const player = new PlayerWidget(page);
  await wb.open('./#lesson=free-tree&stop=9');
  await expect(card(page)).toHaveAttribute('data-stop', '9');
  await page.locator('#app').focus();
  await page.keyboard.press('ArrowRight');
  const moved = await player.position();
  await wb.tab('io');
  await wb.root.locator('button[data-action="permalink"]').click();
  await expect(wb.permalink).toHaveValue(new RegExp(`#lesson=free-tree&stop=9&step=${moved.op}&frame=${moved.frame}$`));
  const fresh = await reopen(context, await wb.permalink.inputValue());
  await expect(card(fresh)).toHaveAttribute('data-stop', '9');
  await expect.poll(() => new PlayerWidget(fresh).position()).toEqual(moved);
});
