// `&embed=1` and the postMessage API. The example slide (docs/embed-example.html) is served from
// another origin (a small server of the test's own on another port of 127.0.0.1: a routed page
// would count as public, and Chromium's local-network checks would block its frames) and embeds the page,
// so messages cross origins as they would from a slide deck: go, stop, play and pause act; every
// move is reported to the parent; malformed messages are ignored and nothing throws.
import { expect, test, type Frame, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE_URL } from './support/urls';
import { AppPage } from './pages/app';

const EXAMPLE = readFileSync(new URL('../docs/embed-example.html', import.meta.url), 'utf8');
let server: Server;
let DECK = '';

test.beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(EXAMPLE);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  DECK = `http://127.0.0.1:${(server.address() as AddressInfo).port}/embed-example.html`;
});

test.afterAll(async () => {
  await new Promise((ok) => server.close(ok));
});

test('embed=1 shows only the views and the transport, and fits 640×400 without a horizontal overflow', async ({ page }) => {
  const app = new AppPage(page);
  await page.setViewportSize({ width: 640, height: 400 });
  await app.open('./#lesson=free-tree&stop=3&embed=1');
  await expect(page.locator('body')).toHaveClass(/\bembed\b/);
  for (const sel of ['.site-header', '.ops-panel', '[data-widget="workbench"]', '.site-footer', '[data-widget="lesson"]']) {
    await expect(page.locator(sel)).toBeHidden();
  }
  // The stop looks at the tree, then the bar: a 640×400 frame gives itself to the tree
  // (e2e/embed-look.spec.ts walks every stop at two sizes).
  for (const sel of ['[data-widget="player"]', '[data-widget="free-tree"]']) {
    await expect(page.locator(sel)).toBeVisible();
  }
  for (const sel of ['[data-widget="space-bar"]', '[data-widget="narration"]']) {
    await expect(page.locator(sel)).toBeHidden();
  }
  // No question is asked in an embedded stop: the slide drives it.
  await expect(page.locator('[data-widget="lesson"]')).not.toHaveAttribute('data-ask', /./);
  const overflow = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth }));
  expect(overflow.doc).toBeLessThanOrEqual(overflow.win);
  // The link the page writes keeps the embedded layout (a reload stays embedded).
  await expect.poll(() => page.evaluate(() => location.hash)).toContain('&embed=1');
  expect(app.problems).toEqual([]);
});

async function deck(page: Page): Promise<{ a: Frame; b: Frame }> {
  await page.goto(`${DECK}?base=${encodeURIComponent(BASE_URL)}`);
  const frame = async (id: string) => {
    const h = await page.locator(`iframe#${id}`).elementHandle();
    const f = await h?.contentFrame();
    if (!f) throw new Error(`no frame ${id}`);
    await expect(f.locator('body[data-ready="true"]')).toBeAttached({ timeout: 30_000 });
    return f;
  };
  return { a: await frame('a'), b: await frame('b') };
}

const where = (page: Page) => page.locator('#where');

test('the example slide embeds two stops and drives one: go, stop, play, pause; each move is reported', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const { a, b } = await deck(page);
  await expect(a.locator('[data-widget="lesson"]')).toHaveAttribute('data-stop', '3');
  await expect(b.locator('[data-widget="lesson"]')).toHaveAttribute('data-lesson', 'maple');
  await expect(b.locator('[data-widget="lesson"]')).toHaveAttribute('data-stop', '5');
  // go: operation 5, micro-step 0.
  await page.locator('#go').click();
  await expect(where(page)).toHaveAttribute('data-op', '5');
  await expect(where(page)).toHaveAttribute('data-step', '0');
  await expect(a.locator('#app')).toHaveAttribute('data-step', '5');
  await expect(a.locator('#app')).toHaveAttribute('data-frame', '0');
  // stop: the free-tree lesson's stop 4 (the FL fit, operation 5 of its trace).
  await page.locator('#stop').click();
  await expect(a.locator('[data-widget="lesson"]')).toHaveAttribute('data-stop', '4');
  await expect(where(page)).toHaveAttribute('data-stop', '4');
  await expect(where(page)).toContainText('free-tree, stop 4');
  // play moves on (each micro-step reported), pause holds.
  const before = await where(page).textContent();
  await page.locator('#play').click();
  await expect.poll(() => where(page).textContent(), { timeout: 10_000 }).not.toBe(before);
  await page.locator('#pause').click();
  await page.waitForTimeout(300);
  const held = await where(page).textContent();
  await page.waitForTimeout(1500);
  expect(await where(page).textContent()).toBe(held);
  // The other frame was never driven.
  await expect(b.locator('[data-widget="lesson"]')).toHaveAttribute('data-stop', '5');
  expect(errors).toEqual([]);
});

test('malformed messages are ignored, and nothing throws', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const { a } = await deck(page);
  await page.locator('#go').click();
  await expect(a.locator('#app')).toHaveAttribute('data-step', '5');
  const origin = new URL(BASE_URL).origin;
  await page.evaluate(() => {
    const seen: unknown[] = [];
    (window as unknown as { seen: unknown[] }).seen = seen;
    window.addEventListener('message', (e) => seen.push(e.data));
  });
  await page.evaluate((o) => {
    const w = (document.getElementById('a') as HTMLIFrameElement).contentWindow as Window;
    const bad: unknown[] = [
      null,
      'vmapviz:play',
      42,
      [1, 2],
      {},
      { type: 'vmapviz:go' },
      { type: 'vmapviz:go', op: -3, step: 0 },
      { type: 'vmapviz:go', op: 'x', step: 0 },
      { type: 'vmapviz:go', op: 1e15, step: 0 },
      { type: 'vmapviz:go', op: 2.5, step: 0 },
      { type: 'vmapviz:go', op: 1, step: -7 },
      { type: 'vmapviz:stop', lesson: '../../etc', stop: 1 },
      { type: 'vmapviz:stop', lesson: 'maple', stop: 0 },
      { type: 'vmapviz:stop', lesson: 'maple', stop: '2' },
      { type: 'vmapviz:where', op: 0, step: 0 },
      { type: 'something:else' },
    ];
    for (const m of bad) w.postMessage(m, o);
    // Then one well-formed message: its report is the only one that comes back.
    w.postMessage({ type: 'vmapviz:go', op: 2, step: -1 }, o);
  }, origin);
  await expect(a.locator('#app')).toHaveAttribute('data-step', '2');
  await page.waitForTimeout(500);
  const seen = await page.evaluate(() => (window as unknown as { seen: unknown[] }).seen);
  expect(seen).toEqual([{ type: 'vmapviz:where', op: 2, step: -1, frame: expect.any(Number), lesson: 'free-tree', stop: 3 }]);
  // A go past the end is clamped to the trace's end.
  await page.evaluate((o) => (document.getElementById('a') as HTMLIFrameElement).contentWindow?.postMessage({ type: 'vmapviz:go', op: 99999, step: 3 }, o), origin);
  await expect.poll(async () => Number(await a.locator('#app').getAttribute('data-step'))).toBeGreaterThan(5);
  expect(errors).toEqual([]);
});
