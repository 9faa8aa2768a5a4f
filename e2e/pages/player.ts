// Page object of the operation list and its step controls.
import type { Locator, Page } from '@playwright/test';

export class PlayerWidget {
  readonly root: Locator;
  readonly stepLabel: Locator;
  readonly start: Locator;
  readonly back: Locator;
  readonly forward: Locator;
  readonly end: Locator;
  readonly ops: Locator;
  readonly input: Locator;
  readonly add: Locator;
  readonly pushError: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="player"]');
    this.stepLabel = this.root.getByTestId('step-label');
    this.start = this.root.locator('button[data-action="first"]');
    this.back = this.root.locator('button[data-action="prev"]');
    this.forward = this.root.locator('button[data-action="next"]');
    this.end = this.root.locator('button[data-action="last"]');
    this.ops = this.root.locator('ol.ops > li');
    this.input = this.root.getByLabel('Add an operation');
    this.add = this.root.getByRole('button', { name: 'Add' });
    this.pushError = this.root.getByTestId('push-error');
  }

  /** The list item of operation `index` (0-based). */
  op(index: number): Locator {
    return this.root.locator(`ol.ops > li[data-index="${index}"]`);
  }

  /** Add one operation line through the input. */
  async push(line: string): Promise<void> {
    await this.input.fill(line);
    await this.add.click();
  }
}
