// The list of operations: click one to jump to the state after it; the operation running (its
// micro-steps on screen) and the last one done are marked. Below it, a line of the trace
// language can be added (errors shown inline). Step k is the state before op k, i.e. after the
// first k operations.
//
// A long list is built a block of rows at a time: each block stands as one empty row of about
// its height until it scrolls near the view or holds the row to show, and a few blocks at most
// are built at once (the one farthest from the view goes back to a gap of its measured height).
// 20,000 rows built and laid out at once held the page for seconds on opening, and for half a
// second on every jump across the list.
//
//   ol.ops:  [gap 0..499] [gap 500..999] [row 1000] ... [row 1499] [gap 1500..1999] ...
//                                          ^ built: near the view, or holding the current row
import type { OpSummary } from '../bridge';
import { typedLineMessage } from '../player/inputs';
import { el } from './common';

/** Rows built at a time in a long list; a list of at most two blocks is built whole. */
const BLOCK = 500;
/** Height a row never built is assumed to take (em of the list's rows, which take 2-3 lines). */
const ROW_EM = 4;
/** Blocks built at most at once. */
const MAX_BLOCKS = 6;

export interface OpListOptions {
  /** Go to step k (0..length). */
  onStep: (k: number) => void;
  /** Append a line; returns an error message, or null when it was added. */
  onPush: (line: string) => string | null;
}

export class OpList {
  private ops: OpSummary[] = [];
  /** The rows built so far, by operation index. */
  private rows: (HTMLLIElement | undefined)[] = [];
  /** The stand-ins of the blocks not built yet, by block. */
  private gaps: (HTMLLIElement | undefined)[] = [];
  /** The blocks built (long lists only), oldest first. */
  private built: number[] = [];
  private watcher: IntersectionObserver | null = null;
  private step = 0;
  private running = -1;
  private readonly now: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly input: HTMLInputElement;
  private readonly error: HTMLElement;

