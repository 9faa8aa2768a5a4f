// Issue 16, teaching correctness: the narration is right at the steps a lecturer shows (the
// issue's two reproductions), every number on screen counts operations the same way, the bar
// follows the micro-steps, and scenarios open at their start (or at the step they are about).
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { Workbench } from './panels/workbench';

const vector = (name: string) => readFileSync(new URL(`../../shared/conformance/${name}.trace`, import.meta.url), 'utf8');

/** The step, micro-step and narration the page shows. */
async function shown(app: AppPage) {
  return {
    step: await app.player.stepLabel.textContent(),
    frame: await app.player.frameLabel.textContent(),
    kind: await app.narration.kind(),
    head: await app.narration.root.locator('.narration-op').textContent(),
    title: await app.narration.root.locator('.narration-title').textContent(),
    text: await app.narration.text.textContent(),
    fn: await app.code.root.getAttribute('data-function'),
    line: await app.code.root.getAttribute('data-line'),
    code: await app.code.root.textContent(),
  };
}

async function press(page: Page, key: string, times: number) {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

test('the issue\'s first reproduction: op 9 of the default page, its insert fix-up and link_va\'s reset', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await page.keyboard.press('Home');
  await press(page, 'Shift+ArrowRight', 8);
  await expect(app.player.stepLabel).toHaveText('8 / 13 done');
  await expect(app.player.frameLabel).toHaveText('next: op 9');
  await expect(app.narration.text).toContainText('Next: op 9, free 0xffffc90000002000');
  // Walk op 9's micro-steps: no step of this free's insert is told as an erase's copy, every
  // rotate callback follows its rotation, and a reset of the new node's max names link_va.
  const seen: Awaited<ReturnType<typeof shown>>[] = [];
  for (;;) {
    await page.keyboard.press('ArrowRight');
    const s = await shown(app);
    if (s.step !== 'op 9 / 13') break;
    seen.push(s);
    // One count everywhere: the transport, the narration's head and the list agree.
    expect(s.head).toContain('op 9');
    expect(s.head).not.toMatch(/line \d/);
    expect(s.frame).toMatch(/^micro-step \d+ \/ \d+$/);
  }
  expect(seen.length).toBeGreaterThan(5);
  expect(seen.map((s) => s.title)).not.toContain('Copy callback');
  for (const s of seen) expect(s.text).not.toMatch(/successor takes the erased node/);
  // Micro-step 5, where the issue saw the copy callback and the erase pseudocode.
  expect(seen[4].kind).not.toBe('augment_set');
  // The code panel shows the insert fix-up's pseudocode during it, never the erase's.
  for (const s of seen) expect(s.code).not.toContain('the successor inherits');
  const i = seen.findIndex((s) => s.title === 'Rotate callback');
  if (i >= 0) {
    expect(seen[i - 1].kind === 'rotate' || seen[i - 1].title === 'Rotate callback').toBe(true);
    expect(seen[i].text).toContain('insert fix-up');
    expect([seen[i].fn, seen[i].line]).toEqual(['__rb_insert', 'aug']);
    expect(seen[i].code).toContain('case 2, x is the inner grandchild');
  }
  const reset = seen.find((s) => s.title === 'Reset max');
  expect(reset?.text).toMatch(/link_va resets its subtree_max_size .* → 0x0/);
  expect([reset?.fn, reset?.line]).toEqual(['link_va', 'zero']);
  expect(seen.some((s) => /Rotate callback recomputes .* → 0x0$/.test(s.text ?? ''))).toBe(false);
  expect(app.problems).toEqual([]);
});

test('the issue\'s second reproduction: 03_merges op 11 micro-step 3 shows the range before and after', async ({ page }) => {
  const app = new AppPage(page);
  await app.openTrace(vector('03_merges'), 10);
  await press(page, 'ArrowRight', 3);
  await expect(app.player.stepLabel).toHaveText('op 11 / 20');
  await expect(app.player.frameLabel).toHaveText(/^micro-step 3 \//);
  await expect(app.narration.root.locator('.narration-op')).toContainText('op 11');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'merge');
  await expect(app.narration.text).toContainText('[0x102000, 0x103000) grows down to [0x101000, 0x103000)');
  // And the merge with the previous block (op 13, `free 0x103000`).
  await page.keyboard.press('End');
  await app.ops.op(11).click();
  for (let k = 0; k < 10; k++) {
    await page.keyboard.press('ArrowRight');
    if ((await app.narration.kind()) === 'merge') break;
  }
  await expect(app.narration.text).toContainText('[0x101000, 0x103000) grows up to [0x101000, 0x104000)');
});

