// What a lesson stop names, measured from bounding boxes: each thing the stop's `look` points to
// must lie inside the window and inside every ancestor that clips it (a panel's overflow, the
// tree's SVG). Used by the hall walks (hall-layout.spec.ts, embed sizes).
import type { Page } from '@playwright/test';

export interface StopMeasure {
  at: string;
  look: string[];
  asking: boolean;
  /** What is named and not whole: one line each. */
  cut: string[];
}

/** Measure the stop shown now (`card`: the lesson's card is on screen too; an embed has none). */
export async function measureStop(page: Page, card = true): Promise<StopMeasure> {
  return page.evaluate((card) => {
    type R = { left: number; top: number; right: number; bottom: number };
    const app = (window as unknown as { vmapviz?: { app?: Record<string, unknown> } }).vmapviz?.app as
      | {
          lesson?: {
            lesson: { id: string; stops: { look: string[] }[] };
            index: number;
            q?: { revealed: boolean; r: { answer: { ask: string; node?: number; slot?: number; tree?: string } } } | null;
          } | null;
        }
      | undefined;
    const l = app?.lesson ?? null;
    // An embed shows what body[data-embed-look] says (all of the look in a large frame, its first
    // structure in a small one: hall.ts); the spec checks that choice apart.
    const embedLook = document.body.dataset.embedLook;
    const look = embedLook !== undefined ? embedLook.split(' ') : l ? l.lesson.stops[l.index].look : [];
    const at = l ? `${l.lesson.id} ${l.index + 1}` : '?';
    const asking = !!l?.q && !l.q.revealed;
    const cut: string[] = [];
    const shown = (e: Element) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    /** The part of e's box that clips (window, overflow ancestors, SVG viewports). */
    const clipOf = (e: Element): R => {
      let c: R = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
      for (let p = e.parentElement as Element | null; p; p = p.parentElement) {
        const s = getComputedStyle(p);
        const clips = p instanceof SVGSVGElement || s.overflowX !== 'visible' || s.overflowY !== 'visible';
        if (!clips) continue;
        const r = p.getBoundingClientRect();
        c = { left: Math.max(c.left, r.left), top: Math.max(c.top, r.top), right: Math.min(c.right, r.right), bottom: Math.min(c.bottom, r.bottom) };
      }
      return c;
    };
    const whole = (e: Element | null, what: string) => {
      if (!e) return cut.push(`${what}: missing`);
      if (!shown(e)) return cut.push(`${what}: not shown`);
      const r = e.getBoundingClientRect();
      const c = clipOf(e);
      const t = 1;
      if (r.left < c.left - t || r.top < c.top - t || r.right > c.right + t || r.bottom > c.bottom + t)
        cut.push(`${what}: [${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.right)},${Math.round(r.bottom)}] outside [${Math.round(c.left)},${Math.round(c.top)} ${Math.round(c.right)},${Math.round(c.bottom)}]`);
    };
    const q = (s: string) => document.querySelector(s);
    const qa = (s: string) => [...document.querySelectorAll(s)];
    // The stop's card (its title and words) and, for a question, its answer controls.
    if (card) whole(q('[data-widget="lesson"] .lesson-title'), 'card title');
    if (asking) {
      for (const b of qa('[data-widget="lesson"] .lesson-quiz button, [data-widget="lesson"] .lesson-quiz input')) if (shown(b)) whole(b, `answer control "${(b.textContent || (b as HTMLInputElement).name || 'input').trim()}"`);
    }
    // A click question's target: the node (or the node's slot) that answers it.
    const a = asking ? l?.q?.r.answer : undefined;
    if (a?.ask === 'visit' && a.tree === 'free') whole(q(`[data-widget="free-tree"] g.node[data-id="${a.node}"] rect.card`), `the answer's node #${a.node}`);
    if (a?.ask === 'visit' && a.tree === 'maple') whole(q(`[data-widget="maple-tree"] g.maple-node[data-maple-id="${a.node}"] text.head`), `the answer's node #${a.node}`);
    if (a?.ask === 'slot') whole(q(`[data-widget="maple-tree"] g.maple-node[data-maple-id="${a.node}"] [data-slot="${a.slot}"]`), `the answer's slot ${a.slot} of #${a.node}`);
    if (look.includes('narration')) whole(q('[data-widget="narration"] .narration-text'), 'narration');
    if (look.includes('code')) {
      const cur = q('[data-widget="code"] .code-line.current');
      if (cur) whole(cur, 'code line');
    }
    if (look.includes('bar')) {
      // The bar's areas (their extent, not the tick rows under them) and the ranges the step outlines.
      const areas = qa('.space-bar g.areas g.area rect.fill').filter(shown);
      if (!areas.length) cut.push('address bar: no areas drawn');
      else {
        const first = areas.reduce((a, b) => (b.getBoundingClientRect().left < a.getBoundingClientRect().left ? b : a));
        const last = areas.reduce((a, b) => (b.getBoundingClientRect().right > a.getBoundingClientRect().right ? b : a));
        whole(first, 'the bar\'s first area');
        whole(last, 'the bar\'s last area');
      }
      for (const r of qa('.space-bar g.overlay g.range')) if (shown(r)) whole(r, `bar range "${r.textContent}"`);
    }
    if (look.includes('tree') || look.includes('nodes')) {
      const free = q('[data-widget="free-tree"]:not([hidden])');
      if (free && shown(free)) {
        for (const n of qa('[data-widget="free-tree"] g.node[data-mark]')) whole(n.querySelector('rect.card') ?? n, `node #${n.getAttribute('data-id')} (${n.getAttribute('data-mark')})`);
        for (const c of qa('[data-widget="free-tree"] g.callout')) whole(c, `callout "${c.textContent}"`);
      }
      const maple = q('[data-widget="maple-tree"]:not([hidden])');
      if (maple && shown(maple)) {
        // A maple node of 16 slots is wider than any panel at the hall's type: the current node's
        // header and the slots the step decides on (at, found, the gap written) must be whole;
        // slots scanned earlier may lie a pan away.
        for (const n of qa('[data-widget="maple-tree"] g.maple-node.current'))
          whole(n.querySelector('text.head') ?? n, `maple node #${n.getAttribute('data-maple-id')}'s header`);
        for (const s of qa('[data-widget="maple-tree"] .found, [data-widget="maple-tree"] .at-slot, [data-widget="maple-tree"] .gap-current'))
          whole(s, `maple slot ${s.getAttribute('data-slot')} (${s.getAttribute('class')})`);
      }
    }
    // The era's own structures: 5.1's busy list, 6.9's vmap nodes (the panel whole, and the
    // areas, nodes and pools the step names).
    if (look.includes('list') || look.includes('nodes')) whole(q('[data-widget="era"]'), `the era panel (${look.includes('list') ? 'busy list' : 'vmap nodes'})`);
    for (const e of qa('[data-look-item]')) if (shown(e)) whole(e, e.getAttribute('data-look-item') ?? 'item');
    return { at, look, asking, cut };
  }, card);
}

/**
 * Measure the stop until nothing it names is cut, or `ms` have passed: a slow machine may still be
 * laying out (a panel's first render, a pan that follows the current node) when the stop is first
 * measured; a cut that lasts is what the walks report.
 */
export async function settledStop(page: Page, card = true, ms = 3_000): Promise<StopMeasure> {
  const until = Date.now() + ms;
  for (;;) {
    const m = await measureStop(page, card);
    if (!m.cut.length || Date.now() >= until) return m;
    await page.waitForTimeout(150);
  }
}
