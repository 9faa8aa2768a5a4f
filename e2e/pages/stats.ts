// Page object of the header's state summary.
import type { Locator, Page } from '@playwright/test';

export class StatsWidget {
  readonly root: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="stats"]');
  }

  /** The value shown for a stat (`profile`, `cpus`, `free`, `busy`, `lazy`, `lazy-pages`). */
  value(key: string): Locator {
    return this.root.locator(`[data-stat="${key}"] dd`);
  }
}
