// The augmented free tree, top-down (d3.tree over the parent/left/right ids the core reports).
// Each node is a card: R/B marker and red or black fill, [va_start, va_end), the block's size
// and subtree_max_size, the largest free block in its subtree, which steers the search.
import { hierarchy, linkVertical, select, tree, type HierarchyPointNode, type Selection } from 'd3';
import type { FreeNode } from '../bridge';
import { hex, size } from '../format';
import { nestTree, rootOf, type TreeDatum } from '../layout/tree';
import { tx } from './common';

export const NODE_W = 188;
export const NODE_H = 86;
const LEVEL_H = 132;
const NIL_W = 30;
const NIL_H = 16;
const MARGIN = 16;

type P = HierarchyPointNode<TreeDatum>;
interface Link {
  key: string;
  source: [number, number];
  target: [number, number];
  nil: boolean;
}

export interface FreeTreeOptions {
  onHover?: (id: number | null) => void;
}

export class FreeTree {
  private readonly svg: Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly empty: HTMLElement;
  private nodes: FreeNode[] | null = null;
  private initialized = true;
  /** x of the root's centre in the last drawing (for `centerRoot`). */
  private rootX = 0;
  private highlighted: number | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly opts: FreeTreeOptions = {},
  ) {
    root.classList.add('free-tree');
    this.empty = root.appendChild(document.createElement('p'));
    this.empty.className = 'empty';
    this.empty.hidden = true;
    this.svg = select(root)
      .append('svg')
      .attr('class', 'free-tree-svg')
      .attr('role', 'img')
      .attr('aria-label', 'Augmented red-black free tree');
    this.svg.append('g').attr('class', 'links');
    this.svg.append('g').attr('class', 'nodes');
    new ResizeObserver(() => this.nodes && this.render(this.nodes, this.initialized)).observe(root);
  }

  /**
   * Draw a free-tree snapshot (pre-order, as the core reports it). `initialized` false means the
   * allocator has no free space yet (before the first operation).
   */
  render(nodes: FreeNode[], initialized = true): void {
    this.nodes = nodes;
    this.initialized = initialized;
    const nested = nestTree(nodes, rootOf(nodes));
    this.empty.hidden = nested !== null;
    this.empty.textContent = initialized
      ? 'The free tree is empty: no free block is left.'
      : 'Not initialised yet: the first operation sets up the free space, one block [0x1, 0xffffffffffffffff) (or the range of an init line).';
    const layout = tree<TreeDatum>()
      .nodeSize([NODE_W + 20, LEVEL_H])
      .separation((a, b) => (a.data.node && b.data.node ? (a.parent === b.parent ? 1 : 1.1) : 0.62));
    // Pre-order (node, left subtree, right subtree), as the core and the kernel's dump list them.
    const points: P[] = [];
    if (nested) layout(hierarchy(nested)).eachBefore((p) => points.push(p));

    const xs = points.map((p) => p.x);
    const minX = xs.length ? Math.min(...xs) - NODE_W / 2 : 0;
    const maxX = xs.length ? Math.max(...xs) + NODE_W / 2 : 0;
    const treeW = maxX - minX + 2 * MARGIN;
    const width = Math.max(treeW, this.root.clientWidth);
    const height = points.length ? Math.max(...points.map((p) => p.y)) + NODE_H + 2 * MARGIN : 0;
    // Centre the tree when it is narrower than the panel.
    const dx = (width - treeW) / 2 + MARGIN - minX;
    this.svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);

    const t = tx('layout', 300);
    const at = (p: P): [number, number] => [p.x + dx, p.y + MARGIN];
    this.rootX = points.length ? at(points[0])[0] : 0;

    const links: Link[] = points
      .filter((p) => p.parent)
      .map((p) => {
        const [px, py] = at(p.parent as P);
        const [cx, cy] = at(p);
        return { key: p.data.key, source: [px, py + NODE_H], target: [cx, cy], nil: p.data.node === null };
      });
    const path = linkVertical<Link, [number, number]>()
      .source((l) => l.source)
      .target((l) => l.target);
    this.svg
      .select<SVGGElement>('g.links')
      .selectAll<SVGPathElement, Link>('path')
      .data(links, (l) => l.key)
      .join((enter) => enter.append('path').attr('d', path).style('opacity', 0))
      .attr('class', (l) => (l.nil ? 'link nil' : 'link'))
      .transition(t)
      .style('opacity', 1)
      .attr('d', path);

    const real = points.filter((p) => p.data.node !== null);
    const nils = points.filter((p) => p.data.node === null);
    const layer = this.svg.select<SVGGElement>('g.nodes');

    const g = layer
      .selectAll<SVGGElement, P>('g.node')
      .data(real, (p) => p.data.key)
      .join((enter) => {
        const n = enter
          .append('g')
          .attr('class', 'node')
          .attr('transform', (p) => translate(at(p), -NODE_W / 2))
          .style('opacity', 0);
        n.append('rect').attr('class', 'card').attr('width', NODE_W).attr('height', NODE_H).attr('rx', 9);
        n.append('circle').attr('class', 'badge').attr('cx', 17).attr('cy', 17).attr('r', 11);
        n.append('text').attr('class', 'marker').attr('x', 17).attr('y', 21.5);
        n.append('text').attr('class', 'size').attr('x', 36).attr('y', 22);
        n.append('text').attr('class', 'id').attr('x', NODE_W - 10).attr('y', 22);
        n.append('text').attr('class', 'addr start').attr('x', 12).attr('y', 44);
        n.append('text').attr('class', 'addr end').attr('x', 12).attr('y', 59);
        n.append('text').attr('class', 'max').attr('x', 12).attr('y', 77);
        n.append('title');
        n.on('mouseenter', (_e, p) => this.opts.onHover?.(p.data.node?.id ?? null)).on('mouseleave', () =>
          this.opts.onHover?.(null),
        );
        return n;
      });
    const node = (p: P) => p.data.node as FreeNode;
    g.attr('class', (p) => `node ${node(p).black ? 'black' : 'red'}`)
      .attr('data-id', (p) => node(p).id)
      .attr('data-va-start', (p) => hex(node(p).vaStart))
      .attr('data-va-end', (p) => hex(node(p).vaEnd))
      .attr('data-subtree-max-size', (p) => hex(node(p).subtreeMaxSize))
      .attr('data-color', (p) => (node(p).black ? 'black' : 'red'))
      .attr('data-depth', (p) => node(p).depth)
      .order();
    g.select('text.marker').text((p) => (node(p).black ? 'B' : 'R'));
    g.select('text.size').text((p) => `size ${size(node(p).vaEnd - node(p).vaStart)}`);
    g.select('text.id').text((p) => `#${node(p).id}`);
    g.select('text.start').text((p) => `[${hex(node(p).vaStart)},`);
    g.select('text.end').text((p) => ` ${hex(node(p).vaEnd)})`);
    g.select('text.max').text((p) => `subtree max ${size(node(p).subtreeMaxSize)}`);
    g.select('title').text((p) => {
      const n = node(p);
      return (
        `${n.black ? 'black' : 'red'} node #${n.id} at depth ${n.depth}\n` +
        `free block [${hex(n.vaStart)}, ${hex(n.vaEnd)}), ${size(n.vaEnd - n.vaStart)}\n` +
        `subtree_max_size ${hex(n.subtreeMaxSize)} (${size(n.subtreeMaxSize)})`
      );
    });
    g.transition(t)
      .style('opacity', 1)
      .attr('transform', (p) => translate(at(p), -NODE_W / 2));

    layer
      .selectAll<SVGGElement, P>('g.nil')
      .data(nils, (p) => p.data.key)
      .join((enter) => {
        const n = enter.append('g').attr('class', 'nil');
        n.append('rect').attr('width', NIL_W).attr('height', NIL_H).attr('rx', 3);
        n.append('text').attr('x', NIL_W / 2).attr('y', 11.5).text('nil');
        return n;
      })
      .attr('transform', (p) => translate(at(p), -NIL_W / 2));

    this.highlight(this.highlighted);
  }

  /** Scroll the panel so the root is in view, centred (wide trees overflow the panel). */
  centerRoot(): void {
    this.root.scrollLeft = Math.max(0, this.rootX - this.root.clientWidth / 2);
    this.root.scrollTop = 0;
  }

  /** Outline the node of this area id (null clears). */
  highlight(id: number | null): void {
    this.highlighted = id;
    this.svg.selectAll<SVGGElement, P>('g.node').classed('hl', (p) => id !== null && p.data.node?.id === id);
  }
}

function translate([x, y]: [number, number], dx: number): string {
  return `translate(${x + dx},${y})`;
}
