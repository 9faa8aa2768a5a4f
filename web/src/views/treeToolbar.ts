// The toolbar of a tree view (the free tree, the maple tree): Fit, Whole, zoom out and in, and
// the depth below which the tree is collapsed.
import { el } from './common';

export interface TreeToolbarActions {
  /** Fit the tree to the panel, readable, and keep fitting. */
  fit(): void;
  /** Show the whole tree, however small. */
  whole(): void;
  zoomBy(factor: number): void;
  /** Collapse the tree below this depth (Infinity: show it all). */
  depth(max: number): void;
}

export interface TreeToolbar {
  fitButton: HTMLButtonElement;
  depthSelect: HTMLSelectElement;
}

/** Append the toolbar to `root`; `depths` are the choices of the depth list besides `all`. */
export function treeToolbar(root: HTMLElement, label: string, depths: readonly number[], act: TreeToolbarActions): TreeToolbar {
  const bar = root.appendChild(el('div', 'tree-toolbar'));
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', label);
  const button = (cls: string, text: string, title: string) => {
    const b = bar.appendChild(el('button', `btn btn-small ${cls}`, text));
    b.type = 'button';
    b.title = title;
    b.setAttribute('aria-label', title);
    return b;
  };
  const fitButton = button('fit', 'Fit', 'Fit the tree to the panel, readable (and keep fitting)');
  const whole = button('whole', 'Whole', 'Show the whole tree, however small');
  const zoomOut = button('zoom-out', '−', 'Zoom out');
  const zoomIn = button('zoom-in', '+', 'Zoom in');
  const lab = bar.appendChild(el('label', 'depth-label', 'Depth '));
  const depthSelect = lab.appendChild(el('select', 'depth'));
  depthSelect.setAttribute('aria-label', 'Collapse the tree below a depth');
  for (const v of ['all', ...depths.map(String)]) {
    const o = depthSelect.appendChild(el('option', '', v === 'all' ? 'all' : `≤ ${v}`));
    o.value = v;
  }
  depthSelect.addEventListener('change', () => act.depth(depthSelect.value === 'all' ? Infinity : Number(depthSelect.value)));
  fitButton.addEventListener('click', () => act.fit());
  whole.addEventListener('click', () => act.whole());
  zoomIn.addEventListener('click', () => act.zoomBy(1.4));
  zoomOut.addEventListener('click', () => act.zoomBy(1 / 1.4));
  return { fitButton, depthSelect };
}
