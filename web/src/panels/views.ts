// The app's view classes (web/src/views), instantiated in the panels' own root elements (each
// view scopes its D3 selections to its root, so several instances coexist). One adapter so a
// change of the views' render options touches one place.
import { freeNodes, type FreeNode, type State } from '../bridge';
import { FreeTree } from '../views/freeTree';
import { SpaceBar } from '../views/spaceBar';

export class MiniViews {
  readonly bar: SpaceBar;
  readonly tree: FreeTree;

  constructor(barRoot: HTMLElement, treeRoot: HTMLElement) {
    const hover = (id: number | null) => {
      this.bar.highlight(id);
      this.tree.highlight(id);
    };
    barRoot.dataset.widget ??= 'space-bar-copy';
    treeRoot.dataset.widget ??= 'free-tree-copy';
    this.bar = new SpaceBar(barRoot, { onHover: hover });
    this.tree = new FreeTree(treeRoot, { onHover: hover });
  }

  render(state: State): void {
    this.bar.render(state, {});
    this.renderTree(freeNodes(state.index), state.initialized);
  }

  renderTree(nodes: FreeNode[], initialized = true, duration = 0): void {
    this.tree.render(nodes, { initialized, duration });
  }
}
