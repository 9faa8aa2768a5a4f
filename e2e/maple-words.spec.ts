// The page's words under maple-rfc (issue 15): the era keeps no free tree, so no text the page
// shows while stepping one of its traces may name a free tree, except the subtitle, which names
// both indexes; the tree panel's note and the timeline's legend follow the profile, and come back
// for a free-tree profile.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

const RFC = ['profile maple-rfc', 'bump off']
  .concat(Array.from({ length: 24 }, () => 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff'))
  .concat(['vfree 0xffffc90000004000', 'free 0xffffc90000008000', 'purge', 'bump on', 'alloc 0x3000 0x1 0xffffc90000000000 0xffffe8ffffffffff'])
  .join('\n');

test('under maple-rfc no text the page shows names a free tree; the tree note and the timeline legend say what is drawn', async ({ page }) => {
  const app = new AppPage(page);
  await page.goto(`./#trace=${encodeURIComponent(RFC)}&step=20`);
  await app.waitReady();
  await expect(page.locator('[data-widget="maple-tree"] .maple-node g.cells').first()).toBeAttached();
  await expect(page.locator('.subtitle')).toContainText('free tree');
  await expect(page.locator('.subtitle')).toContainText('maple');
  await expect(page.locator('#tree-note')).toContainText('occupied maple tree');
  await expect(page.locator('#tree-legend')).toBeHidden();
  await expect(page.locator('#app')).toHaveAttribute('data-markers', 'ready');
  const legend = page.getByTestId('markers-note');
  await expect(legend.locator('.mk-none')).toBeVisible();
  await expect(legend.locator('.mk-split')).toBeHidden();
  await expect(legend).toHaveAttribute('title', /maple tree keeps none/);
  // Every micro-step of the operations that are left (allocations, a vfree, a free, a purge, a bump
  // hit), walked in the page in one call with the player's own forward button: a step is drawn in
  // its click's handler. (163 micro-steps, a round trip each for the text, the step and a key
  // took 25-31 s of a test's 30 s on a loaded machine.) The text a reader sees is the player's part
  // of the page: the workbench and the subtitle left out.
  const seen = await page.evaluate(() => {
    const app = document.getElementById('app') as HTMLElement;
    const next = document.querySelector('[data-widget="player"] button[data-action="next"]') as HTMLButtonElement;
    const shown = () => {
      const wb = app.querySelector('[data-widget="workbench"]') as HTMLElement | null;
      const sub = document.querySelector('.subtitle') as HTMLElement | null;
      return app.innerText.replace(wb?.innerText ?? '\u0000', '').replace(sub?.innerText ?? '\u0000', '');
    };
    const out: { at: string; text: string }[] = [];
    for (let i = 0; i < 400 && Number(app.dataset.step) < 30; i++) {
      out.push({ at: `step ${app.dataset.step} micro-step ${app.dataset.frame}`, text: shown() });
      next.click();
    }
    return out;
  });
  for (const { at, text } of seen) expect(text, at).not.toMatch(/free tree|free-tree|subtree_max_size|red-black/i);
  await expect(page.locator('#app')).toHaveAttribute('data-step', '30');
  expect(seen.length).toBeGreaterThan(20);
  expect(app.problems).toEqual([]);
});

test('a free-tree profile after a maple-rfc trace has its own note, legend and markers back', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(RFC);
  await expect(page.locator('#tree-note')).toContainText('occupied maple tree');
  // A new link in the same page (a hash change): wait until it is the one shown.
  await app.openTrace('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\nalloc 0x4000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n');
  await expect(page.locator('#app')).toHaveAttribute('data-step', '2', { timeout: 15_000 });
  await expect(page.locator('#tree-title')).toHaveText('Free tree');
  await expect(page.locator('#tree-note')).toContainText('subtree_max_size');
  await expect(page.locator('#tree-legend')).toBeVisible();
  await expect(page.getByTestId('markers-note').locator('.mk-split')).toBeVisible();
  await expect(page.getByTestId('markers-note').locator('.mk-none')).toBeHidden();
  expect(app.problems).toEqual([]);
});
