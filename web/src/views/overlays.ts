// Small overlays: the keyboard help (`?`) and the offer to free a busy area that was clicked.
import { hex, range, size } from '../format';
import { coreMessage } from '../player/inputs';
import { el } from './common';

const KEYS: [string, string][] = [
  ['Space', 'play / pause'],
  ['← / →', 'one micro-step back / forward'],
  ['Shift + ← / →', 'one whole operation back / forward'],
  ['Home / End', 'to the start / to the end'],
  ['− / +', 'slower / faster (0.25× … 4×, remembered)'],
  ['PgDn / PgUp', 'lecture mode: one micro-step forward / back (a presenter remote; ↓ / ↑ too, Shift for an operation)'],
  ['B / .', 'lecture mode: blank the screen; again (or a step key) to bring it back'],
  ['] / [', 'next / previous event of the kind chosen on the timeline (rotation, merge, split, purge, pool hit, …)'],
  ['K / Shift + K', 'choose the next / previous kind of event for ] and ['],
  ['N / P', 'in a lesson: next / previous stop (PgDn / PgUp too)'],
  ['L', 'the lessons'],
  ['G', 'lecture mode: show / hide the legend (the colours, and the letters F, B, L, P, G, S, N on narrow areas)'],
  ['?', 'this help'],
  ['Esc', 'close this help or a pop-up'],
  ['Swipe ← / →', 'on a touch screen: one micro-step forward / back (a long swipe or two fingers: an operation); a tap shows what a hover shows; two fingers zoom the tree'],
];

/** The bar's letters (a narrow area shows its state's first letter) and the tree's colours. */
const LEGEND: [string, string, string][] = [
  ['swatch-free', 'F', 'free: in the free tree, allocatable'],
  ['swatch-busy', 'B', 'busy: allocated (S, stored, in a maple-tree trace)'],
  ['swatch-lazy', 'L', 'lazy: freed, its pages not yet purged'],
  ['swatch-pool', 'P', 'pool: kept by a vmap node for its size (6.9 and later)'],
  ['swatch-gap', 'G', 'gap: outside the allocator\'s window (N, NULL, in a maple-tree trace)'],
  ['swatch-red', 'R', 'a red node of the red-black tree'],
  ['swatch-black', 'B', 'a black node'],
];

/**
 * Lecture mode's legend (key G): lecture mode leaves the panels' own legends out for room, so
 * the hall asks for this one when a letter or a colour needs saying.
 */
export function lectureLegend(): HTMLElement {
  const box = el('aside', 'lecture-legend');
  box.id = 'lecture-legend';
  box.setAttribute('aria-label', 'Legend');
  box.dataset.testid = 'lecture-legend';
  box.hidden = true;
  box.append(el('h2', '', 'Legend (G hides it)'));
  const ul = box.appendChild(el('ul'));
  for (const [cls, k, what] of LEGEND) {
    const li = ul.appendChild(el('li'));
    const sw = li.appendChild(el('span', `swatch ${cls}`, k));
    sw.setAttribute('aria-hidden', 'true');
    li.append(` ${what}`);
  }
  return box;
}

export class HelpOverlay {
  private readonly box: HTMLElement;
  /** What had the focus when the help opened: it gets it back when the help closes. */
  private opener: HTMLElement | null = null;

