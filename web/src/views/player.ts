// The list of operations: click one to jump to the state after it; the operation running (its
// micro-steps on screen) and the last one done are marked. Below it, a line of the trace
// language can be added (errors shown inline). Step k is the state before op k, i.e. after the
// first k operations.
import type { OpSummary } from '../bridge';
import { typedLineMessage } from '../player/inputs';
import { el } from './common';

export interface OpListOptions {
  /** Go to step k (0..length). */
  onStep: (k: number) => void;
  /** Append a line; returns an error message, or null when it was added. */
  onPush: (line: string) => string | null;
}

export class OpList {
  private ops: OpSummary[] = [];
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

  /** Replace the list of operations. */
  setOps(ops: OpSummary[]): void {
    this.ops = ops;
    this.list.replaceChildren(
      ...ops.map((op) => {
        const li = el('li', 'op');
        li.dataset.index = String(op.index);
        li.title = `op ${op.index + 1}${op.output ? `\n${op.output}` : ''}`;
        li.append(el('span', 'idx', String(op.index + 1)), el('code', 'text', op.text));
        const out = summarizeOutput(op.output);
        if (out) li.append(el('span', 'out', out));
        if (op.warning) li.append(el('span', 'warning', `⚠ ${op.warning}`));
        return li;
      }),
    );
    this.step = -1;
    this.running = -2;
  }

  /** Show step k (and, during the micro-steps of op `running`, that one as running). */
  setPosition(k: number, running: number | null): void {
    const run = running ?? -1;
    if (k === this.step && run === this.running) return;
    const items = this.list.children as HTMLCollectionOf<HTMLLIElement>;
    const lo = Math.max(0, Math.min(k, this.step < 0 ? 0 : this.step) - 1);
    const hi = this.step < 0 ? items.length : Math.min(items.length, Math.max(k, this.step) + 1);
    for (let i = lo; i < hi; i++) {
      const li = items[i];
      li.classList.toggle('done', i < k);
      li.classList.toggle('current', i === k - 1 && run < 0);
      if (i === k - 1 && run < 0) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    }
    if (this.running >= 0 && items[this.running]) items[this.running].classList.remove('running');
    if (run >= 0 && items[run]) items[run].classList.add('running');
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
    this.reveal(items[run >= 0 ? run : k - 1] ?? null);
  }

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
