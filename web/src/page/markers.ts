// The timeline's markers, gathered in idle time: each operation's splits, merges and rotations,
// from the core's mark bits (a replay without snapshots, a few thousand operations per slice).
import type { Session } from '../bridge';
import type { MarkerKind } from '../narrate/narrate';

/** Operations whose markers one call to the core gathers. */
const MARK_SLICE = 2048;

export class Markers {
  map = new Map<number, Set<MarkerKind>>();
  note = '';
  version = 0;
  private token = 0;
  /** Operations of the session scanned last whose markers are in `map`. */
  private done = 0;

  /**
   * Gather `s`'s markers (a scan under way is dropped); `drawn` after each slice. `from`: the
   * operations before it are those of the session scanned last, their markers kept (a trace that
   * grew at its end).
   */
  scan(s: Session, root: HTMLElement, drawn: () => void, from = 0): void {
    const token = ++this.token;
    // A scan under way had not reached `from`: it goes on from where it was.
    from = Math.min(from, this.done);
    if (from === 0) this.map = new Map();
    this.version++;
    this.note = 'gathering markers…';
    const n = s.length;
    const idle = (fn: () => void) =>
      typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 500 }) : window.setTimeout(fn, 30);
    let k = from;
    this.done = from;
    const work = () => {
      if (token !== this.token) return;
      const t0 = performance.now();
      while (k < n && performance.now() - t0 < 8) {
        const to = Math.min(n, k + MARK_SLICE);
        s.marks(k, to).forEach((kinds, i) => {
          if (kinds.size) this.map.set(k + i, kinds);
        });
        k = to;
        this.done = k;
      }
      this.version++;
      if (k < n) idle(work);
      else {
        this.note =
          root.dataset.view === 'maple-tree'
            ? 'Markers mark the free tree’s splits (NE), merges and rotations: a maple tree keeps none (its splits, rebalances and gap updates are micro-steps).'
            : 'Markers: splits (NE), merges and rotations of every operation.';
        root.dataset.markers = 'ready';
      }
      drawn();
    };
    root.dataset.markers = 'pending';
    idle(work);
  }
}
