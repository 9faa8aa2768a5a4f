// The code panel: the kernel function the current micro-step comes from, its phase, an
// excerpt of its code with the line the step is at, and for fits a small diagram of the block
// and the request. Hooks: `data-function`, `data-phase`, `data-line`.
import { select } from 'd3';
import { hex, size } from '../format';
import { LISTINGS } from '../narrate/code';
import type { FitDiagram, Narration } from '../narrate/narrate';
import { el } from './common';

export class CodePanel {
  private readonly head: HTMLElement;
  private readonly pre: HTMLOListElement;
  private readonly diagram: HTMLElement;
  private shown = '';

  constructor(private readonly root: HTMLElement) {
    root.classList.add('code-panel');
    this.head = root.appendChild(el('div', 'code-head'));
    this.diagram = root.appendChild(el('div', 'fit-diagram'));
    this.diagram.dataset.testid = 'fit-diagram';
    this.pre = root.appendChild(el('ol', 'code-lines'));
    this.pre.setAttribute('aria-label', 'Kernel code');
    // It scrolls: reachable from the keyboard (axe: scrollable-region-focusable).
    this.pre.tabIndex = 0;
  }

  render(n: Narration | null, idleFn = ''): void {
    const r = this.root;
    const listing = n ? LISTINGS[n.listing] : LISTINGS[idleFn];
    r.dataset.function = n ? n.fn : '';
    r.dataset.phase = n ? n.phase : '';
    r.dataset.line = n ? n.line : '';
    this.head.replaceChildren();
    if (listing) {
      this.head.append(el('span', 'code-file', listing.file), el('code', 'code-fn', `${n ? n.fn : listing.fn}()`));
      if (n?.phase) this.head.append(el('span', 'code-phase', n.phase));
    } else {
      this.head.append(el('span', 'code-file', 'The kernel code of each micro-step shows here.'));
    }
    const key = listing ? listing.fn + listing.file : '';
    if (key !== this.shown) {
      this.shown = key;
      this.pre.scrollTop = 0;
      this.pre.style.paddingBottom = '';
      this.pre.replaceChildren(
        ...(listing?.lines ?? []).map((l) => {
          const li = el('li', 'code-line');
          if (l.id) li.dataset.line = l.id;
          li.append(el('code', '', l.text || ' '));
          return li;
        }),
      );
    }
    const want = n && listing ? n.line : '';
    let current: HTMLLIElement | null = null;
    for (const li of Array.from(this.pre.children) as HTMLLIElement[]) {
      const on = want !== '' && li.dataset.line === want;
      li.classList.toggle('current', on);
      if (on) current = li;
    }
    if (current) {
      const li = current;
      // Read layout once, after this frame's writes, rather than in the middle of them. Every
      // step, not only when the line changes: the box's height follows the narration's length.
      requestAnimationFrame(() => {
        if (li.isConnected) this.scrollTo(li);
      });
    }
    this.renderFit(n?.fit ?? null);
  }

  /**
   * Keep the current line whole in view and no line cut at the top: when either fails, the
   * current line about a third of the way down, the scroll stopped at a line's top (lines wrap:
   * their heights differ) within [lo, hi] (the current line whole in view, no further than the
   * list scrolls).
   */
  private scrollTo(li: HTMLElement): void {
    const pre = this.pre;
    // A line's top in the list's scrolled content (0 = the top of its padding box).
    const origin = pre.getBoundingClientRect().top + pre.clientTop - pre.scrollTop;
    const lines = Array.from(pre.children) as HTMLElement[];
    const tops = [0, ...lines.map((l) => l.getBoundingClientRect().top - origin)];
    const top = tops[lines.indexOf(li) + 1];
    const st = pre.scrollTop;
    const inView = top >= st - 0.5 && top + li.offsetHeight <= st + pre.clientHeight + 0.5;
    if (inView && tops.some((t) => Math.abs(t - st) < 0.5)) return;
    const lo = top + li.offsetHeight - pre.clientHeight;
    const hi = Math.min(top, pre.scrollHeight - pre.clientHeight);
    const want = Math.min(Math.max(top - pre.clientHeight / 3, lo), hi);
    const stops = tops.filter((t) => t >= lo - 0.5 && t <= hi + 0.5);
    const below = stops.filter((t) => t <= want);
    if (below.length || stops.length) {
      pre.scrollTop = below.length ? Math.max(...below) : Math.min(...stops);
      return;
    }
    // The list ends before a line top is in reach (near its end): the first line top past `lo`
    // (the current line's at worst), made reachable by room below the last line.
    const at = Math.min(top, ...tops.filter((t) => t >= lo - 0.5));
    const short = at - (pre.scrollHeight - pre.clientHeight);
    if (short > 0) pre.style.paddingBottom = `${parseFloat(getComputedStyle(pre).paddingBottom) + short}px`;
    pre.scrollTop = at;
  }

