// The player's controls: to the start, back one operation, back one micro-step, play/pause,
// forward one micro-step, forward one operation, to the end; the speed (0.25×–4×); a timeline
// scrubber over the operations with markers for splits (NE clips), merges and rotations.
// Hooks: `data-op`, `data-frame`, `data-frames`, `data-playing`, `data-speed`.
import type { MarkerKind } from '../narrate/narrate';
import { KINDS, kindInfo, type EventKind } from '../player/events';
import { el } from './common';

export type TransportAction = 'first' | 'prev-op' | 'prev' | 'play' | 'next' | 'next-op' | 'last' | 'slower' | 'faster';

export interface TransportOptions {
  onAction: (a: TransportAction) => void;
  /** The scrubber moved to step k (0..length). */
  onScrub: (k: number) => void;
  onStartPaused?: (on: boolean) => void;
  /** Jump to the next (1) or previous (-1) micro-step whose event is of `kind`. */
  onJump?: (kind: EventKind, dir: 1 | -1) => void;
}

export interface TransportView {
  op: number;
  frame: number;
  /** Frames of the current operation (0 when not known or between operations). */
  frames: number;
  length: number;
  playing: boolean;
  speed: number;
  /** Markers per operation (may be partial while they are being gathered). */
  markers: Map<number, Set<MarkerKind>>;
  /** Changes whenever `markers` does (so they are redrawn only then). */
  markersVersion: number;
  markersNote: string;
  /**
   * What the markers can be: the free tree's splits, merges and rotations (default), or none
   * (a maple tree's trace or maple-rfc, which keep no free tree: the legend says so).
   */
  markerKinds?: 'free-tree' | 'none';
}

export const SPEEDS = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4];

/** Icons as SVG paths in a 16×16 box (fonts often lack the media-control glyphs). */
const ICONS: Record<string, string> = {
  first: 'M2 2h2v12H2zM14 2v12L5 8z',
  'prev-op': 'M8 2v12L1 8zM15 2v12L8 8z',
  prev: 'M12 2v12L4 8z',
  play: 'M4 2v12l10-6z',
  pause: 'M3 2h4v12H3zM9 2h4v12H9z',
  next: 'M4 2v12l8-6z',
  'next-op': 'M1 2v12l7-6zM8 2v12l7-6z',
  last: 'M12 2h2v12h-2zM2 2v12l9-6z',
};

function icon(name: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '16');
  svg.setAttribute('height', '16');
  svg.setAttribute('aria-hidden', 'true');
  svg.classList.add('icon');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}

