// The course's questions and their answers, argued from the traces (see
// web/src/lessons/question.test.ts), not read from the page; and what the page says where an
// answer could leak. Shared by ask-first.spec.ts and hall-layout.spec.ts.
import type { Page } from '@playwright/test';

export interface Asked {
  lesson: string;
  stop: number;
  ask: 'land' | 'visit' | 'store' | 'slot';
  /** Words of the answer that must not be on screen before the reveal, and are after. */
  answer: string[];
  /** The answer as typed, or the key pressed (store). */
  typed: string;
  /** For visit / slot: the node (and the slot) that must not be highlighted. */
  node?: number;
  slot?: number;
}

export const ASKED: Asked[] = [
  // NE at 64 KiB alignment: the page at 0x20000, inside the block.
  { lesson: 'free-tree', stop: 3, ask: 'land', answer: ['[0x20000, 0x21000)'], typed: '0x20000' },
  // Above vstart 0x108000 the root cannot serve: right, to #7.
  { lesson: 'free-tree', stop: 13, ask: 'visit', answer: ['#7'], typed: '#7', node: 7 },
  // The retry takes the merged block's start (the request's vstart, 0x100000, is the question's own words).
  { lesson: 'lazy', stop: 7, ask: 'land', answer: ['[0x100000, 0x108000)'], typed: '0x100000' },
  { lesson: 'maple', stop: 2, ask: 'store', answer: ['wr_node_store'], typed: '5' },
  { lesson: 'maple', stop: 3, ask: 'store', answer: ['wr_exact_fit'], typed: '2' },
  // The root's first gap looks large enough: the search descends into the left leaf, #1.
  { lesson: 'maple', stop: 7, ask: 'visit', answer: ['#1'], typed: '1', node: 1 },
  // The hole [0x113000, 0x114fff] is the right leaf's last used slot: slot 10 of #2.
  // The search is already at #2 (marked current: that is no answer); which slot is.
  { lesson: 'maple', stop: 8, ask: 'slot', answer: ['slot 10'], typed: '2 10', slot: 10 },
];

/** What the page says where an answer could leak: words, aria labels, titles (not the state views' own drawing). */
export async function said(page: Page): Promise<string> {
  return page.evaluate(() => {
    const parts: string[] = [document.title];
    const words = ['[data-widget="lesson"]', '[data-widget="narration"]', '[data-widget="code"]', '.tree-warning', 'g.callouts', '.space-bar .overlay'];
    for (const sel of words) for (const e of document.querySelectorAll<HTMLElement | SVGElement>(sel)) {
      // The store types' buttons are the question's own choices.
      const c = e.cloneNode(true) as Element;
      c.querySelectorAll('.quiz-choices, [hidden]').forEach((x) => x.remove());
      parts.push(c.textContent ?? '');
    }
    // Labels and tooltips anywhere but on the drawn state itself (a node's, a segment's, a slot's).
    const own = 'g.node, g.maple-node, g.area, g.seg, [data-slot], .quiz-choices, [data-widget="space-zoom"]';
    for (const e of document.querySelectorAll('[aria-label], [title], title')) {
      if (e.closest(own)) continue;
      parts.push(e.getAttribute('aria-label') ?? '', e.getAttribute('title') ?? '', e.tagName.toLowerCase() === 'title' ? (e.textContent ?? '') : '');
    }
    return parts.join('\n');
  });
}
