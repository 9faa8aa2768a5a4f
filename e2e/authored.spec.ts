// Issue 60, item 7: a lesson a lecturer writes. Two micro-steps of a trace saved as stops (one with
// a question whose answer is the core's), the lesson copied as one link and opened in a fresh
// page (the same picture at each stop and micro-step, the question answered), downloaded as JSON
// and opened from the file, and a tampered or damaged link refused with its message, nothing
// opened. The form is axe clean.
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { AppPage } from './pages/app';
import { PlayerWidget } from './pages/player';
import { axeViolations } from './support/axe';

// One free block [0x10000, 0x30000): op 2 is an LE fit at 0x10000, op 4 an NE fit that puts a
// 64 KiB-aligned page at 0x20000 (the free block is then [0x11000, 0x2f000)).
const FITS = [
  'profile linux-5.2',
  'init 0x10000 0x30000',
  'alloc 0x1000 0x1000 0x10000 0x30000',
  'alloc 0x1000 0x1000 0x2f000 0x30000',
  'alloc 0x1000 0x10000 0x10000 0x30000',
].join('\n');

const card = (page: Page) => page.locator('[data-widget="lesson"]');
const form = (page: Page) => page.locator('[data-widget="authoring"]');

/** What the picture shows (as lesson-links.spec.ts compares it). */
async function picture(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const app = document.querySelector('#app') as HTMLElement;
    const txt = (sel: string) => (document.querySelector(sel)?.textContent ?? '').replace(/\s+/g, ' ').trim();
    const marks = [...document.querySelectorAll('[data-widget="free-tree"] g.node[data-mark]')]
      .map((e) => `${e.getAttribute('data-id')}:${e.getAttribute('data-mark')}`)
      .sort()
      .join(',');
    return {
      step: app.dataset.step ?? '',
      frame: app.dataset.frame ?? '',
      card: txt('[data-widget="lesson"] .lesson-head') + ' | ' + txt('[data-widget="lesson"] .lesson-title'),
      text: txt('[data-widget="lesson"] .lesson-text'),
      ask: (document.querySelector('[data-widget="lesson"]') as HTMLElement | null)?.dataset.ask ?? '',
      revealed: (document.querySelector('[data-widget="lesson"]') as HTMLElement | null)?.dataset.revealed ?? '',
      narration: txt('[data-widget="narration"] .narration-title') + ' | ' + txt('[data-widget="narration"] .narration-text'),
      line: (document.querySelector('[data-widget="code"]') as HTMLElement | null)?.dataset.line ?? '',
      marks,
    };
  });
}

/** The micro-step of operation `op` whose event is a fit (read from the core's events). */
async function fitFrame(app: AppPage, op: number): Promise<number> {
  const kinds = await app.coreKinds(op);
  const f = kinds.indexOf('fit');
  expect(f, `op ${op}: ${kinds.join(' ')}`).toBeGreaterThan(0);
  return f;
}

async function goTo(page: Page, op: number, frame: number): Promise<void> {
  await page.evaluate(([o, f]) => window.vmapviz?.app.goToFrame(o, f), [op, frame]);
  await expect.poll(() => new PlayerWidget(page).position()).toEqual({ op, frame });
}

