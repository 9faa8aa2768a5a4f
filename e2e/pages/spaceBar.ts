// Page object of the address-space bar.
import type { Locator, Page } from '@playwright/test';

export interface BarArea {
  state: string;
  vaStart: string;
  vaEnd: string;
}

export class SpaceBarWidget {
  readonly root: Locator;
  /** Every area the bar draws (free, busy, lazy, pool), in address order. */
  readonly areas: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="space-bar"]');
    this.areas = this.root.locator('g.area[data-state]');
  }

  area(state: string): Locator {
    return this.root.locator(`g.area[data-state="${state}"]`);
  }

  /** The data attributes of every area, in DOM (= address) order. */
  async data(): Promise<BarArea[]> {
    return this.areas.evaluateAll((els) =>
      els.map((e) => ({
        state: e.getAttribute('data-state') ?? '',
        vaStart: e.getAttribute('data-va-start') ?? '',
        vaEnd: e.getAttribute('data-va-end') ?? '',
      })),
    );
  }
}
