// The core's `dump` of a maple tree, as printed in its output
// (`dump height=H …` then `node DEPTH TYPE min=0x… max=0x… | 0:0xPIV:K[:0xGAP] …`), for tests that
// compare the page's drawn tree with the core's own print.
import { expect, type Page } from '@playwright/test';

/** One node line of a dump, fields as printed (min and max without their `min=`/`max=`). */
export interface DumpLine {
  depth: string;
  type: string;
  min: string;
  max: string;
  /** The slots in the dump's own notation, space-separated. */
  slots: string;
}

/** The node lines of the last `dump` in the core's output (fails the test if there is none). */
export function lastDump(output: string): DumpLine[] {
  const blocks = output.split('dump height=');
  expect(blocks.length).toBeGreaterThan(1);
  return blocks[blocks.length - 1]
    .split('\n')
    .filter((l) => l.startsWith('node '))
    .map((l) => {
      const [head, slots] = l.split(' | ');
      const w = head.split(' ');
      return { depth: w[1], type: w[2], min: w[3].slice(4), max: w[4].slice(4), slots: slots.trim() };
    });
}

/** The maple nodes the page draws (placeholders included), in the dump's notation. */
export async function drawnNodes(page: Page): Promise<DumpLine[]> {
  return page.locator('[data-widget="maple-tree"] [data-maple-depth]').evaluateAll((els) =>
    els.map((e) => ({
      depth: e.getAttribute('data-maple-depth') ?? '',
      type: e.getAttribute('data-maple-type') ?? '',
      min: e.getAttribute('data-maple-min') ?? '',
      max: e.getAttribute('data-maple-max') ?? '',
      slots: e.getAttribute('data-maple-slots') ?? '',
    })),
  );
}

/** Root first, then by address: the order to compare drawn nodes with a dump's. */
export const byPlace = (a: DumpLine, b: DumpLine): number => Number(a.depth) - Number(b.depth) || (BigInt(a.min) < BigInt(b.min) ? -1 : 1);
