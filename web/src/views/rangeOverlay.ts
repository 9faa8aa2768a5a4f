// The outlines of the ranges a step is about (the block being clipped or merged, its new bounds,
// the request), drawn over an address view (the bar and the zoomed view): one outline and one
// label a range, keyed by its place in the list. Each view says where they go.
import type { Selection } from 'd3';
import { hex, range } from '../format';
import type { FocusRange } from '../player/focus';
import { setAttrs, setText } from './dom';

/** A range with its x on the view (`x0` to `x1`) and its place in the step's list. */
export type PlacedRange = FocusRange & { i: number; x0: number; x1: number };

/** Where one range's outline and label go: `words` is the label, `inset` the outline's inset (px). */
export type RangePlace = (d: PlacedRange, words: string, inset: number) => { rect: Record<string, number>; text: Record<string, number> };

/** Draw `data` in the view's `g.overlay`. */
export function drawRanges(svg: Selection<SVGSVGElement, unknown, null, undefined>, data: PlacedRange[], place: RangePlace): void {
  svg
    .select<SVGGElement>('g.overlay')
    .selectAll<SVGGElement, PlacedRange>('g.range')
    .data(data, (d) => `${d.i}`)
    .join((enter) => {
      const r = enter.append('g').attr('class', 'range');
      r.append('rect').attr('rx', 3);
      r.append('text');
      return r;
    })
    .each(function (d) {
      setAttrs(this, { class: `range tone-${d.tone}`, 'data-tone': d.tone, 'data-va-start': hex(d.start), 'data-va-end': hex(d.end) });
      const [rect, text] = this.children;
      const words = `${d.label} ${range(d.start, d.end)}`;
      // The new block, the request and a busy area sit inside the outline of the old block.
      const inset = d.tone === 'new' || d.tone === 'request' || d.tone === 'busy' ? 6 : 0;
      const at = place(d, words, inset);
      setAttrs(rect, at.rect);
      setText(text, words);
      setAttrs(text, at.text);
    });
}