  constructor(private readonly root: HTMLElement) {
    root.classList.add('overlay', 'help-overlay');
    root.hidden = true;
    root.setAttribute('role', 'dialog');
    root.setAttribute('aria-modal', 'true');
    root.setAttribute('aria-labelledby', 'help-title');
    this.box = root.appendChild(el('div', 'overlay-box'));
    const h = this.box.appendChild(el('h2', '', 'Keyboard'));
    h.id = 'help-title';
    const dl = this.box.appendChild(el('dl', 'keys'));
    for (const [k, what] of KEYS) {
      const kbd = el('dt');
      for (const [i, part] of k.split(' ').entries()) {
        if (i) kbd.append(' ');
        kbd.append(part === '/' || part === '+' ? part : el('kbd', '', part));
      }
      dl.append(kbd, el('dd', '', what));
    }
    this.box.append(
      el(
        'p',
        'help-note',
        'Keys work while the page has focus, never while you type in a field. Each operation unfolds into the micro-steps the core reports; ' +
          'the narration says what each does and the code panel shows where in the kernel it happens.',
      ),
    );
    const close = this.box.appendChild(el('button', 'btn', 'Close'));
    close.type = 'button';
    close.addEventListener('click', () => this.hide());
    root.addEventListener('click', (e) => {
      if (e.target === root) this.hide();
    });
    // A modal dialog: Tab and Shift+Tab cycle inside it, Esc closes it.
    root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.hide();
        return;
      }
      if (e.key !== 'Tab') return;
      const items = [...this.box.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])')];
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      const at = document.activeElement;
      if (e.shiftKey && (at === first || !this.box.contains(at))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === last || !this.box.contains(at))) {
        e.preventDefault();
        first.focus();
      }
    });
    root.addEventListener('focusout', (e) => {
      // Focus that leaves the open dialog (a click outside its box) comes back to it.
      const to = e.relatedTarget as Node | null;
      if (this.open && to && !root.contains(to)) (this.box.querySelector('button') as HTMLButtonElement).focus();
    });
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  toggle(): void {
    if (this.open) this.hide();
    else this.show();
  }

  show(): void {
    if (this.open) return;
    const at = document.activeElement;
    this.opener = at instanceof HTMLElement && at !== document.body ? at : null;
    this.root.hidden = false;
    (this.root.querySelector('button') as HTMLButtonElement).focus();
  }

  hide(): void {
    if (!this.open) return;
    this.root.hidden = true;
    const back = this.opener;
    this.opener = null;
    if (back && back.isConnected) back.focus();
  }
}

export interface FreeOffer {
  start: bigint;
  end: bigint;
  lazy: boolean;
  /** Whether the trace's end (where a new operation goes) is shown. */
  atEnd: boolean;
  length: number;
}

/** The pop-up a click on a busy area opens: free it (free or vfree) at the end of the trace. */
export class FreePopover {
  private readonly text: HTMLElement;
  private readonly error: HTMLElement;
  private offer: FreeOffer | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly onFree: (line: string) => string | null,
  ) {
    root.classList.add('popover');
    root.hidden = true;
    root.setAttribute('role', 'dialog');
    root.setAttribute('aria-label', 'Free this area');
    this.text = root.appendChild(el('p', 'popover-text'));
    const row = root.appendChild(el('div', 'popover-row'));
    for (const how of ['vfree', 'free'] as const) {
      const b = row.appendChild(el('button', `btn ${how === 'vfree' ? 'primary' : ''}`, how === 'vfree' ? 'vfree (lazy)' : 'free (at once)'));
      b.type = 'button';
      b.dataset.how = how;
      b.addEventListener('click', () => this.go(how));
    }
    const cancel = row.appendChild(el('button', 'btn', 'Cancel'));
    cancel.type = 'button';
    cancel.addEventListener('click', () => this.hide());
    this.error = root.appendChild(el('p', 'error'));
    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  show(offer: FreeOffer, x: number, y: number): void {
    this.offer = offer;
    this.root.hidden = false;
    this.error.hidden = true;
    this.text.replaceChildren(
      'Free the busy area ',
      el('code', '', range(offer.start, offer.end)),
      ` (${size(offer.end - offer.start)})?`,
    );
    if (!offer.atEnd) this.text.append(el('span', 'popover-note', ` It is added after the last operation (op ${offer.length + 1}).`));
    const w = 320;
    this.root.style.left = `${Math.max(8, Math.min(window.innerWidth - w - 8, x - w / 2))}px`;
    this.root.style.top = `${y + 12}px`;
    this.root.dataset.vaStart = hex(offer.start);
    (this.root.querySelector('button[data-how="vfree"]') as HTMLButtonElement).focus();
  }

  hide(): void {
    this.root.hidden = true;
    this.offer = null;
  }

  private go(how: 'free' | 'vfree'): void {
    if (!this.offer) return;
    const problem = this.onFree(`${how} ${hex(this.offer.start)}`);
    if (problem === null) this.hide();
    else {
      this.error.hidden = false;
      this.error.textContent = coreMessage(problem);
    }
  }
}
