// When the core cannot start, the page says so plainly: a damaged download names the engine's
// error, and an engine without WebAssembly SIMD (the core is built with it) is told so.
import { expect, test } from '@playwright/test';

/** Serve every wasm file as bytes no engine compiles. */
async function damageTheCore(page: import('@playwright/test').Page): Promise<void> {
  await page.route('**/*.wasm', (r) =>
    r.fulfill({ status: 200, contentType: 'application/wasm', body: Buffer.from('not a wasm module') }),
  );
}

test('a core that does not compile gives a plain message, with no blame on SIMD where the engine has it', async ({ page }) => {
  await damageTheCore(page);
  await page.goto('./');
  const banner = page.getByTestId('load-error');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('vmapviz could not start:');
  await expect(banner).not.toContainText('SIMD');
  await expect(page.locator('body')).not.toHaveAttribute('data-ready', 'true');
});

test('an engine without WebAssembly SIMD is told that the core needs it, and which browsers have it', async ({ page }) => {
  await damageTheCore(page);
  // This Chromium validates SIMD: make it answer as an older engine would.
  await page.addInitScript(() => {
    WebAssembly.validate = () => false;
  });
  await page.goto('./');
  const banner = page.getByTestId('load-error');
  await expect(banner).toBeVisible();
  // The reason first, then the engine's own words.
  await expect(banner).toContainText('vmapviz could not start: this browser cannot run WebAssembly SIMD');
  await expect(banner).toContainText('Safari 16.4+');
  await expect(banner).toContainText('The engine said:');
});
