// Page objects of the narration line and the kernel code panel.
import type { Locator, Page } from '@playwright/test';

export class NarrationWidget {
  readonly root: Locator;
  readonly text: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="narration"]');
    this.text = this.root.getByTestId('narration-text');
  }

  async kind(): Promise<string> {
    return (await this.root.getAttribute('data-event-kind')) ?? '';
  }
}

export class CodeWidget {
  readonly root: Locator;
  readonly current: Locator;
  readonly fitDiagram: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="code"]');
    this.current = this.root.locator('li.code-line.current');
    this.fitDiagram = this.root.getByTestId('fit-diagram');
  }
}