/** Two stops saved from the trace: the NE fit with its "where does it land" question, then the LE fit. */
async function writeLesson(page: Page, app: AppPage): Promise<{ ne: number; le: number }> {
  await app.openTrace(FITS);
  const ne = await fitFrame(app, 4);
  const le = await fitFrame(app, 2);
  await page.locator('[data-tool="author"]').click();
  await expect(form(page)).toBeVisible();
  await form(page).getByRole('button', { name: 'Clear' }).click();
  await form(page).getByLabel('Lesson title').fill('Fits, my way');
  await goTo(page, 4, ne);
  await expect(form(page).getByTestId('authoring-at')).toContainText(`At operation 5, micro-step ${ne + 1} of`);
  await expect(form(page).getByTestId('authoring-at')).toContainText('the core\'s event is fit');
  await form(page).getByLabel('Stop title').fill('Where does the aligned page go?');
  await form(page).getByLabel(/What to say/).fill('The request asks for a 64 KiB alignment. Inside the free block that is 0x20000, so the block splits in two.');
  // The only question the core answers at a fit: where the request lands, its answer the core's.
  const question = form(page).getByLabel(/A question before the step/);
  await expect(question.locator('option')).toHaveText(['No question', 'Where will this allocation land?']);
  await question.selectOption({ index: 1 });
  await expect(form(page).getByTestId('authoring-answer')).toHaveText('The core\'s answer, shown with the reveal: [0x20000, 0x21000).');
  await form(page).getByRole('button', { name: 'Save this micro-step as a stop' }).click();
  await expect(form(page).getByTestId('authoring-status')).toHaveText(`Saved as stop 1, with its question (land): the core's fit event at operation 5, micro-step ${ne + 1}.`);
  // The player's keys work from the form's buttons, and the form follows the micro-step.
  await expect(form(page).getByRole('button', { name: 'Save this micro-step as a stop' })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => new PlayerWidget(page).position()).toEqual({ op: 4, frame: ne + 1 });
  await expect(form(page).getByTestId('authoring-at')).toContainText(`At operation 5, micro-step ${ne + 2} of`);
  await goTo(page, 2, le);
  await form(page).getByLabel('Stop title').fill('LE: from the left');
  await form(page).getByLabel(/What to say/).fill('The first page goes at the block\'s start. The block shrinks from the left.');
  await form(page).getByRole('button', { name: 'Save this micro-step as a stop' }).click();
  await expect(form(page).getByTestId('authoring-status')).toContainText('Saved as stop 2: the core\'s fit event at operation 3');
  await expect(form(page).getByTestId('authoring-stops').locator('li')).toHaveCount(2);
  return { ne, le };
}

async function grant(context: BrowserContext): Promise<void> {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
}

