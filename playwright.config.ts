import { defineConfig } from '@playwright/test';
import { BASE_URL, PORT, SUBPATH_PORT, SUBPATH_URL } from './e2e/support/urls';

// End-to-end tests against `vite preview` of the production build in dist/ (`npm run build`
// first; `npm test` does). Debian's Chromium, not a Playwright download (CHROMIUM_PATH overrides).
export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 2,
  reporter: [['list']],
  timeout: 30_000,
  use: {
    baseURL: BASE_URL,
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    reducedMotion: 'reduce',
    // The page's service worker (web/src/offline.ts) would serve later navigations from its cache
    // and hide requests from page.route; only e2e/offline.spec.ts lets it run.
    serviceWorkers: 'block',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: [
    {
      command: `npx vite preview --host 127.0.0.1 --port ${PORT} --strictPort`,
      url: BASE_URL,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      // The same dist/ under a sub-path, as GitHub Pages serves a project site.
      command: `npx vite preview --host 127.0.0.1 --port ${SUBPATH_PORT} --strictPort --base /vmapviz/`,
      url: SUBPATH_URL,
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