export class Transport {
  private readonly buttons = new Map<TransportAction, HTMLButtonElement>();
  private readonly label: HTMLElement;
  private readonly frameLabel: HTMLElement;
  private readonly speedLabel: HTMLElement;
  private readonly scrubber: HTMLInputElement;
  private readonly strip: SVGSVGElement;
  private readonly startPaused: HTMLInputElement;
  private readonly jumpKind: HTMLSelectElement;
  private readonly jumpNote: HTMLElement;
  private markersKey = '';
  /** The marker strip's width on screen (from a ResizeObserver: no layout read while rendering). */
  private stripWidth = 0;
  private last: TransportView | null = null;
  private length = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly opts: TransportOptions,
    startPaused = true,
  ) {
    root.classList.add('transport');
    const row = root.appendChild(el('div', 'transport-row'));
    const group = (cls: string) => row.appendChild(el('div', `btn-group ${cls}`));
    const buttons = group('steps');
    const button = (parent: HTMLElement, action: TransportAction, text: string, title: string) => {
      const b = parent.appendChild(el('button', `btn tbtn ${action}`));
      if (ICONS[action]) b.append(icon(action));
      else b.textContent = text;
      b.type = 'button';
      b.dataset.action = action;
      b.title = title;
      b.setAttribute('aria-label', title);
      this.buttons.set(action, b);
      return b;
    };
    button(buttons, 'first', '⏮', 'To the start (Home)');
    button(buttons, 'prev-op', '⏪', 'Back one operation (Shift+←)');
    button(buttons, 'prev', '◀', 'Back one micro-step (←)');
    button(buttons, 'play', '▶', 'Play (Space)').classList.add('primary');
    button(buttons, 'next', '▶|', 'Forward one micro-step (→)');
    button(buttons, 'next-op', '⏩', 'Forward one operation (Shift+→)');
    button(buttons, 'last', '⏭', 'To the end (End)');
    const speed = group('speed');
    button(speed, 'slower', '−', 'Slower (−)');
    this.speedLabel = speed.appendChild(el('span', 'speed-label', '1×'));
    this.speedLabel.dataset.testid = 'speed';
    button(speed, 'faster', '+', 'Faster (+)');
    const where = row.appendChild(el('div', 'where'));
    this.label = where.appendChild(el('span', 'step-label'));
    this.label.dataset.testid = 'step-label';
    this.frameLabel = where.appendChild(el('span', 'frame-label'));
    this.frameLabel.dataset.testid = 'frame-label';
    // Event jumps: a kind, then ◀ ▶ to the previous / next micro-step whose event is of it ([ / ]).
    const jump = row.appendChild(el('div', 'btn-group jump'));
    jump.dataset.widget = 'event-jump';
    const jl = jump.appendChild(el('label', 'visually-hidden', 'Event kind to jump to'));
    this.jumpKind = jump.appendChild(el('select', 'jump-kind'));
    this.jumpKind.id = 'jump-kind';
    jl.htmlFor = this.jumpKind.id;
    this.jumpKind.title = 'The kind of event ◀ ▶ jump to (K / Shift+K cycle it)';
    const groups = new Map<string, HTMLOptGroupElement>();
    for (const k of KINDS) {
      let g = groups.get(k.group);
      if (!g) {
        g = this.jumpKind.appendChild(el('optgroup'));
        g.label = k.group;
        groups.set(k.group, g);
      }
      const o = g.appendChild(el('option', '', k.label));
      o.value = k.kind;
    }
    this.jumpKind.value = 'rotate';
    const jb = (dir: 1 | -1, text: string) => {
      const b = jump.appendChild(el('button', 'btn tbtn jump-btn', text));
      b.type = 'button';
      b.dataset.jump = dir === 1 ? 'next' : 'prev';
      const t = `${dir === 1 ? 'Next' : 'Previous'} event of this kind (${dir === 1 ? ']' : '['})`;
      b.title = t;
      b.setAttribute('aria-label', t);
      b.addEventListener('click', () => this.opts.onJump?.(this.kind, dir));
    };
    jb(-1, '◀');
    jb(1, '▶');
    this.jumpNote = jump.appendChild(el('span', 'jump-note'));
    this.jumpNote.dataset.testid = 'jump-note';
    this.jumpNote.setAttribute('role', 'status');
    const sp = row.appendChild(el('label', 'start-paused'));
    this.startPaused = sp.appendChild(el('input'));
    this.startPaused.type = 'checkbox';
    this.startPaused.checked = startPaused;
    sp.append(' start paused');
    sp.title = 'A new operation waits for you at its first step instead of playing at once';
    this.startPaused.addEventListener('change', () => this.opts.onStartPaused?.(this.startPaused.checked));
    row.addEventListener('click', (e) => {
      const b = (e.target as HTMLElement).closest<HTMLButtonElement>('button[data-action]');
      if (b) this.opts.onAction(b.dataset.action as TransportAction);
    });

    const scrub = root.appendChild(el('div', 'scrub'));
    this.strip = scrub.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'svg'));
    this.strip.classList.add('markers');
    this.strip.setAttribute('aria-hidden', 'true');
    this.strip.setAttribute('preserveAspectRatio', 'none');
    new ResizeObserver((entries) => {
      const w = entries[entries.length - 1].contentRect.width;
      if (Math.abs(w - this.stripWidth) < 1) return;
      this.stripWidth = w;
      if (this.last) this.renderMarkers(this.last.markers, this.last.length, this.last.markersVersion);
    }).observe(this.strip);
    this.scrubber = scrub.appendChild(el('input', 'scrubber'));
    this.scrubber.type = 'range';
    this.scrubber.min = '0';
    this.scrubber.step = 'any';
    this.scrubber.setAttribute('aria-label', 'Timeline: operations');
    this.scrubber.addEventListener('input', () => this.opts.onScrub(Math.round(Number(this.scrubber.value))));
    const legend = root.appendChild(el('div', 'marker-legend'));
    legend.append(
      el('span', 'mk mk-split', 'split (NE)'),
      el('span', 'mk mk-merge', 'merge'),
      el('span', 'mk mk-rotate', 'rotation'),
      el('span', 'mk mk-explained', 'explained (capture)'),
      el('span', 'mk mk-unexplained', 'unexplained (capture)'),
      el('span', 'mk mk-untraced', 'untraced (capture)'),
      el('span', 'mk-none', 'no markers: a maple tree has no NE splits, merges or rotations'),
    );
    legend.dataset.testid = 'markers-note';
    legend.dataset.kinds = 'free-tree';
  }

  render(v: TransportView): void {
    this.last = v;
    const r = this.root;
    r.dataset.op = String(v.op);
    r.dataset.frame = String(v.frame);
    r.dataset.frames = String(v.frames);
    r.dataset.playing = String(v.playing);
    r.dataset.speed = String(v.speed);
    this.length = v.length;
    const atStart = v.op === 0 && v.frame < 0;
    const atEnd = v.op >= v.length;
    for (const a of ['first', 'prev-op', 'prev'] as const) (this.buttons.get(a) as HTMLButtonElement).disabled = atStart;
    for (const a of ['next', 'next-op', 'last'] as const) (this.buttons.get(a) as HTMLButtonElement).disabled = atEnd;
    const play = this.buttons.get('play') as HTMLButtonElement;
    play.replaceChildren(icon(v.playing ? 'pause' : 'play'));
    play.title = v.playing ? 'Pause (Space)' : 'Play (Space)';
    play.setAttribute('aria-label', play.title);
    play.setAttribute('aria-pressed', String(v.playing));
    play.disabled = atEnd && !v.playing;
    (this.buttons.get('slower') as HTMLButtonElement).disabled = v.speed <= SPEEDS[0];
    (this.buttons.get('faster') as HTMLButtonElement).disabled = v.speed >= SPEEDS[SPEEDS.length - 1];
    this.speedLabel.textContent = `${v.speed}×`;
    // One count everywhere: operations are numbered from 1 (op N is the trace's Nth operation,
    // as the narration and the list say); between operations, how many are done.
    this.label.textContent = v.frame >= 0 ? `op ${v.op + 1} / ${v.length}` : `${v.op} / ${v.length} done`;
    this.frameLabel.textContent =
      v.frame >= 0 ? `micro-step ${v.frame + 1} / ${v.frames}` : v.op < v.length ? `next: op ${v.op + 1}` : 'end of the trace';
    this.scrubber.max = String(Math.max(1, v.length));
    this.scrubber.disabled = v.length === 0;
    const value = v.frame < 0 ? v.op : v.op + (v.frame + 1) / (v.frames + 1);
    this.scrubber.value = String(value);
    this.scrubber.setAttribute(
      'aria-valuetext',
      v.frame >= 0 ? `op ${v.op + 1} of ${v.length}, micro-step ${v.frame + 1}` : `${v.op} of ${v.length} operations done`,
    );
    this.renderMarkers(v.markers, v.length, v.markersVersion);
    const legend = r.querySelector('.marker-legend') as HTMLElement;
    if (legend.title !== v.markersNote) legend.title = v.markersNote;
    const kinds = v.markerKinds ?? 'free-tree';
    if (legend.dataset.kinds !== kinds) legend.dataset.kinds = kinds;
  }

  private renderMarkers(markers: Map<number, Set<MarkerKind>>, length: number, version: number): void {
    // A marker is MARK_PX wide on screen (more in lecture mode, for a projector): the strip
    // stretches a 1000-unit drawing over its width, so the width is converted to its units.
    const px = document.body.classList.contains('lecture') ? 7 : 3;
    const W = 1000;
    const mw = this.stripWidth > 0 ? Math.round(((px * W) / this.stripWidth) * 100) / 100 : px;
    const key = `${length}:${version}:${markers.size}:${mw}`;
    if (key === this.markersKey) return;
    this.markersKey = key;
    const ns = 'http://www.w3.org/2000/svg';
    this.strip.setAttribute('viewBox', `0 0 ${W} 12`);
    // A capture's allocations the replay explained or not, or made untraced: the strip's whole
    // height, under the rest.
    const rows: Record<MarkerKind, number> = { split: 0, merge: 4, rotate: 8, explained: 0, unexplained: 0, untraced: 0 };
    const tall = (k: MarkerKind) => k === 'explained' || k === 'unexplained' || k === 'untraced';
    const frag = document.createDocumentFragment();
    let capture = 0;
    let untraced = 0;
    for (const [op, kinds] of markers) {
      // Operation k runs between steps k and k + 1.
      const x = length ? ((op + 0.5) / length) * W : 0;
      for (const k of kinds) {
        const r = document.createElementNS(ns, 'rect');
        r.setAttribute('class', `mk-${k}`);
        r.setAttribute('x', String(Math.round((x - mw / 2) * 10) / 10));
        r.setAttribute('y', String(rows[k]));
        r.setAttribute('width', String(mw));
        r.setAttribute('height', tall(k) ? '12' : '4');
        r.setAttribute('data-op', String(op));
        if (tall(k)) capture++;
        if (k === 'untraced') untraced++;
        frag.append(r);
      }
    }
    this.strip.replaceChildren(frag);
    const legend = this.root.querySelector<HTMLElement>('.marker-legend');
    if (legend) {
      legend.dataset.capture = capture ? 'true' : 'false';
      legend.dataset.untraced = untraced ? 'true' : 'false';
    }
  }

  /** The kind the event jumps go to. */
  get kind(): EventKind {
    return this.jumpKind.value as EventKind;
  }

  set kind(k: EventKind) {
    this.jumpKind.value = k;
  }

  /** The next (1) or previous (-1) kind of the selector. */
  cycleKind(dir: 1 | -1): EventKind {
    const i = KINDS.findIndex((k) => k.kind === this.kind);
    const k = KINDS[(i + dir + KINDS.length) % KINDS.length].kind;
    this.kind = k;
    return k;
  }

  /** What the last jump found (empty: nothing to say). */
  jumpStatus(text: string): void {
    this.jumpNote.textContent = text;
  }

  /** A kind's words, for messages. */
  static label(k: EventKind): string {
    return kindInfo(k).label;
  }

  get scrubLength(): number {
    return this.length;
  }
}
