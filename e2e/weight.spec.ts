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
  const sizes = await page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => /\.(js|wasm)$/.test(new URL(e.name).pathname))
      .map((e) => ({ name: e.name, transfer: e.transferSize, body: e.decodedBodySize })),
  );
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
