// The words around the tree panel and the address bar that depend on the index shown: the tree
// panel's note and legend, the address bar's legend (a maple-tree trace stores ranges, frees none).

/** The index a view shows: the free tree, a maple-tree trace's tree, or maple-rfc's occupied tree. */
export type TreeKind = 'free-tree' | 'maple-tree' | 'maple-rfc';

export class TreeWords {
  private shown: TreeKind | '' = '';
  /** The page's own words, put back for the free tree. */
  private noteHtml: string | null = null;
  private spaceLegendHtml: string | null = null;

  constructor(private readonly root: HTMLElement) {}

  /** The tree panel's note and legend, true for the index shown (written when it changes). */
  show(kind: TreeKind): void {
    if (kind === this.shown) return;
    this.shown = kind;
    const note = this.root.querySelector<HTMLElement>('#tree-note');
    const legend = this.root.querySelector<HTMLElement>('#tree-legend');
    if (note) {
      this.noteHtml ??= note.innerHTML;
      const gaps =
        '<code>arange</code> nodes keep <code>gap[]</code>, the largest NULL run below each slot, so ' +
        '<code>mas_empty_area</code> skips subtrees whose gaps are too small for the request.';
      note.innerHTML =
        kind === 'maple-tree'
          ? `The maple tree of <code>lib/maple_tree.c</code>: each node a row of slots, each slot a range that holds an entry, a NULL hole or a child; ${gaps}`
          : kind === 'maple-rfc'
            ? `maple-rfc keeps no free tree: its occupied maple tree holds every allocated range, and the free space is its NULL ranges; ${gaps}`
            : this.noteHtml;
    }
    if (legend) legend.hidden = kind !== 'free-tree';
    // The address bar's legend: a maple-tree trace has stored ranges and NULL ranges, nothing to free.
    const space = this.root.querySelector<HTMLElement>('#space-legend');
    if (space) {
      this.spaceLegendHtml ??= space.innerHTML;
      space.innerHTML =
        kind === 'maple-tree'
          ? '<li><span class="swatch swatch-busy"></span>stored (an entry)</li><li><span class="swatch swatch-gap"></span>NULL (no entry)</li>'
          : this.spaceLegendHtml;
    }
  }
}
