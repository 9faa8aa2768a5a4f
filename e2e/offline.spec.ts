// Offline after the first visit (web/src/offline.ts): the service worker precaches the page, both
// wasm builds and every bundle, so a reload with the network gone opens, steps, and brings in the
// workbench; a new deployment waits behind an update prompt. The other specs block service workers
// (playwright.config.ts); this one lets them run.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { Workbench } from './panels/workbench';

test.use({ serviceWorkers: 'allow' });

/** The worker has precached everything and controls the page (a reload is served by it). */
async function offlineReady(page: import('@playwright/test').Page): Promise<void> {
  await expect(page.locator('body[data-offline-ready="true"]')).toBeAttached({ timeout: 30_000 });
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
}

test('after one visit the page reloads, steps and opens the workbench with the network gone', async ({ page, context }) => {
  const app = new AppPage(page);
  await app.open('./#lesson=free-tree&stop=2');
  await offlineReady(page);

  await context.setOffline(true);
  await page.reload();
  await app.waitReady();
  // Served by the worker: the navigation and the wasm came from its cache.
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  const before = await app.player.position();
  await page.keyboard.press('ArrowRight');
  await expect.poll(async () => JSON.stringify(await app.player.position())).not.toBe(JSON.stringify(before));

  // The workbench's chunk, worker and wasm build were never fetched online, and still come.
  const wb = new Workbench(page);
  await wb.root.hover();
  await expect(page.locator('body[data-panels-ready="true"]')).toBeAttached({ timeout: 15_000 });
  await wb.tab('workloads');
  await expect(wb.workloadList).toBeVisible();
  expect([...app.problems, ...wb.problems].filter((p) => !/ERR_INTERNET_DISCONNECTED/.test(p))).toEqual([]);
  await context.setOffline(false);
});

const DIST = resolve(import.meta.dirname, '..', 'dist');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.md': 'text/markdown; charset=utf-8',
};

/**
 * A static host of dist/ whose deployment the test can bump: each deployment's service worker
 * script differs by a comment, as a rebuilt site's would (vite preview cannot be changed under a
 * running test, and the worker's own update check bypasses page.route).
 */
async function host(): Promise<{ url: string; deploy: () => void; server: Server }> {
  let deployment = 1;
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split(/[?#]/)[0]);
    const file = normalize(join(DIST, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(DIST)) return void res.writeHead(403).end();
    readFile(file).then(
      (body) => {
        res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' });
        res.end(file.endsWith('sw.js') ? `${body}\n// deployment ${deployment}\n` : body);
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, deploy: () => void deployment++, server };
}

test('a new deployment waits behind an update prompt; Later keeps the page, Reload takes it', async ({ page }) => {
  const site = await host();
  try {
    const app = new AppPage(page);
    await app.open(site.url);
    await offlineReady(page);
    // The second visit is the one the worker controls; a deployment after it has to wait.
    await page.reload();
    await app.waitReady();
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    site.deploy();
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r?.update()));
    const prompt = page.getByTestId('update-prompt');
    await expect(prompt).toBeVisible({ timeout: 30_000 });
    await expect(prompt).toContainText('A new version of vmapviz is ready.');
    // Later: the prompt goes, and the page keeps running on the old worker (the new one waits).
    await prompt.getByRole('button', { name: 'Later' }).click();
    await expect(prompt).toHaveCount(0);
    expect(await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r?.waiting !== null))).toBe(true);
    // A reload with this one tab open keeps the old worker too, so the offer comes back; Reload takes it.
    await page.reload();
    await app.waitReady();
    await expect(prompt).toBeVisible({ timeout: 30_000 });
    await Promise.all([page.waitForEvent('load'), prompt.getByRole('button', { name: 'Reload' }).click()]);
    await app.waitReady();
    await expect(page.getByTestId('update-prompt')).toHaveCount(0);
    // The new worker took over: none waits any more.
    expect(
      await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r?.waiting === null && r.active !== null)),
    ).toBe(true);
    expect(app.problems).toEqual([]);
  } finally {
    site.server.close();
  }
});
