// A phone (issue 63), at 390×844 and 412×915 with touch: every stop of every lesson shows the
// structure it is about (its `look` in web/src/lessons/catalogue.ts: the tree or the bar) and its
// words on the first screen, above the bottom bar; nothing is wider than the screen; the answers
// of a question are a finger wide; swipes step; a tap shows a node's tooltip; the default page
// opens on a picture; the notice after opening a lesson over a trace spans the width.
// PHONE_SHOTS=DIR saves a screenshot of a stop of each lesson there.
import { expect, test, type CDPSession, type Locator, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { AppPage } from './pages/app';
import { axeViolations } from './support/axe';

/** Each lesson's stops: the structure first named in their `look`, and whether they ask first. */
function catalogue(): Map<string, { picture: 'tree' | 'bar'; asks: boolean }[]> {
  const src = readFileSync(new URL('../web/src/lessons/catalogue.ts', import.meta.url), 'utf8');
  const out = new Map<string, { picture: 'tree' | 'bar'; asks: boolean }[]>();
  for (const chunk of src.split(/: Lesson = \{/).slice(1)) {
    const id = /id: '([^']+)'/.exec(chunk)?.[1];
    if (!id) continue;
    // Each stop object from its `title:` to the next one.
    const stops = chunk.split(/\n {6}title: /).slice(1);
    out.set(
      id,
      stops.map((s) => {
        const look = /look: \[([^\]]*)\]/.exec(s)?.[1].replace(/'/g, '').split(/,\s*/) ?? [];
        const picture = look.find((k) => k === 'tree' || k === 'bar');
        if (!picture) throw new Error(`a stop of ${id} names neither the tree nor the bar`);
        return { picture, asks: /\bask: \{/.test(s) };
      }),
    );
  }
  return out;
}
const LESSONS = catalogue();

const PHONES = [
  { name: '390x844', viewport: { width: 390, height: 844 }, deviceScaleFactor: 3 },
  { name: '412x915', viewport: { width: 412, height: 915 }, deviceScaleFactor: 2.625 },
];

type Box = { x: number; y: number; width: number; height: number };

/** A box in page coordinates (from the top of the document). */
async function pageBox(l: Locator): Promise<Box> {
  const b = await l.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  });
  return b;
}

/** Elements (outside SVG drawings) that reach past either edge of the screen. */
async function tooWide(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > w) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${w}`);
    for (const e of document.body.querySelectorAll('*')) {
      if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < -1 || r.right > w + 1) out.push(`${e.tagName.toLowerCase()}.${String(e.getAttribute('class') ?? '')} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    return out.slice(0, 8);
  });
}

/** Visible buttons without a name a screen reader can say. */
async function unnamedButtons(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('button')]
      .filter((b) => b.getClientRects().length > 0 && !(b.getAttribute('aria-label') ?? b.textContent ?? '').trim() && !b.getAttribute('title'))
      .map((b) => b.outerHTML.slice(0, 80)),
  );
}

/** Where the bottom bar begins (the first screen ends there). */
async function barTop(page: Page, lesson: boolean): Promise<number> {
  const bar = lesson ? page.locator('[data-action="lesson-next"]') : page.locator('[data-widget="player"] .btn-group.steps');
  const b = await bar.boundingBox();
  if (!b) throw new Error('no bottom bar');
  return b.y;
}

async function within(what: string, l: Locator, top: number, width: number): Promise<void> {
  const b = await pageBox(l);
  expect(b.height, `${what} has a height`).toBeGreaterThan(20);
  expect(b.y, `${what} starts on the first screen`).toBeGreaterThanOrEqual(0);
  expect(b.y + b.height, `${what} ends above the bottom bar (${top})`).toBeLessThanOrEqual(top + 0.5);
  expect(b.x, `${what} starts inside the screen`).toBeGreaterThanOrEqual(-0.5);
  expect(b.x + b.width, `${what} fits the width`).toBeLessThanOrEqual(width + 0.5);
}

