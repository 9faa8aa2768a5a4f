// The views of the address space and its index: the bar, the zoomed view, the free tree and the
// maple view in its place, linked by hover both ways and by one selection. A question's click
// (where will it land, which node, which slot) goes to the lesson instead.
import { isMapleSession } from '../maple/bridge';
import type { Session, State } from '../bridge';
import { around } from '../layout/zoom';
import type { AskKind, Pick } from '../lessons/question';
import type { FocusRange } from '../player/focus';
import { FreeTree } from '../views/freeTree';
import { SpaceBar } from '../views/spaceBar';
import { SpaceZoom } from '../views/spaceZoom';
import { MapleHost } from './mapleHost';

function part<T extends HTMLElement>(root: HTMLElement, widget: string): T {
  const e = root.querySelector<T>(`[data-widget="${widget}"]`);
  if (!e) throw new Error(`the page has no [data-widget="${widget}"]`);
  return e;
}

export interface AddressEvents {
  session(): Session | null;
  /** Whether the stop shown asks a question of this kind, not yet answered. */
  asking(kind: AskKind): boolean;
  answer(p: Pick): void;
  /** The pop-up that frees a busy area. */
  offerFree(start: bigint, end: bigint, lazy: boolean, e: MouseEvent): void;
  /** The maple view's module has arrived. */
  mapleLoaded(): void;
  mapleFailed(e: unknown): void;
}

export class AddressViews {
  readonly bar: SpaceBar;
  readonly lens: SpaceZoom;
  readonly tree: FreeTree;
  readonly maple: MapleHost;
  private selected: number | null = null;
  /** What the bar last drew, to draw it again with another window or colouring. */
  private barState: State | null = null;
  private ranges: FocusRange[] = [];
  private barKey = '';
  private colorBy: 'state' | 'node' = 'state';

  constructor(root: HTMLElement, ev: AddressEvents) {
    const maple = () => isMapleSession(ev.session());
    // Hover links the views both ways. An area (bar, lens, free tree) outlines itself everywhere
    // and, in the maple view, the slot whose range holds it and the path down to it. A slot of
    // the maple view outlines the areas in its range (a NULL hole: its free span). A maple-tree
    // trace's areas are its stored ranges, named by leaf and slot (`rangeId`): ids link them.
    const hover = (id: number | null, area?: { start: bigint; end: bigint; state: string } | null) => {
      this.bar.highlight(id);
      this.lens.highlight(id);
      this.tree.highlight(id);
      const view = this.maple.ui?.view;
      if (!view) return;
      if (maple()) view.highlightRange(id);
      else view.highlightAt(area && area.state !== 'cluster' ? area.start : null);
    };
    const select = (id: number | null) => {
      this.selected = id === this.selected ? null : id;
      this.tree.select(this.selected);
      this.bar.select(this.selected);
    };
    this.bar = new SpaceBar(part(root, 'space-bar'), {
      onHover: hover,
      onAreaClick: (a, e) => {
        if (ev.asking('land')) {
          const r = (e.currentTarget as Element | null)?.querySelector('rect.fill')?.getBoundingClientRect();
          const len = a.end - a.start;
          const frac = r && r.width > 0 ? Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)) : 0;
          // The page under the click.
          let addr = a.start + BigInt(Math.floor(frac * Number(len)));
          if (addr >= a.end) addr = a.end - 1n;
          addr -= addr % 0x1000n;
          if (addr < a.start) addr = a.start;
          ev.answer({ ask: 'land', addr });
          return;
        }
        if (a.state === 'busy') ev.offerFree(a.start, a.end, false, e);
        else if (a.state === 'cluster') this.lens.setWindow(around(a.start, a.end, 0.9));
        else select(a.id);
      },
    });
    this.lens = new SpaceZoom(part(root, 'space-zoom'), {
      onHover: hover,
      onAreaClick: (a, e) => (a.state === 'busy' ? ev.offerFree(a.start, a.end, false, e) : select(a.id)),
      onWindow: (w) => {
        if (this.barState) this.bar.render(this.barState, { ranges: this.ranges, window: w, key: this.barKey, colorBy: this.colorBy });
      },
    });
    this.tree = new FreeTree(part(root, 'free-tree'), {
      onHover: hover,
      onSelect: (id) => {
        if (id !== null && ev.asking('visit')) ev.answer({ ask: 'visit', node: id });
        else select(id);
      },
    });
    // The maple tree's view takes the free tree's place for a maple-tree trace (loaded then).
    this.maple = new MapleHost(part(root, 'free-tree'), {
      onHover: (id) => {
        if (maple()) hover(id);
      },
      onHoverSlot: (h) => {
        if (maple()) return;
        const span: [bigint, bigint] | null = h ? [h.lo, h.hi + 1n] : null;
        this.bar.highlightSpan(span);
        this.lens.highlightSpan(span);
        this.maple.ui?.view.highlightSlot(h);
      },
      loaded: () => ev.mapleLoaded(),
      failed: (e) => ev.mapleFailed(e),
    });
    // A question's click on a maple node or slot (before the view's own handlers).
    this.maple.root.addEventListener(
      'click',
      (e) => {
        const t = e.target instanceof Element ? e.target : null;
        const g = t?.closest('g.maple-node');
        if (!g || !(ev.asking('visit') || ev.asking('slot'))) return;
        const node = Number(g.getAttribute('data-maple-id'));
        const cell = t?.closest('[data-slot]');
        e.stopPropagation();
        if (ev.asking('visit')) ev.answer({ ask: 'visit', node });
        else if (cell) ev.answer({ ask: 'slot', node, slot: Number(cell.getAttribute('data-slot')) });
      },
      true,
    );
  }

  /** The bar and the zoomed view at a state, outlining `ranges`; `key` names the snapshots drawn. */
  drawAddress(state: State, ranges: FocusRange[], key: string, ms: number): void {
    this.barState = state;
    this.ranges = ranges;
    this.barKey = key;
    this.lens.render(state, ranges, key);
    this.bar.render(state, { ranges, window: this.lens.window, duration: ms, key, colorBy: this.colorBy });
  }

  /**
   * How the address-space overview fills busy and lazy areas: by state (the default) or by
   * vmap node (linux-6.9's nodes; the patterns still tell busy from lazy).
   */
  setColorBy(mode: 'state' | 'node'): void {
    this.colorBy = mode;
    if (this.barState) this.bar.render(this.barState, { ranges: this.ranges, window: this.lens.window, key: this.barKey, colorBy: mode });
  }
}
