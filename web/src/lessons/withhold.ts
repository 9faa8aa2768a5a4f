// While a stop's question is open the picture keeps where the step is (the node it is at, the
// path so far) and drops what would answer it: the callouts (the test made and its outcome),
// the edge the search takes, the ranges outlined on the bar, the maple view's scanned slots,
// the slot and the hole. The reveal draws them all again.
import type { Focus, Mark } from '../player/focus';
import type { MapleFocus } from '../views/mapleTree';

/** The free tree's focus without what decides the step. */
export function withheldFocus(f: Focus): Focus {
  const marks = new Map<number, Mark[]>();
  for (const [id, ms] of f.marks) {
    const kept = ms.filter((m) => m === 'visit' || m === 'path');
    if (kept.length) marks.set(id, kept);
  }
  return { marks, callouts: [], taken: null, ranges: [] };
}

/** The maple view's focus without the slots scanned, the slot taken or the hole found. */
export function withheldMapleFocus(f: MapleFocus): MapleFocus {
  // The node's used slots stay in view (up to its data end, whatever the answer), none marked.
  return { path: f.path, node: f.node, scanned: new Map(), slot: null, found: null, gaps: [], store: f.store, cut: null, keepEnd: true };
}

/** The card's title and the narration while a question is open. */
export const WITHHELD = {
  title: 'Your turn',
  narration: 'What this micro-step decides is shown with the answer.',
} as const;