/** One touch gesture through the browser's input pipeline (trusted events). */
async function gesture(cdp: CDPSession, from: [number, number][], to: [number, number][], steps = 6): Promise<void> {
  const pts = (p: [number, number][]) => p.map(([x, y], id) => ({ x, y, id }));
  // Each event carries its own time, 20 ms apart: the page's swipe (at most 1 s) is the same
  // gesture however slowly a loaded machine delivers the messages.
  const t0 = Date.now() / 1000;
  const at = (i: number) => t0 + i * 0.02;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: pts(from), timestamp: at(0) });
  for (let i = 1; i <= steps; i++) {
    const p = from.map(([x, y], k): [number, number] => [x + ((to[k][0] - x) * i) / steps, y + ((to[k][1] - y) * i) / steps]);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: pts(p), timestamp: at(i) });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [], timestamp: at(steps + 1) });
}

async function position(page: Page): Promise<{ op: number; frame: number }> {
  return page.evaluate(() => ({ op: window.vmapviz?.app.currentStep() ?? -9, frame: window.vmapviz?.app.currentFrame() ?? -9 }));
}

for (const phone of PHONES) {
  test.describe(`phone ${phone.name}`, () => {
    test.use({ viewport: phone.viewport, deviceScaleFactor: phone.deviceScaleFactor, hasTouch: true, isMobile: true });

    test('every stop of every lesson: its structure and its words on the first screen, nothing wider than the screen', async ({ page }) => {
      test.setTimeout(180_000);
      const app = new AppPage(page);
      const { width, height } = phone.viewport;
      await app.open('./#lesson=walk&stop=1');
      const card = page.locator('[data-widget="lesson"]');
      // Every lesson the page offers is in the catalogue read above, and the other way round.
      const offered = await page.evaluate(async () => {
        await window.vmapviz?.app.showLessons();
        const ids = [...document.querySelectorAll<HTMLElement>('[data-widget="lessons"] button[data-lesson]')].map((b) => b.dataset.lesson ?? '');
        document.querySelector<HTMLElement>('[data-widget="lessons"] .overlay-box > .btn')?.click();
        return ids;
      });
      expect(offered.sort()).toEqual([...LESSONS.keys()].sort());
      let checked = 0;
      for (const [id, stops] of LESSONS) {
        for (let i = 1; i <= stops.length; i++) {
          const stop = stops[i - 1];
          const where = `${id} stop ${i}`;
          await page.evaluate((h) => (location.hash = h), `#lesson=${id}&stop=${i}`);
          await expect(card).toHaveAttribute('data-lesson', id);
          await expect(card).toHaveAttribute('data-stop', String(i));
          await expect(card).toHaveAttribute('data-at-stop', 'true');
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          await page.evaluate(() => scrollTo(0, 0));
          const top = await barTop(page, true);
          expect(top, `${where}: the bar leaves most of the screen`).toBeGreaterThan(height - 90);
          // The structure the stop is about.
          if (stop.picture === 'tree') {
            const svg = page.locator('[data-widget="free-tree"] svg.free-tree-svg:visible, [data-widget="maple-tree"] svg.maple-tree-svg:visible');
            const nodes = svg.locator('g.node[data-id], g.maple-node');
            // Its nodes, or (a tree still empty) the view's words saying so. A stop that changes the
            // era shows the other tree's view, which draws on the frame after it appears: the
            // whole check is tried again until it holds (or the time runs out).
            await expect(async () => {
              await expect(svg, where).toHaveCount(1);
              await within(`${where}: the tree`, svg, top, width);
              await expect(svg.locator('xpath=..').locator('g.node[data-id], g.maple-node, p.empty:visible').first(), where).toBeAttached();
              if ((await nodes.count()) === 0) await within(`${where}: the empty tree's words`, svg.locator('xpath=..').locator('p.empty'), top, width);
            }, where).toPass({ timeout: 10_000 });
          } else {
            await within(`${where}: the bar`, page.locator('[data-widget="space-bar"] svg.space-bar-svg'), top, width);
          }
          // Its words (a question first: its prompt and answers, then, revealed, the words).
          if (stop.asks) {
            await expect(card, where).toHaveAttribute('data-ask', /.+/);
            await within(`${where}: the question`, card.locator('.quiz-prompt'), top, width);
            for (const b of await card.locator('.lesson-quiz .btn:visible').all()) {
              const box = await b.boundingBox();
              expect(box?.height ?? 0, `${where}: ${await b.textContent()} is a finger tall`).toBeGreaterThanOrEqual(44);
              expect(box?.width ?? 0, `${where}: ${await b.textContent()} is a finger wide`).toBeGreaterThanOrEqual(44);
            }
            // A question answered in the picture is also answered by typing, in a field a finger tall.
            for (const f of await card.locator('.quiz-typed-input:visible').all()) {
              expect((await f.boundingBox())?.height ?? 0, `${where}: the typed answer's field is a finger tall`).toBeGreaterThanOrEqual(44);
            }
            await within(`${where}: Reveal`, card.locator('[data-action="quiz-reveal"]'), top, width);
            await card.locator('[data-action="quiz-reveal"]').tap();
            await expect(card).toHaveAttribute('data-revealed', 'true');
            const onward = card.locator('[data-action="quiz-onward"]');
            if (await onward.isVisible()) await onward.tap();
            await page.evaluate(() => scrollTo(0, 0));
          }
          await within(`${where}: the words`, card.getByTestId('lesson-text'), top, width);
          await within(`${where}: the title`, card.getByTestId('lesson-title'), top, width);
          for (const b of [card.locator('[data-action="lesson-next"]'), card.locator('[data-action="lesson-prev"]')]) {
            const box = await b.boundingBox();
            expect(box?.height ?? 0, `${where}: the bar's buttons are a finger tall`).toBeGreaterThanOrEqual(44);
          }
          expect(await tooWide(page), where).toEqual([]);
          expect(await unnamedButtons(page), where).toEqual([]);
          expect(await axeViolations(page), `${where}: axe`).toEqual([]);
          if (process.env.PHONE_SHOTS && i === Math.ceil(stops.length / 2)) {
            await page.screenshot({ path: `${process.env.PHONE_SHOTS}/${phone.name}-${id}-${i}.png` });
          }
          checked++;
        }
      }
      expect(checked).toBe([...LESSONS.values()].reduce((n, s) => n + s.length, 0));
      expect(app.problems).toEqual([]);
    });

    test('the page without a link opens on a picture; the notice of a lesson opened over a trace spans the width', async ({ page }) => {
      const app = new AppPage(page);
      const { width, height } = phone.viewport;
      await app.open('./');
      const top = await barTop(page, false);
      expect(top).toBeGreaterThan(height - 90);
      await within('the bar', page.locator('[data-widget="space-bar"] svg.space-bar-svg'), top, width);
      await within('the tree', page.locator('[data-widget="free-tree"] svg.free-tree-svg'), top, width);
      for (const b of await page.locator('[data-widget="player"] .btn-group.steps .btn').all()) {
        expect((await b.boundingBox())?.height ?? 0).toBeGreaterThanOrEqual(44);
      }
      expect(await tooWide(page)).toEqual([]);
      expect(await unnamedButtons(page)).toEqual([]);
      if (process.env.PHONE_SHOTS) await page.screenshot({ path: `${process.env.PHONE_SHOTS}/${phone.name}-default.png` });
      // A trace of one's own, then a lesson's link: the notice offers to undo.
      const mine = 'init 0x10000 0x30000\nalloc 0x1000 0x1000 0x10000 0x30000\nalloc 0x3000 0x1000 0x10000 0x30000\n';
      await page.evaluate((t) => (location.hash = `#trace=${encodeURIComponent(t)}&step=end`), mine);
      await expect.poll(() => page.evaluate(() => window.vmapviz?.app.currentTrace() ?? '')).toContain('alloc 0x3000');
      const step = await app.step();
      await page.evaluate(() => (location.hash = '#lesson=free-tree&stop=5'));
      const toast = page.getByTestId('undo-toast');
      await expect(toast).toBeVisible();
      await expect(toast).toContainText('in place of your trace');
      const t = await toast.boundingBox();
      const words = await toast.locator('.undo-text').boundingBox();
      const undo = await toast.getByRole('button', { name: 'Undo' }).boundingBox();
      if (!t || !words || !undo) throw new Error('no notice');
      expect(t.x).toBeGreaterThanOrEqual(0);
      expect(t.x + t.width).toBeLessThanOrEqual(width);
      expect(t.width, 'the notice spans the width').toBeGreaterThan(width - 40);
      expect(t.y + t.height, 'the notice is above the bottom bar').toBeLessThanOrEqual(await barTop(page, true));
      expect(undo.y, 'Undo on a line of its own, under the words').toBeGreaterThanOrEqual(words.y + words.height - 0.5);
      expect(undo.height, 'Undo in one line, a finger tall').toBeGreaterThanOrEqual(44);
      expect(undo.height).toBeLessThan(60);
      expect(undo.width).toBeGreaterThan(80);
      expect(await tooWide(page)).toEqual([]);
      if (process.env.PHONE_SHOTS) await page.screenshot({ path: `${process.env.PHONE_SHOTS}/${phone.name}-notice.png` });
      await toast.getByRole('button', { name: 'Undo' }).tap();
      await expect(toast).toBeHidden();
      await expect.poll(() => page.evaluate(() => window.vmapviz?.app.currentTrace() ?? '')).toContain('alloc 0x3000');
      expect(await app.step()).toBe(step);
      expect(app.problems).toEqual([]);
    });

    test('a lesson link from lecture mode (&lecture=1) opens likewise: the tree and the words on the first screen', async ({ page }) => {
      const app = new AppPage(page);
      const { width } = phone.viewport;
      await app.open('./#lesson=free-tree&stop=5&lecture=1');
      await expect(page.locator('body')).toHaveClass(/\blecture\b/);
      const card = page.locator('[data-widget="lesson"]');
      await expect(card).toHaveAttribute('data-at-stop', 'true');
      const top = await barTop(page, true);
      await within('the tree', page.locator('[data-widget="free-tree"] svg.free-tree-svg'), top, width);
      await within('the words', card.getByTestId('lesson-text'), top, width);
      expect(await tooWide(page)).toEqual([]);
      expect(app.problems).toEqual([]);
    });

    test('touch: swipes step (a long one or two fingers a whole operation), over the words and over the tree', async ({ page }) => {
      const app = new AppPage(page);
      const { width } = phone.viewport;
      await app.open('./#lesson=free-tree&stop=5');
      const card = page.locator('[data-widget="lesson"]');
      await expect(card).toHaveAttribute('data-stop', '5');
      await expect(card).toHaveAttribute('data-at-stop', 'true');
      await expect.poll(async () => (await position(page)).frame).toBeGreaterThanOrEqual(0);
      const cdp = await page.context().newCDPSession(page);
      const start = await position(page);
      // The core's count of micro-steps in the operation shown.
      const frames = await page.evaluate((op) => window.vmapviz?.app.core?.frames(op)?.frames.length ?? 0, start.op);
      expect(start.frame).toBeGreaterThanOrEqual(0);
      expect(frames, 'the stop is not the last micro-step of its operation').toBeGreaterThan(start.frame + 1);
      const text = await card.getByTestId('lesson-text').boundingBox();
      if (!text) throw new Error('no text');
      const y = text.y + text.height / 2;
      // Left over the words: one micro-step forward; right: back.
      await gesture(cdp, [[width * 0.7, y]], [[width * 0.4, y]]);
      await expect.poll(() => position(page)).toEqual({ op: start.op, frame: start.frame + 1 });
      await expect(card).toHaveAttribute('data-at-stop', 'false');
      await gesture(cdp, [[width * 0.4, y]], [[width * 0.7, y]]);
      await expect.poll(() => position(page)).toEqual(start);
      // Over the tree too, and the tree does not pan under one finger.
      const svg = page.locator('[data-widget="free-tree"] svg.free-tree-svg');
      const tb = await svg.boundingBox();
      if (!tb) throw new Error('no tree');
      const before = await svg.locator('g.viewport').getAttribute('transform');
      const ty = tb.y + tb.height / 2;
      await gesture(cdp, [[width * 0.7, ty]], [[width * 0.4, ty]]);
      await expect.poll(() => position(page)).toEqual({ op: start.op, frame: start.frame + 1 });
      expect(await svg.locator('g.viewport').getAttribute('transform')).toBe(before);
      await gesture(cdp, [[width * 0.4, ty]], [[width * 0.7, ty]]);
      await expect.poll(() => position(page)).toEqual(start);
      // A long swipe: to after this operation (step op + 1, between operations); back, to its start.
      await gesture(cdp, [[width * 0.9, y]], [[width * 0.2, y]]);
      await expect.poll(() => position(page)).toEqual({ op: start.op + 1, frame: -1 });
      await gesture(cdp, [[width * 0.2, y]], [[width * 0.9, y]]);
      await expect.poll(() => position(page)).toEqual({ op: start.op, frame: -1 });
      // Two fingers, a short swipe: a whole operation.
      await gesture(cdp, [[width * 0.7, y], [width * 0.7, y + 40]], [[width * 0.45, y], [width * 0.45, y + 40]]);
      await expect.poll(() => position(page)).toEqual({ op: start.op + 1, frame: -1 });
      // An upward drag scrolls and steps nothing.
      const here = await position(page);
      await gesture(cdp, [[width * 0.5, y]], [[width * 0.5 - 20, y - 200]]);
      await page.waitForTimeout(200);
      expect(await position(page)).toEqual(here);
      expect(app.problems).toEqual([]);
    });

    test('touch: a tap on a node shows its tooltip, two fingers apart zoom the tree', async ({ page }) => {
      const app = new AppPage(page);
      const { width } = phone.viewport;
      await app.open('./#lesson=free-tree&stop=5');
      const card = page.locator('[data-widget="lesson"]');
      await expect(card).toHaveAttribute('data-at-stop', 'true');
      const cdp = await page.context().newCDPSession(page);
      const svg = page.locator('[data-widget="free-tree"] svg.free-tree-svg');
      const tb = await svg.boundingBox();
      if (!tb) throw new Error('no tree');
      const ty = tb.y + tb.height / 2;
      // A tap on a node: its tooltip (the node's <title>, what a mouse's hover shows).
      const node = svg.locator('g.node[data-id]').first();
      const title = (await node.locator('title').textContent())?.trim() ?? '';
      expect(title.length).toBeGreaterThan(5);
      const nb = await node.locator('rect, circle').first().boundingBox();
      if (!nb) throw new Error('no node');
      await page.touchscreen.tap(nb.x + nb.width / 2, nb.y + nb.height / 2);
      const tip = page.getByTestId('touch-tip');
      await expect(tip).toBeVisible();
      await expect(tip).toHaveText(title);
      const pb = await tip.boundingBox();
      expect((pb?.x ?? -1) >= 0 && (pb?.x ?? 0) + (pb?.width ?? 0) <= width).toBe(true);
      // A tap elsewhere hides it.
      const words = await card.getByTestId('lesson-title').boundingBox();
      if (!words) throw new Error('no title');
      await page.touchscreen.tap(words.x + 20, words.y + words.height / 2);
      await expect(tip).toBeHidden();
      // A free area of the bar, likewise.
      const area = page.locator('[data-widget="space-bar"] g.area.area-free').first();
      await area.evaluate((e) => e.scrollIntoView({ block: 'center' }));
      const areaTitle = (await area.locator('title').textContent())?.trim() ?? '';
      expect(areaTitle.length).toBeGreaterThan(5);
      const ab = await area.locator('rect.fill').boundingBox();
      if (!ab) throw new Error('no area');
      await page.touchscreen.tap(ab.x + ab.width / 2, ab.y + ab.height / 2);
      await expect(tip).toBeVisible();
      await expect(tip).toHaveText(areaTitle);
      await page.evaluate(() => scrollTo(0, 0));
      // Two fingers apart over the tree: it zooms in.
      const k = async () => Number(/scale\(([\d.]+)/.exec((await svg.locator('g.viewport').getAttribute('transform')) ?? '')?.[1] ?? 1);
      const k0 = await k();
      const cx = tb.x + tb.width / 2;
      await gesture(cdp, [[cx - 30, ty], [cx + 30, ty]], [[cx - 110, ty], [cx + 110, ty]], 8);
      await expect.poll(k).toBeGreaterThan(k0 * 1.5);
      expect(app.problems).toEqual([]);
    });
  });
}
