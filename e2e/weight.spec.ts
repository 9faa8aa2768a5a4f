// The page arrives compressed (`vite preview`, as `npm start` serves it, sends dist/'s .br files):
// JS and wasm on first open stay within 250 KB as transferred, measured by the browser itself.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';

test('first open transfers at most 250 KB of JS and wasm, compressed', async ({ page }) => {
  const app = new AppPage(page);
  const encodings = new Map<string, string>();
  page.on('response', async (r) => {
    if (/\.(js|wasm)$/.test(new URL(r.url()).pathname)) encodings.set(r.url(), (await r.allHeaders())['content-encoding'] ?? 'none');
  });
  await app.open();
  // What the first open needed: the files asked for before the page was ready. The offline copy's
  // registration (web/src/offline.ts, about 2 KB of workbox-window) comes after, and is shown apart.
  const { sizes, after } = await page.evaluate(() => {
    const ready = performance.getEntriesByName('vmapviz:ready')[0]?.startTime ?? Infinity;
    const all = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => /\.(js|wasm)$/.test(new URL(e.name).pathname))
      .map((e) => ({ name: e.name, start: e.startTime, transfer: e.transferSize, body: e.decodedBodySize }));
    return { sizes: all.filter((e) => e.start <= ready), after: all.filter((e) => e.start > ready) };
  });
  console.log(`first open: ${sizes.reduce((n, s) => n + s.transfer, 0)} B of JS and wasm; after ready: ${after.map((a) => `${new URL(a.name).pathname} ${a.transfer} B`).join(', ') || 'nothing'}`);
  expect(sizes.some((s) => s.name.includes('/assets/index-'))).toBe(true);
  const wasm = sizes.filter((s) => s.name.endsWith('.wasm'));
  expect(wasm).toHaveLength(1);
  // Every file but the tiny theme script (under 1 KB, not worth compressing) comes compressed.
  for (const s of sizes.filter((x) => x.body > 1024)) expect(encodings.get(s.name), s.name).toMatch(/^(br|gzip)$/);
  const total = sizes.reduce((n, s) => n + s.transfer, 0);
  // What was sent is much smaller than what was unpacked (the wasm alone is about 650 KB).
  expect(wasm[0].transfer).toBeLessThan(wasm[0].body / 2);
  expect(total, JSON.stringify(sizes)).toBeLessThanOrEqual(250_000);
  expect(app.problems).toEqual([]);
});
