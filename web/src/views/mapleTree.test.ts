// The maple view's node markup (views/mapleTree.ts `nodeMarkup`): what a drawn node's element
// holds, written by hand for a small arange root over a leaf, so that drawing from markup instead
// of a D3 join per cell keeps every cell, its range and its content.
import { describe, expect, it } from 'vitest';
import { parseMapleNode } from '../maple/bridge';
import { nodeMarkup, nodeWidth, pathText, type MapleFocus } from './mapleTree';

const ROOT = parseMapleNode({
  id: 4,
  parent: null,
  parent_slot: 0,
  depth: 0,
  type: 'arange',
  min: '0x0',
  max: '0xffffffffffffffff',
  end: 1,
  mgap: 1,
  slots: [
    { piv: '0x7fff', k: 'C', child: 1, gap: '0x1000' },
    { piv: '0xffffffffffffffff', k: 'C', child: 2, gap: '0x4000' },
  ],
});

const LEAF = parseMapleNode({
  id: 1,
  parent: 4,
  parent_slot: 0,
  depth: 1,
  type: 'leaf',
  min: '0x0',
  max: '0x7fff',
  end: 2,
  mgap: 0,
  slots: [
    { piv: '0xfff', k: 'N', child: null, gap: null },
    { piv: '0x2fff', k: 'E', child: null, gap: null },
    { piv: '0x7fff', k: 'E', child: null, gap: null },
  ],
});

/** The cells of the markup: class, slot, tooltip and texts, read back with regular expressions. */
function cells(html: string): { cls: string; slot: number; title: string; texts: string[]; gapbar: string | null }[] {
  const out = [];
  for (const m of html.matchAll(/<g class="(maple-cell [^"]*)" transform="[^"]*" data-slot="(\d+)">(.*?)<\/g>/g)) {
    const body = m[3];
    out.push({
      cls: m[1],
      slot: Number(m[2]),
      title: /<title>(.*?)<\/title>/.exec(body)?.[1] ?? '',
      texts: [...body.matchAll(/<text class="(\w+)"[^>]*>(.*?)<\/text>/g)].map((t) => `${t[1]}=${t[2]}`),
      gapbar: /<rect class="gapbar"[^>]*width="([^"]*)"/.exec(body)?.[1] ?? null,
    });
  }
  return out;
}

describe('maple node markup', () => {
  it('draws every slot of a leaf, used or not, with its exact range and content', () => {
    const m = nodeMarkup(LEAF);
    const c = cells(m.html);
    expect(c.map((x) => x.slot)).toEqual([...Array(16).keys()]);
    expect(m.cellClass).toEqual(c.map((x) => x.cls));
    expect(c.slice(0, 4).map((x) => x.cls)).toEqual(['maple-cell null', 'maple-cell entry', 'maple-cell entry', 'maple-cell unused']);
    expect(c[0].title).toBe('slot 0 [0x0, 0xfff]: NULL hole of 4K');
    expect(c[1].title).toBe('slot 1 [0x1000, 0x2fff]: in use (zero entry), 8K');
    expect(c[2].title).toBe('slot 2 [0x3000, 0x7fff]: in use (zero entry), 20K');
    expect(c[3].title).toBe('slot 3: unused');
    expect(c[0].texts).toEqual(['top=4K', 'bottom=NULL']);
    expect(c[1].texts).toEqual(['top=8K', 'bottom=in use']);
    // Unused cells keep their dashed box and have no text; a leaf has no gap bars.
    expect(c[3].texts).toEqual([]);
    expect(m.html).toContain('<text class="head" x="6" y="13">#1 leaf · 3/16 · [0x0, 0x7fff]</text>');
    expect(c.every((x) => x.gapbar === null)).toBe(true);
  });

  it('draws an arange node’s gaps as bars scaled to its largest, and marks meta.gap', () => {
    const c = cells(nodeMarkup(ROOT).html);
    expect(c).toHaveLength(10);
    expect(c[0].title).toBe('slot 0 [0x0, 0x7fff]: child #1, gap 4K');
    expect(c[1].texts).toEqual(['top=≈16E', 'bottom=→ #2', 'meta=★16K']);
    expect(c[0].texts).toEqual(['top=32K', 'bottom=→ #1', 'meta=4K']);
    // 0x1000 of the largest 0x4000: a quarter of the bar's 56 units; the largest fills it.
    expect(Number(c[0].gapbar)).toBeCloseTo(14, 6);
    expect(Number(c[1].gapbar)).toBeCloseTo(56, 6);
    expect(c.slice(2).every((x) => x.cls === 'maple-cell unused' && x.gapbar === null && x.texts.length === 0)).toBe(true);
  });

  it('draws used cells 62 units wide and unused ones 14, the box as wide as its header at least', () => {
    const html = nodeMarkup(LEAF).html;
    const xs = [...html.matchAll(/transform="translate\((\d+),18\)"/g)].map((m) => Number(m[1]));
    // Slots 0..2 used, 3..15 unused.
    expect(xs).toEqual([0, 62, 124, ...Array.from({ length: 13 }, (_, i) => 186 + 14 * i)]);
    const widths = [...html.matchAll(/<rect class="slot" x="1" y="0" width="(\d+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([60, 60, 60, ...Array<number>(13).fill(12)]);
    // Cells: 3 × 62 + 13 × 14 = 368; the header `#1 leaf · 3/16 · [0x0, 0x7fff]` (30 characters) is narrower.
    expect(nodeWidth(LEAF)).toBe(368);
    // The root's cells take 2 × 62 + 8 × 14 = 236; its header (44 characters) needs 44 × 6.7 + 12.
    expect(nodeWidth(ROOT)).toBe(Math.ceil(44 * 6.7 + 12));
  });
});

describe('the path line', () => {
  const nodes = [ROOT, LEAF];
  const focus = (f: Partial<MapleFocus>): MapleFocus => ({ path: [], node: null, scanned: new Map(), slot: null, found: null, gaps: [], store: null, ...f });

  it('names each node from the root down to the node of the step, with the slot taken', () => {
    expect(pathText(nodes, focus({}))).toBe('');
    expect(pathText(nodes, focus({ path: [4], node: 4, slot: 0 }))).toBe('Path: #4 arange slot 0');
    expect(pathText(nodes, focus({ path: [4, 1], node: 1, slot: 2 }))).toBe('Path: #4 arange slot 0 → #1 leaf slot 2');
    expect(pathText(nodes, focus({ path: [4, 1], node: 1 }))).toBe('Path: #4 arange slot 0 → #1 leaf');
  });

  it('tells the nodes visited off the path, the hole found and a store', () => {
    // Node 2 is not in this snapshot's pair: visited (a wasted descent), then back to #1.
    expect(pathText(nodes, focus({ path: [4, 2, 1], node: 1, slot: 0, found: { node: 1, slot: 0 } }))).toBe(
      'Path: #4 arange slot 0 → #1 leaf slot 0 (also visited #2) · hole: #1 slot 0',
    );
    expect(pathText(nodes, focus({ path: [4, 1], store: 1 }))).toBe('Store: #4 arange slot 0 → #1 leaf');
  });
});