test('two stops saved, the link copied and opened fresh: the same pictures, and the question works', async ({ page, context }) => {
  await grant(context);
  const app = new AppPage(page);
  const { ne, le } = await writeLesson(page, app);
  // Reordered and back: the list follows.
  await form(page).getByRole('button', { name: 'Move stop 2 up' }).click();
  await expect(form(page).getByTestId('authoring-stops').locator('li').first()).toContainText('LE: from the left');
  await form(page).getByRole('button', { name: 'Move stop 2 up' }).click();
  await expect(form(page).getByTestId('authoring-stops').locator('li').first()).toContainText('Where does the aligned page go?');
  expect(await axeViolations(page)).toEqual([]);
  await form(page).getByRole('button', { name: 'Copy link' }).click();
  await expect(form(page).getByTestId('authoring-copied')).toHaveText('Link copied.');
  const url = await page.evaluate(() => navigator.clipboard.readText());
  expect(url).toMatch(/#lesson=authored\.[A-Za-z0-9_-]+&stop=1$/);
  // The draft survives a reload (localStorage).
  await page.reload();
  await app.waitReady();
  await page.locator('[data-tool="author"]').click();
  await expect(form(page).getByTestId('authoring-stops').locator('li')).toHaveCount(2);
  // Played here: the lesson's first stop asks before it shows the fit.
  await form(page).getByRole('button', { name: '▶ Play' }).click();
  await expect(form(page)).toBeHidden();
  await expect(card(page)).toHaveAttribute('data-ask', 'land');
  await expect(card(page)).toHaveAttribute('data-revealed', 'false');
  await expect(card(page).locator('.lesson-head')).toHaveText('Fits, my way · stop 1 / 2');
  const here = await picture(page);

  const fresh = await context.newPage();
  const freshApp = new AppPage(fresh);
  await freshApp.open(url);
  await expect(card(fresh)).toHaveAttribute('data-ask', 'land');
  await expect.poll(() => picture(fresh)).toEqual(here);
  // The question: asked before the operation, answered by typing the address; the reveal shows the fit.
  expect(await new PlayerWidget(fresh).position()).toEqual({ op: 4, frame: -1 });
  await fresh.getByTestId('quiz-typed').getByRole('textbox').fill('0x20000');
  await fresh.getByTestId('quiz-typed').getByRole('button', { name: 'Answer' }).click();
  await expect(fresh.getByTestId('quiz-feedback')).toHaveText(/^Right\. Answer: \[0x20000, 0x21000\): find_vmap_lowest_match's lowest block that fits is \[0x11000, 0x2f000\), an NE fit\.$/);
  await expect.poll(() => new PlayerWidget(fresh).position()).toEqual({ op: 4, frame: ne });
  await expect(card(fresh).locator('.lesson-title')).toHaveText('Where does the aligned page go?');
  await expect(card(fresh).getByTestId('lesson-claim')).toHaveText('On screen: a fit (FL, LE, RE, NE), as the core reports it.');
  // The same micro-step on the lecturer's page.
  await page.keyboard.press('r');
  await expect.poll(() => new PlayerWidget(page).position()).toEqual({ op: 4, frame: ne });
  // The second stop, in both pages: the LE fit, and a link to the micro-step after it reopens it.
  await fresh.keyboard.press('n');
  await page.keyboard.press('n');
  await expect.poll(() => new PlayerWidget(fresh).position()).toEqual({ op: 2, frame: le });
  await expect.poll(() => picture(fresh)).toEqual(await picture(page));
  await fresh.keyboard.press('ArrowRight');
  await expect.poll(() => fresh.evaluate(() => location.hash)).toMatch(new RegExp(`^#lesson=authored\\.[A-Za-z0-9_-]+&stop=2&step=2&frame=${le + 1}$`));
  const third = await context.newPage();
  await new AppPage(third).open(fresh.url());
  await expect.poll(() => new PlayerWidget(third).position()).toEqual({ op: 2, frame: le + 1 });
  await expect.poll(() => picture(third)).toEqual(await picture(fresh));
  expect(app.problems).toEqual([]);
  expect(freshApp.problems).toEqual([]);
});

test('the lesson downloaded as JSON opens from the file; a tampered copy is refused, naming the stop', async ({ page, context }) => {
  const app = new AppPage(page);
  const { ne } = await writeLesson(page, app);
  const [download] = await Promise.all([page.waitForEvent('download'), form(page).getByRole('button', { name: 'Download JSON' }).click()]);
  expect(download.suggestedFilename()).toBe('fits-my-way.vmapviz-lesson.json');
  const path = await download.path();
  const json = JSON.parse(readFileSync(path, 'utf8')) as { format: string; version: number; title: string; traces: Record<string, string>; stops: { op: number; frame: number; claim: { event: string; where: Record<string, unknown> }; ask?: unknown }[] };
  expect([json.format, json.version, json.title]).toEqual(['vmapviz-lesson', 1, 'Fits, my way']);
  // The trace as the core gives it back (a newline after its last line).
  expect(json.traces).toEqual({ t1: `${FITS}\n` });
  expect(json.stops.map((s) => [s.op, s.frame, s.claim.event, s.claim.where.fit])).toEqual([
    [4, ne, 'fit', 'NE'],
    [2, expect.any(Number), 'fit', 'LE'],
  ]);
  expect(json.stops[0].ask).toEqual({ ask: 'land', nth: 0, answer: { start: '0x20000', end: '0x21000' } });

  const fresh = await context.newPage();
  const freshApp = new AppPage(fresh);
  await freshApp.open('./');
  await fresh.locator('[data-tool="author"]').click();
  await form(fresh).getByTestId('authoring-file').setInputFiles({ name: 'fits.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(json)) });
  await expect(card(fresh).locator('.lesson-head')).toHaveText('Fits, my way · stop 1 / 2');
  await expect(card(fresh)).toHaveAttribute('data-ask', 'land');

  // The claim of stop 1 changed by hand: refused from the file, with what differs.
  const tampered = structuredClone(json);
  tampered.stops[0].claim.where.fit = 'LE';
  await fresh.locator('[data-tool="author"]').click();
  await form(fresh).getByTestId('authoring-file').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(tampered)) });
  await expect(form(fresh).getByTestId('authoring-error')).toHaveText('bad.json: Stop 1 ("Where does the aligned p…"): the stop claims fit "LE" but the core\'s fit event there has fit "NE".');
  // A file dropped on the form: damaged JSON is said, a good lesson plays.
  const drop = (name: string, text: string) =>
    form(fresh).evaluate(
      (root, [n, t]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([t], n, { type: 'application/json' }));
        root.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      [name, text],
    );
  await drop('junk.json', '{"format": "vmapviz-lesson", ');
  await expect(form(fresh).getByTestId('authoring-error')).toContainText(/^junk\.json: The lesson is not JSON: /);
  await drop('good.json', JSON.stringify({ ...json, title: 'Dropped' }));
  await expect(card(fresh).locator('.lesson-head')).toHaveText('Dropped · stop 1 / 2');
  expect(freshApp.problems).toEqual([]);
});

test('a tampered or damaged link is refused with its message, nothing opened', async ({ page }) => {
  const app = new AppPage(page);
  const { ne } = await writeLesson(page, app);
  const [download] = await Promise.all([page.waitForEvent('download'), form(page).getByRole('button', { name: 'Download JSON' }).click()]);
  const json = JSON.parse(readFileSync(await download.path(), 'utf8')) as { stops: { ask?: { answer: Record<string, string> } }[] };
  const pack = (v: unknown) => deflateRawSync(Buffer.from(typeof v === 'string' ? v : JSON.stringify(v))).toString('base64url');
  const wrong = structuredClone(json);
  wrong.stops[0].ask!.answer = { start: '0x11000', end: '0x12000' };
  const cases: [string, string][] = [
    [pack(wrong), 'This lesson is refused: Stop 1 ("Where does the aligned p…"): its question\'s answer is {"start":"0x11000","end":"0x12000"} but the core\'s is {"start":"0x20000","end":"0x21000"}.'],
    ['abc$def', 'This lesson is refused: The lesson\'s link is not base64url: "$" at character 4.'],
    [Buffer.from([0xff, 0xff, 0xff]).toString('base64url'), 'This lesson is refused: The lesson\'s link does not unpack: it is not deflate-raw data'],
    [pack('not json'), 'This lesson is refused: The lesson is not JSON: '],
    [pack({ format: 'vmapviz-lesson', version: 9 }), 'This lesson is refused: The lesson is of schema version "9"; this page reads version 1.'],
    [deflateRawSync(Buffer.alloc(32 * 1024 * 1024)).toString('base64url'), 'This lesson is refused: The lesson\'s link unpacks to more than 256 KB: refused.'],
  ];
  for (const [packed, message] of cases) {
    const p = await page.context().newPage();
    const a = new AppPage(p);
    await a.open(`./#lesson=authored.${packed}&stop=1`);
    await expect(a.loadError).toContainText(message);
    // Nothing half-opened: no lesson card, the default scenario.
    await expect(card(p)).toBeHidden();
    expect(a.problems).toEqual([]);
    await p.close();
  }
  expect(ne).toBeGreaterThan(0);
});

test('in lecture mode a refused link says so on screen too', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const app = new AppPage(page);
  await app.open('./#lesson=authored.abc$def&stop=1&lecture=1');
  await expect(page.locator('body')).toHaveClass(/lecture/);
  await expect(app.loadError).toBeVisible();
  await expect(app.loadError).toContainText('This lesson is refused: The lesson\'s link is not base64url: "$" at character 4.');
  await expect(card(page)).toBeHidden();
  expect(app.problems).toEqual([]);
});

