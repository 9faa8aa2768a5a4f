// Page object of the free-tree view.
import type { Locator, Page } from '@playwright/test';
import type { DumpNode } from '../support/conformance';

export class FreeTreeWidget {
  readonly root: Locator;
  /** The tree's nodes (not the nil placeholders), in pre-order. */
  readonly nodes: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="free-tree"]');
    this.nodes = this.root.locator('g.node[data-va-start]');
  }

  /** The data attributes of every node, in DOM order (pre-order, as the core reports them). */
  async data(): Promise<DumpNode[]> {
    return this.nodes.evaluateAll((els) =>
      els.map((e) => ({
        vaStart: e.getAttribute('data-va-start') ?? '',
        vaEnd: e.getAttribute('data-va-end') ?? '',
        subtreeMaxSize: e.getAttribute('data-subtree-max-size') ?? '',
        color: e.getAttribute('data-color') as 'red' | 'black',
        depth: Number(e.getAttribute('data-depth')),
      })),
    );
  }

  /** The visible text of the node starting at `vaStart` (its card). */
  nodeAt(vaStart: string): Locator {
    return this.root.locator(`g.node[data-va-start="${vaStart}"]`);
  }
}
