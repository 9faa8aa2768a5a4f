// Page object of the allocate and free forms, and of the pop-up a click on a busy area opens.
import type { Locator, Page } from '@playwright/test';

export class FormsWidget {
  readonly root: Locator;
  readonly alloc: Locator;
  readonly free: Locator;
  readonly allocError: Locator;
  readonly freeError: Locator;
  readonly preview: Locator;
  readonly popover: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="op-forms"]');
    this.alloc = this.root.getByTestId('alloc-form');
    this.free = this.root.getByTestId('free-form');
    this.allocError = this.root.getByTestId('alloc-error');
    this.freeError = this.root.getByTestId('free-error');
    this.preview = this.root.getByTestId('alloc-preview');
    this.popover = page.locator('[data-widget="free-popover"]');
  }

  field(name: 'size' | 'align' | 'vstart' | 'vend' | 'addr'): Locator {
    return this.root.locator(`input[name="${name}"]`);
  }

  async allocate(values: Partial<Record<'size' | 'align' | 'vstart' | 'vend', string>>): Promise<void> {
    for (const [k, v] of Object.entries(values)) await this.field(k as 'size').fill(v);
    await this.alloc.getByRole('button', { name: 'Allocate' }).click();
  }

  async freeAt(addr: string, how: 'free' | 'vfree' = 'free'): Promise<void> {
    await this.field('addr').fill(addr);
    await this.free.locator('select[name="how"]').selectOption(how);
    await this.free.getByRole('button', { name: 'Free' }).click();
  }
}