  /** Block vs request: [va_start, va_end) with [nva, nva + size) inside, and what is left. */
  private renderFit(fit: FitDiagram | null): void {
    this.diagram.hidden = fit === null;
    this.diagram.dataset.fit = fit?.fit ?? '';
    const W = 320;
    const H = 74;
    const sel = select(this.diagram)
      .selectAll<SVGSVGElement, FitDiagram>('svg')
      .data(fit ? [fit] : [])
      .join('svg')
      .attr('viewBox', `0 0 ${W} ${H}`)
      .attr('width', W)
      .attr('height', H)
      .attr('role', 'img');
    if (!fit) return;
    sel.attr('aria-label', `${fit.fit} fit: request [${hex(fit.nva)}, ${hex(fit.nva + fit.size)}) in block [${hex(fit.vaStart)}, ${hex(fit.vaEnd)})`);
    const span = fit.vaEnd - fit.vaStart;
    const frac = (a: bigint) => (span > 0n ? Number(((a - fit.vaStart) * 1_000_000n) / span) / 1_000_000 : 0);
    const x0 = 10;
    const bw = W - 20;
    let rx = x0 + frac(fit.nva) * bw;
    let rw = Math.max(10, (frac(fit.nva + fit.size) - frac(fit.nva)) * bw);
    // Keep the request visible and on the right side of the block for RE/LE/FL.
    if (fit.fit === 'RE') rx = x0 + bw - rw;
    if (fit.fit === 'LE' || fit.fit === 'FL') rx = x0;
    if (fit.fit === 'FL') rw = bw;
    if (fit.fit === 'NE') rx = Math.min(Math.max(rx, x0 + 24), x0 + bw - rw - 24);
    const parts = [
      { cls: 'block', x: x0, w: bw, y: 16, h: 26 },
      { cls: 'request', x: rx, w: rw, y: 20, h: 18 },
    ];
    sel
      .selectAll<SVGRectElement, (typeof parts)[number]>('rect')
      .data(parts)
      .join('rect')
      .attr('class', (d) => d.cls)
      .attr('x', (d) => d.x)
      .attr('y', (d) => d.y)
      .attr('width', (d) => d.w)
      .attr('height', (d) => d.h)
      .attr('rx', 3);
    const reqHalf = Math.min(bw / 2, (`request ${size(fit.size)} at ${hex(fit.nva)}`.length * 6.4) / 2);
    const labels = [
      { cls: 'lbl', x: x0, y: 11, a: 'start', t: `block ${size(span)}` },
      { cls: 'lbl fit', x: x0 + bw, y: 11, a: 'end', t: fit.fit },
      {
        cls: 'lbl req',
        x: Math.min(x0 + bw - reqHalf, Math.max(x0 + reqHalf, rx + rw / 2)),
        y: 56,
        a: 'middle',
        t: `request ${size(fit.size)} at ${hex(fit.nva)}`,
      },
      { cls: 'lbl addr', x: x0, y: 70, a: 'start', t: hex(fit.vaStart) },
      { cls: 'lbl addr', x: x0 + bw, y: 70, a: 'end', t: hex(fit.vaEnd) },
    ];
    sel
      .selectAll<SVGTextElement, (typeof labels)[number]>('text')
      .data(labels)
      .join('text')
      .attr('class', (d) => d.cls)
      .attr('x', (d) => d.x)
      .attr('y', (d) => d.y)
      .attr('text-anchor', (d) => d.a)
      .text((d) => d.t);
  }
}