test('after an area\'s unbusy micro-step the bar no longer draws it busy', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await app.ops.op(7).click(); // 8 done: the next operation frees [0xffffc90000002000, +0x3000)
  const busyAt = (start: string) => app.bar.root.locator(`g.area[data-state="busy"][data-va-start="${start}"]`);
  await expect(busyAt('0xffffc90000002000')).toHaveCount(1);
  for (let k = 0; k < 10 && (await app.narration.kind()) !== 'busy_remove'; k++) await page.keyboard.press('ArrowRight');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'busy_remove');
  await expect(app.narration.text).toContainText('leaves the busy tree');
  await expect(busyAt('0xffffc90000002000')).toHaveCount(0);
  // Back one micro-step: busy again (the state before).
  await page.keyboard.press('ArrowLeft');
  await expect(busyAt('0xffffc90000002000')).toHaveCount(1);
});

test('the default page opens mid-scenario (a search reusing a hole, at its fit), ready to play on', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  await expect(app.player.stepLabel).toHaveText('op 12 / 13');
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'fit');
  await expect(app.player.play).toBeEnabled();
  await expect(app.player.forward).toBeEnabled();
  await expect(page).toHaveURL(/&step=11&frame=4$/);
  // Home is the scenario's start, as before.
  await page.keyboard.press('Home');
  await expect(app.player.stepLabel).toHaveText('0 / 13 done');
  await expect(app.narration.text).toContainText('Next: op 1,');
  await page.keyboard.press(' ');
  await expect(app.player.root).toHaveAttribute('data-playing', 'true');
  await page.keyboard.press(' ');
  await expect(app.player.root).toHaveAttribute('data-playing', 'false');
});

test('a permalink\'s step= still wins; without it the link opens at the end', async ({ page }) => {
  const app = new AppPage(page);
  const trace = vector('01_first_allocs');
  await app.openTrace(trace, 3);
  await expect(app.player.stepLabel).toHaveText('3 / 8 done');
  await app.open(`./#trace=${encodeURIComponent(trace)}`);
  await expect(app.player.stepLabel).toHaveText('8 / 8 done');
});

test('an empty #trace= says so and opens the default scenario', async ({ page }) => {
  const app = new AppPage(page);
  await app.open('./#trace=&step=end');
  await expect(app.loadError).toBeVisible();
  await expect(app.loadError).toContainText('trace is empty');
  await expect(app.narration.text).not.toContainText('Step back with');
  await expect(app.player.stepLabel).toHaveText('0 / 13 done');
  await expect(app.player.play).toBeEnabled();
});

test('trace line numbers do not depend on comments: operations are named by their number', async ({ page }) => {
  const app = new AppPage(page);
  const trace = vector('03_merges'); // with comments
  await app.openTrace(trace, 10);
  const head = async () => app.narration.root.locator('.narration-op').textContent();
  const withComments = await head();
  const bare = trace
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'))
    .join('\n');
  await app.openTrace(bare, 10);
  expect(await head()).toBe(withComments);
  expect(withComments).toContain('op 11');
  expect(withComments).not.toMatch(/line/);
});

test('workloads and node scenarios open at their start; "a pool hit skips the tree" just before its pool hit', async ({ page }) => {
  const wb = new Workbench(page);
  const app = new AppPage(page);
  await wb.open();
  await wb.workload('merge_both_neighbours');
  await wb.generate();
  await expect(app.player.stepLabel).toHaveText(/^0 \/ \d+ done$/);
  await expect(app.player.play).toBeEnabled();

  await wb.tab('nodes');
  await wb.nodes.locator('button[data-action="scenario-decay"] >> visible=true').first().click();
  await expect(app.player.stepLabel).toHaveText(/^0 \/ \d+ done$/);
  await expect(app.player.forward).toBeEnabled();

  await wb.nodes.locator('button[data-action="scenario-pool_hit"] >> visible=true').first().click();
  await expect(app.player.stepLabel).toHaveText(/^14 \/ \d+ done$/);
  await expect(app.narration.text).toContainText('Next: op 15, alloc 0x2000');
  await page.locator('[data-widget="player"] button[data-action="next"]').click();
  await expect(app.narration.root).toHaveAttribute('data-event-kind', 'pool_hit');
  await expect(app.narration.text).toContainText('the free tree is not searched');
});