  constructor(
    root: HTMLElement,
    private readonly opts: OpListOptions,
  ) {
    root.classList.add('op-list');
    this.now = root.appendChild(el('p', 'now'));
    this.now.dataset.testid = 'now';

    this.list = root.appendChild(el('ol', 'ops'));
    this.list.setAttribute('aria-label', 'Operations of the trace');
    // A scroll region the keyboard can reach (Tab, then the arrow keys scroll it).
    this.list.tabIndex = 0;
    this.list.addEventListener('click', (e) => {
      const li = (e.target as HTMLElement).closest<HTMLLIElement>('li[data-index]');
      if (li) this.opts.onStep(Number(li.dataset.index) + 1);
    });

    const form = root.appendChild(el('form', 'push'));
    const lab = form.appendChild(el('label', 'push-label', 'Add an operation'));
    const row = form.appendChild(el('div', 'push-row'));
    this.input = row.appendChild(el('input', 'push-input'));
    this.input.name = 'line';
    this.input.id = `${root.id || 'ops'}-push`;
    lab.htmlFor = this.input.id;
    this.input.autocomplete = 'off';
    this.input.spellcheck = false;
    this.input.placeholder = 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff';
    const add = row.appendChild(el('button', 'btn add', 'Add'));
    add.type = 'submit';
    this.error = form.appendChild(el('p', 'error'));
    this.error.dataset.testid = 'push-error';
    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;
    form.appendChild(
      el('p', 'hint', 'alloc SIZE ALIGN VSTART VEND · free ADDR · vfree ADDR · purge · init START END · cpus N'),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const line = this.input.value.trim();
      if (!line) return;
      const err = this.opts.onPush(line);
      this.error.hidden = err === null;
      this.error.textContent = err === null ? '' : typedLineMessage(err);
      if (err === null) this.input.value = '';
    });
    this.input.addEventListener('input', () => {
      this.error.hidden = true;
    });
  }

  /** Add operations at the end of the list (a followed trace that grew). */
  append(more: OpSummary[]): void {
    this.setOps(this.ops.concat(more));
  }

  /** Replace the list of operations. */
  setOps(ops: OpSummary[]): void {
    this.ops = ops;
    this.rows = new Array<HTMLLIElement | undefined>(ops.length);
    this.watcher?.disconnect();
    this.watcher = null;
    this.step = -1;
    this.running = -2;
    this.revealed = null;
    this.shownIndex = -1;
    const long = ops.length > 2 * BLOCK;
    this.list.dataset.total = String(ops.length);
    if (!long || typeof IntersectionObserver === 'undefined') {
      this.gaps = [];
      this.list.replaceChildren(...ops.map((_, i) => this.build(i, long)));
      return;
    }
    // Blocks are built as they come within a few screens of the list's view.
    this.watcher = new IntersectionObserver(
      (seen) => {
        for (const e of seen) if (e.isIntersecting) this.buildBlock(Number((e.target as HTMLElement).dataset.block));
      },
      { root: this.list, rootMargin: '600px 0px' },
    );
    this.gaps = [];
    this.built = [];
    for (let b = 0; b * BLOCK < ops.length; b++) {
      this.gaps.push(this.gap(b, `${Math.min(BLOCK, ops.length - b * BLOCK) * ROW_EM}em`));
    }
    this.list.replaceChildren(...this.gaps.filter((g): g is HTMLLIElement => g !== undefined));
  }

  /** The stand-in of block `b`, watched. */
  private gap(b: number, height: string): HTMLLIElement {
    const gap = el('li', 'ops-gap');
    gap.dataset.block = String(b);
    gap.setAttribute('aria-hidden', 'true');
    gap.style.height = height;
    this.watcher?.observe(gap);
    return gap;
  }

  /** The row of operation `i`, as the position shown marks it. */
  private build(i: number, counted: boolean): HTMLLIElement {
    const op = this.ops[i];
    const li = el('li', 'op');
    li.dataset.index = String(op.index);
    li.title = `op ${op.index + 1}${op.output ? `\n${op.output}` : ''}`;
    li.append(el('span', 'idx', String(op.index + 1)), el('code', 'text', op.text));
    const out = summarizeOutput(op.output);
    if (out) li.append(el('span', 'out', out));
    if (op.warning) li.append(el('span', 'warning', `⚠ ${op.warning}`));
    if (counted) {
      // Screen readers count the whole list, not the rows built.
      li.setAttribute('aria-setsize', String(this.ops.length));
      li.setAttribute('aria-posinset', String(i + 1));
    }
    if (this.step >= 0) this.mark(li, i, this.step, this.running);
    this.rows[i] = li;
    return li;
  }

  /** Build block `b` in place of its stand-in (nothing if it is built). */
  private buildBlock(b: number): void {
    const gap = this.gaps[b];
    if (!gap) return;
    this.gaps[b] = undefined;
    this.watcher?.unobserve(gap);
    const rows: HTMLLIElement[] = [];
    for (let i = b * BLOCK; i < Math.min(this.ops.length, (b + 1) * BLOCK); i++) rows.push(this.build(i, true));
    gap.replaceWith(...rows);
    this.built.push(b);
    // Too many built: the one farthest from this one goes, never the shown row's.
    const shown = Math.floor(Math.max(0, this.shownIndex) / BLOCK);
    while (this.built.length > MAX_BLOCKS) {
      let far = -1;
      for (const x of this.built) {
        if (x !== b && x !== shown && (far < 0 || Math.abs(x - b) > Math.abs(far - b))) far = x;
      }
      if (far < 0) break;
      this.unbuildBlock(far);
    }
  }

  /** Put block `b` back to a gap of the height its rows take (so nothing in view moves). */
  private unbuildBlock(b: number): void {
    const lo = b * BLOCK;
    const hi = Math.min(this.ops.length, lo + BLOCK);
    const first = this.rows[lo];
    const last = this.rows[hi - 1];
    if (!first || !last) return;
    const gap = this.gap(b, `${last.offsetTop + last.offsetHeight - first.offsetTop}px`);
    first.before(gap);
    const r = document.createRange();
    r.setStartBefore(first);
    r.setEndAfter(last);
    r.deleteContents();
    this.rows.fill(undefined, lo, hi);
    this.gaps[b] = gap;
    this.built = this.built.filter((x) => x !== b);
  }

  /** The row of operation `i`, built with its block if need be (null past the end). */
  private rowAt(i: number): HTMLLIElement | null {
    if (i < 0 || i >= this.ops.length) return null;
    if (!this.rows[i]) this.buildBlock(Math.floor(i / BLOCK));
    return this.rows[i] ?? null;
  }

  private mark(li: HTMLLIElement, i: number, k: number, run: number): void {
    li.classList.toggle('done', i < k);
    li.classList.toggle('current', i === k - 1 && run < 0);
    if (i === k - 1 && run < 0) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
    li.classList.toggle('running', i === run);
  }

  /** Show step k (and, during the micro-steps of op `running`, that one as running). */
  setPosition(k: number, running: number | null): void {
    const run = running ?? -1;
    if (k === this.step && run === this.running) return;
    const rows = this.rows;
    // Only the rows whose marks change: those between the old step and the new one (all of
    // them after setOps), and the running ones. Rows not built yet are marked when built.
    const lo = Math.max(0, Math.min(k, this.step < 0 ? 0 : this.step) - 1);
    const hi = this.step < 0 ? rows.length : Math.min(rows.length, Math.max(k, this.step) + 1);
    for (let i = lo; i < hi; i++) {
      const li = rows[i];
      if (li) this.mark(li, i, k, run);
    }
    for (const i of [this.running, run]) {
      const li = i >= 0 ? rows[i] : undefined;
      if (li) this.mark(li, i, k, run);
    }
    this.step = k;
    this.running = run;

    const last = k > 0 ? this.ops[k - 1] : null;
    this.now.replaceChildren();
    if (run >= 0 && this.ops[run]) {
      this.now.append('Running ', el('code', '', this.ops[run].text));
    } else if (last) {
      this.now.append('After ', el('code', '', last.text));
      const out = summarizeOutput(last.output);
      if (out) this.now.append(' → ', el('strong', '', out));
    } else {
      this.now.append(this.ops.length ? 'The initial state, before the first operation.' : 'No operations yet: add one below.');
    }
    // The running row, else the last one done; at the start, the first (the one to run).
    this.shownIndex = run >= 0 ? run : Math.max(0, k - 1);
    this.reveal(this.rowAt(this.shownIndex));
  }

  /** The row the position shows (see setPosition; -1 before the first position). */
  private shownIndex = -1;

  /** Scroll the list (only the list, never the page) so `li` is visible. */
  private reveal(li: HTMLLIElement | null): void {
    if (!li || li === this.revealed) return;
    this.revealed = li;
    // Read layout once, after this frame's writes.
    requestAnimationFrame(() => this.scrollTo(li));
  }

  private revealed: HTMLLIElement | null = null;

  private scrollTo(li: HTMLLIElement): void {
    if (!li.isConnected) return;
    const list = this.list;
    const top = li.offsetTop; // the list is position: relative, so this is within it
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + li.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top + li.offsetHeight - list.clientHeight;
    }
  }
}

