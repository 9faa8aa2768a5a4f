// The maple tree's view on the page: it takes the free tree's place for a maple-tree trace and
// for maple-rfc's occupied tree. Its module (web/src/maple/ui.ts) loads on first use; the page
// is drawn again once it has.
import { mapleSnapshotOf, type MapleSession, type MapleSnapshot } from '../maple/bridge';
import type { MapleUi } from '../maple/ui';
import type { Index } from '../bridge';
import type { Narration } from '../narrate/narrate';
import { withheldMapleFocus } from '../lessons/withhold';
import type { Pos } from '../player/timeline';
import type { MapleFocus, MapleHover } from '../views/mapleTree';

export interface MapleHostEvents {
  onHover(id: number | null): void;
  onHoverSlot(h: MapleHover | null): void;
  /** The view's module has arrived. */
  loaded(): void;
  /** It did not: the loader's message. */
  failed(message: unknown): void;
}

export class MapleHost {
  /** The view's element, beside the free tree's (hidden while the free tree is shown). */
  readonly root: HTMLElement;
  ui: MapleUi | null = null;
  loading = false;

  constructor(
    freeTree: HTMLElement,
    private readonly on: MapleHostEvents,
  ) {
    this.root = document.createElement('div');
    this.root.className = 'free-tree-root maple-tree-root';
    this.root.dataset.widget = 'maple-tree';
    this.root.hidden = true;
    freeTree.after(this.root);
  }

  /** The maple view's module, or null while it loads (the page is drawn again once it has). */
  load(): MapleUi | null {
    if (!this.ui && !this.loading) {
      this.loading = true;
      const t0 = performance.now();
      import('../maple/ui')
        .then((m) => {
          performance.measure('vmapviz:maple-chunk', { start: t0, end: performance.now() });
          this.ui = m.mountMaple(this.root, { onHover: (id) => this.on.onHover(id), onHoverSlot: (h) => this.on.onHoverSlot(h) });
          this.on.loaded();
        })
        .catch((e: unknown) => this.on.failed(e))
        .finally(() => {
          this.loading = false;
        });
    }
    return this.ui;
  }

  /**
   * Draw a maple-tree trace's tree at `p` (loaded on first use, then drawn again); its narration
   * of the current micro-step, or null.
   */
  drawSession(s: MapleSession, p: Pos, ms: number, lecture: boolean, withheld = false): Narration | null {
    const ui = this.load();
    if (!ui) return null;
    const of = p.frame >= 0 ? s.mapleFrames(p.op) : null;
    if (of && p.frame < of.frames.length) {
      const fr = of.frames[p.frame];
      const focus = ui.focus(of, p.frame);
      ui.view.render(of.trees[fr.tree] ?? of.trees[0], { focus: withheld ? withheldMapleFocus(focus) : focus, duration: ms, lecture });
      return ui.narrate(of, p.frame);
    }
    ui.view.render(s.tree(p.op), { duration: ms, lecture });
    return null;
  }

  /** The maple tree a `profile maple-tree` trace shows at `p`. */
  treeAt(s: MapleSession, p: Pos): MapleSnapshot {
    const of = p.frame >= 0 ? s.mapleFrames(p.op) : null;
    const fr = of && p.frame < of.frames.length ? of.frames[p.frame] : undefined;
    return of && fr ? (of.trees[fr.tree] ?? of.trees[0]) : s.tree(p.op);
  }

  /** Draw a maple-rfc state's occupied tree (parsed once per snapshot object). */
  drawOccupied(raw: Extract<Index, { kind: 'maple' }>['tree'], ms: number, lecture: boolean, focus?: MapleFocus): void {
    const ui = this.load();
    if (!ui) return;
    // Empty in maple-rfc is a point of its own (S5): say why, not the maple-tree's "first store".
    const empty =
      'The occupied tree is empty: nothing is busy inside the vmalloc window, the only place the perf-mode switch seeds it from. ' +
      "An area outside the window (the module area) is kept by its node's busy tree alone, so its range looks free here.";
    ui.view.render(mapleSnapshotOf(raw), { duration: ms, lecture, empty, ...(focus ? { focus } : {}) });
  }
}
