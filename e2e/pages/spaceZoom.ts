// Page object of the zoomable address-space view.
import type { Locator, Page } from '@playwright/test';

export class SpaceZoomWidget {
  readonly root: Locator;
  readonly svg: Locator;
  readonly segments: Locator;
  readonly readout: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="space-zoom"]');
    this.svg = this.root.locator('svg.space-zoom-svg');
    this.segments = this.root.locator('g.seg[data-state]');
    this.readout = this.root.getByTestId('zoom-readout');
  }

  preset(name: 'vmalloc' | 'whole' | 'used' | 'focus' | 'in' | 'out'): Locator {
    return this.root.locator(`button[data-preset="${name}"]`);
  }

  async window(): Promise<[bigint, bigint]> {
    return [BigInt((await this.root.getAttribute('data-window-start')) ?? '0'), BigInt((await this.root.getAttribute('data-window-end')) ?? '0')];
  }
}