/**
 * The kinds of listing line an operation can print, each told by its shape: a free-tree `dump`
 * node (`node 0x… 0x… 0x… B depth=…`), linux-6.9's vmap node header of `busy` (`node 1`), a maple
 * tree `dump` node (`node 3 leaf min=…`), busy and lazy areas, and maple-rfc's bump chunks and
 * the areas in them. The maple dump's frame (`dump height=…`, `root NULL`, `enddump`) counts as
 * nothing, as `end` does.
 */
const LISTING: [RegExp, string, string][] = [
  [/^node 0x/, 'free-tree node', 'free-tree nodes'],
  [/^node \d+$/, 'vmap node', 'vmap nodes'],
  [/^node \d+ (leaf|arange)\b/, 'maple node', 'maple nodes'],
  [/^busy /, 'busy area', 'busy areas'],
  [/^lazy /, 'lazy block', 'lazy blocks'],
  [/^chunk /, 'bump chunk', 'bump chunks'],
  [/^bump 0x/, 'area in a chunk', 'areas in chunks'],
];
const FRAME = /^(end|enddump|root NULL|dump height=\d+ nodes=\d+)$/;

/** One line for what an operation printed: the line itself, or a count for dumps and listings. */
export function summarizeOutput(s: string): string {
  const all = s.split('\n').filter((l) => l.trim());
  const lines = all.filter((l) => !FRAME.test(l));
  if (lines.length === 0) return all.length ? 'printed an empty listing' : '';
  if (lines.length === 1 && !LISTING.some(([re]) => re.test(lines[0]))) return lines[0];
  const parts: string[] = [];
  let other = lines.length;
  for (const [re, one, many] of LISTING) {
    const n = lines.filter((l) => re.test(l)).length;
    if (n) parts.push(`${n} ${n === 1 ? one : many}`);
    other -= n;
  }
  if (other) parts.push(`${other} ${other === 1 ? 'line' : 'lines'}`);
  return `printed ${parts.join(', ')}`;
}