test('the picker leads to the form; in lecture mode it is axe clean, 16 px at least, and takes the lesson shown back into the draft', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const app = new AppPage(page);
  await writeLesson(page, app);
  await form(page).getByRole('button', { name: '▶ Play' }).click();
  await expect(card(page).locator('.lesson-head')).toHaveText('Fits, my way · stop 1 / 2');
  await page.locator('[data-tool="lecture"]').click();
  await expect(page.locator('body')).toHaveClass(/lecture/);
  await page.locator('[data-tool="lessons"]').click();
  const own = page.locator('button[data-action="lesson-author"]');
  await expect(own).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await own.click();
  await expect(form(page)).toBeVisible();
  await expect(form(page).getByLabel('Stop title')).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);
  const small = await form(page).evaluate((root) =>
    [...root.querySelectorAll<HTMLElement>('h2, h3, p, label, input, textarea, select, button, li')]
      .filter((e) => e.getClientRects().length > 0 && parseFloat(getComputedStyle(e).fontSize) < 16)
      .map((e) => `${e.tagName} ${e.textContent?.slice(0, 30)} ${getComputedStyle(e).fontSize}`),
  );
  expect(small).toEqual([]);
  // The draft changed, then the lesson shown taken back into it.
  await form(page).getByRole('button', { name: 'Remove stop 2' }).click();
  await expect(form(page).getByTestId('authoring-stops').locator('li')).toHaveCount(1);
  page.once('dialog', (d) => void d.accept());
  await form(page).getByRole('button', { name: 'Edit the lesson shown' }).click();
  await expect(form(page).getByTestId('authoring-stops').locator('li')).toHaveCount(2);
  await expect(form(page).getByTestId('authoring-status')).toHaveText('The draft is now "Fits, my way" (2 stops).');
  await page.keyboard.press('Escape');
  await expect(form(page)).toBeHidden();
  expect(app.problems).toEqual([]);
});
