// The operation list and a minimal player: step forward/back by operation, scrub, jump to an
// operation, and add an operation line (errors shown inline). Step k is the state before op k,
// i.e. after the first k operations. The animated per-event player comes later; it can sit
// beside this list and reuse `onStep`.
import type { OpSummary } from '../bridge';
import { el } from './common';

export interface PlayerOptions {
  /** Go to step k (0..length). */
  onStep: (k: number) => void;
  /** Append a line; returns an error message, or null when it was added. */
  onPush: (line: string) => string | null;
}

export class Player {
  private ops: OpSummary[] = [];
  private step = 0;
  private readonly label: HTMLElement;
  private readonly scrubber: HTMLInputElement;
  private readonly now: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly input: HTMLInputElement;
  private readonly error: HTMLElement;
  private readonly buttons: Record<'first' | 'prev' | 'next' | 'last', HTMLButtonElement>;

  constructor(
    root: HTMLElement,
    private readonly opts: PlayerOptions,
  ) {
    root.classList.add('player');
    const controls = root.appendChild(el('div', 'controls'));
    const button = (action: string, text: string, title: string) => {
      const b = controls.appendChild(el('button', `btn ${action}`, text));
      b.type = 'button';
      b.dataset.action = action;
      b.title = title;
      b.setAttribute('aria-label', title);
      return b;
    };
    this.buttons = {
      first: button('first', '« Start', 'Go to the start (Home)'),
      prev: button('prev', '◀ Back', 'Step back one operation (←)'),
      next: button('next', 'Step ▶', 'Step forward one operation (→)'),
      last: button('last', 'End »', 'Go to the end (End)'),
    };
    this.label = el('span', 'step-label');
    this.label.dataset.testid = 'step-label';
    this.label.setAttribute('aria-live', 'polite');
    const where = root.appendChild(el('div', 'where'));
    where.append(this.label);
    controls.addEventListener('click', (e) => {
      const action = (e.target as HTMLElement).closest<HTMLButtonElement>('button')?.dataset.action;
      if (action === 'first') this.go(0);
      else if (action === 'prev') this.go(this.step - 1);
      else if (action === 'next') this.go(this.step + 1);
      else if (action === 'last') this.go(this.ops.length);
    });

    this.scrubber = where.appendChild(el('input', 'scrubber'));
    this.scrubber.type = 'range';
    this.scrubber.min = '0';
    this.scrubber.setAttribute('aria-label', 'Timeline: step');
    this.scrubber.addEventListener('input', () => this.go(Number(this.scrubber.value)));

    this.now = root.appendChild(el('p', 'now'));
    this.now.dataset.testid = 'now';

    this.list = root.appendChild(el('ol', 'ops'));
    this.list.setAttribute('aria-label', 'Operations of the trace');
    this.list.addEventListener('click', (e) => {
      const li = (e.target as HTMLElement).closest<HTMLLIElement>('li[data-index]');
      if (li) this.go(Number(li.dataset.index) + 1);
    });

    const form = root.appendChild(el('form', 'push'));
    const lab = form.appendChild(el('label', 'push-label', 'Add an operation'));
    const row = form.appendChild(el('div', 'push-row'));
    this.input = row.appendChild(el('input', 'push-input'));
    this.input.name = 'line';
    this.input.id = `${root.id || 'player'}-push`;
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
      this.error.textContent = err ?? '';
      if (err === null) this.input.value = '';
    });
    this.input.addEventListener('input', () => {
      this.error.hidden = true;
    });
  }

  private go(k: number): void {
    const clamped = Math.max(0, Math.min(this.ops.length, k));
    if (clamped !== this.step) this.opts.onStep(clamped);
  }

  /** Replace the list of operations. */
  setOps(ops: OpSummary[]): void {
    this.ops = ops;
    this.list.replaceChildren(
      ...ops.map((op) => {
        const li = el('li', 'op');
        li.dataset.index = String(op.index);
        li.title = `line ${op.line}${op.output ? `\n${op.output}` : ''}`;
        li.append(el('span', 'idx', String(op.index + 1)), el('code', 'text', op.text));
        const out = summarizeOutput(op.output);
        if (out) li.append(el('span', 'out', out));
        if (op.warning) li.append(el('span', 'warning', `⚠ ${op.warning}`));
        return li;
      }),
    );
    this.scrubber.max = String(ops.length);
    this.setStep(Math.min(this.step, ops.length));
  }

  /** Show step k as current. */
  setStep(k: number): void {
    this.step = k;
    const n = this.ops.length;
    this.label.textContent = `step ${k} / ${n}`;
    this.scrubber.value = String(k);
    this.buttons.first.disabled = this.buttons.prev.disabled = k <= 0;
    this.buttons.next.disabled = this.buttons.last.disabled = k >= n;
    for (const li of this.list.children as HTMLCollectionOf<HTMLLIElement>) {
      const i = Number(li.dataset.index);
      li.classList.toggle('done', i < k);
      li.classList.toggle('current', i === k - 1);
      if (i === k - 1) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    }
    const last = k > 0 ? this.ops[k - 1] : null;
    this.now.replaceChildren();
    if (last) {
      this.now.append('After ', el('code', '', last.text));
      const out = summarizeOutput(last.output);
      if (out) this.now.append(' → ', el('strong', '', out));
    } else {
      this.now.append(n ? 'The initial state, before the first operation.' : 'No operations yet: add one below.');
    }
    this.reveal(this.list.querySelector<HTMLLIElement>('li.current'));
  }

  /** Scroll the list (only the list, never the page) so `li` is visible. */
  private reveal(li: HTMLLIElement | null): void {
    if (!li) return;
    const list = this.list;
    const top = li.offsetTop; // the list is position: relative, so this is within it
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + li.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top + li.offsetHeight - list.clientHeight;
    }
  }

  /** Step keys: ←/→ one operation, Home/End. Returns true when the key was used. */
  key(e: KeyboardEvent): boolean {
    if (e.key === 'ArrowLeft') this.go(this.step - 1);
    else if (e.key === 'ArrowRight') this.go(this.step + 1);
    else if (e.key === 'Home') this.go(0);
    else if (e.key === 'End') this.go(this.ops.length);
    else return false;
    return true;
  }
}

/** One line for what an operation printed: the line itself, or a count for dumps and listings. */
export function summarizeOutput(s: string): string {
  const lines = s.split('\n').filter((l) => l.trim() && l !== 'end');
  if (lines.length === 0) return s.includes('end') ? 'printed an empty listing' : '';
  if (lines.length === 1 && !/^(node|busy|lazy) /.test(lines[0])) return lines[0];
  const count = (word: string) => lines.filter((l) => l.startsWith(`${word} `)).length;
  const parts: string[] = [];
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  if (count('node')) parts.push(plural(count('node'), 'free-tree node', 'free-tree nodes'));
  if (count('busy')) parts.push(plural(count('busy'), 'busy area', 'busy areas'));
  if (count('lazy')) parts.push(plural(count('lazy'), 'lazy block', 'lazy blocks'));
  const other = lines.length - count('node') - count('busy') - count('lazy');
  if (other) parts.push(plural(other, 'line', 'lines'));
  return `printed ${parts.join(', ')}`;
}
