// The operations list is a scroll region the keyboard reaches, and an operation's WARNING line is
// readable (WCAG AA, 4.5:1) on the list's background in both themes.
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';

/** Contrast ratio of a `.warning` line placed in the operations list against the list's panel. */
async function warningContrast(page: Page): Promise<number> {
  return page.evaluate(() => {
    const ol = document.querySelector('[data-widget="ops"] ol.ops')!;
    const li = ol.appendChild(document.createElement('li'));
    const w = li.appendChild(document.createElement('span'));
    w.className = 'warning';
    w.textContent = 'WARNING';
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const f = (x: number) => ((x /= 255) <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    // The first opaque background from the line up.
    let bg = 'rgb(255, 255, 255)';
    for (let e: Element | null = w; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c && !/rgba\(.*,\s*0\)$/.test(c) && c !== 'transparent') {
        bg = c;
        break;
      }
    }
    const [a, b] = [lum(rgb(getComputedStyle(w).color)), lum(rgb(bg))].sort((x, y) => y - x);
    li.remove();
    return (a + 0.05) / (b + 0.05);
  });
}

test('the operations list takes the keyboard focus and its WARNING lines reach 4.5:1 in both themes', async ({ page }) => {
  const app = new AppPage(page);
  await app.open();
  const list = page.locator('[data-widget="ops"] ol.ops');
  await expect(list).toHaveAttribute('tabindex', '0');
  await list.focus();
  await expect(list).toBeFocused();
  for (const theme of ['light', 'dark']) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    expect(await warningContrast(page), theme).toBeGreaterThanOrEqual(4.5);
  }
});
