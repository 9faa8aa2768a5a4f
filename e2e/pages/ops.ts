// Page object of the operation list and its line input.
import type { Locator, Page } from '@playwright/test';

export class OpsWidget {
  readonly root: Locator;
  readonly ops: Locator;
  readonly input: Locator;
  readonly add: Locator;
  readonly pushError: Locator;
  readonly now: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="ops"]');
    this.ops = this.root.locator('ol.ops > li');
    this.input = this.root.getByLabel('Add an operation');
    this.add = this.root.getByRole('button', { name: 'Add' });
    this.pushError = this.root.getByTestId('push-error');
    this.now = this.root.getByTestId('now');
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
