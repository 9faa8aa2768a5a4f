// The app's view classes (web/src/views), instantiated in the panels' own root elements (each
// view scopes its D3 selections to its root, so several instances coexist). One adapter so a
// change of the views' render options touches one place. A maple-rfc state (no free tree: its
// `index` is a maple tree instead) is drawn with the maple view, made on first need in a root of
// its own next to the free tree's, as the page does (`renderOccupied` in web/src/app.ts).
import '../views/mapleTree.css';
import { freeNodes, type FreeNode, type State } from '../bridge';
import { mapleSnapshotOf } from '../maple/bridge';
import { NO_FOCUS, type Focus } from '../player/focus';
import { FreeTree } from '../views/freeTree';
import { MapleTreeView, type MapleFocus } from '../views/mapleTree';
import { SpaceBar } from '../views/spaceBar';

export class MiniViews {
  readonly bar: SpaceBar;
  readonly tree: FreeTree;
  /** The maple view (made when a state's index is first a maple tree) and its root. */
  maple: MapleTreeView | null = null;
  private mapleRoot: HTMLElement | null = null;
  private fitted = false;
  /** Draw the maple tree at lecture mode's readable size. */
  lecture = false;

  constructor(
    barRoot: HTMLElement,
    private readonly treeRoot: HTMLElement,
  ) {
    const hover = (id: number | null) => {
      this.bar.highlight(id);
      this.tree.highlight(id);
    };
    barRoot.dataset.widget ??= 'space-bar-copy';
    treeRoot.dataset.widget ??= 'free-tree-copy';
    this.bar = new SpaceBar(barRoot, { onHover: hover });
    this.tree = new FreeTree(treeRoot, { onHover: hover });
  }

  /**
   * Draw a state; during a micro-step, with the step's focus: the free tree's marks and the bar's
   * ranges (`free`), or the maple view's path, slots and hole (`maple`), and the bar's `key`.
   */
  render(state: State, focus: { free?: Focus; maple?: MapleFocus; key?: string } = {}): void {
    // `key`: the same key draws the same areas (micro-steps that change no area redraw only the overlays).
    this.bar.render(state, { ...(focus.free ? { ranges: focus.free.ranges } : {}), ...(focus.key !== undefined ? { key: focus.key } : {}) });
    if (state.index.kind === 'maple') {
      this.renderMaple(state.index.tree, focus.maple);
      return;
    }
    if (this.mapleRoot) this.mapleRoot.hidden = true;
    if (this.treeRoot.hidden && this.treeRoot.dataset.mapleHidden === 'true') {
      this.treeRoot.hidden = false;
      delete this.treeRoot.dataset.mapleHidden;
    }
    this.renderTree(freeNodes(state.index), state.initialized, 0, focus.free);
  }

  /** Fit the trees to their roots again (after the layout changed their size). */
  refit(): void {
    this.tree.fit(0);
    if (this.maple && this.mapleRoot && !this.mapleRoot.hidden) this.maple.fit(0);
  }

  renderTree(nodes: FreeNode[], initialized = true, duration = 0, focus: Focus = NO_FOCUS): void {
    this.tree.render(nodes, { initialized, duration, focus });
  }

  private renderMaple(raw: unknown, focus?: MapleFocus): void {
    if (!this.mapleRoot) {
      const root = document.createElement('div');
      root.className = `${this.treeRoot.className} maple-tree-root`;
      root.dataset.widget = this.treeRoot.dataset.widget?.replace('tree', 'maple') ?? 'maple-tree-copy';
      this.treeRoot.after(root);
      this.mapleRoot = root;
      // No hover link: the maple view's range ids are not the bar's area ids in a maple-rfc state.
      this.maple = new MapleTreeView(root, {});
    }
    if (!this.treeRoot.hidden) {
      this.treeRoot.hidden = true;
      this.treeRoot.dataset.mapleHidden = 'true';
    }
    this.mapleRoot.hidden = false;
    this.maple?.render(mapleSnapshotOf(raw), { duration: 0, lecture: this.lecture, ...(focus ? { focus } : {}) });
    if (!this.fitted) {
      // Fit once the root has its size (it was just made or shown): the whole tree when it is
      // readable so, else the readable scale that follows the node of the step (compare mode's
      // micro-steps keep the search in view); Whole shows everything.
      this.fitted = true;
      requestAnimationFrame(() => this.maple?.fit(0));
    }
  }
}
