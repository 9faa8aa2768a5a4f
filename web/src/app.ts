// The page: one session, the position on its timeline (a step, or a micro-step of an operation),
// and the widgets that draw it. Widgets only render what they are given; the app owns the
// session, the player (play/pause, speed, keys) and the permalink. Every position is drawn
// from the core's own snapshots (`state(k)`, `frames(k)`), never from a previous drawing, so
// stepping back restores exactly what was shown.
import { OpenCancelled, openInSlices, type Slices } from './player/opening';
import { errorMessage, freeNodes, stateAtFrame, type FreeNode, type Index, type OpFrames, type Session, type State } from './bridge';
import { type Permalink, parseHash, resolveStep, type StepRef } from './permalink';
import { type BigZLink, bigZLink, expandHash, zPrefix } from './panels/zlink';
import { LinkZipper } from './workers/zip';
import { WorkbenchStub } from './panels/stub';
import { LARGE_OPS } from './panels/limits';
import type { Workbench } from './panels';
import { DEFAULT_TRACE } from './scenario';
import { isMapleSession, mapleSnapshotOf, type MapleSession, type MapleSnapshot } from './maple/bridge';
import type { MapleUi } from './maple/ui';
import type { MapleFocus, MapleHover } from './views/mapleTree';
import { formatPlayerHash, parsePlayerLink } from './player/link';
import { Lru } from './player/cache';
import { focusOf, NO_FOCUS, searchOf, type Focus } from './player/focus';
import { loadSpeed, loadTheme, reducedMotion, save, type Theme } from './player/settings';
import { findEvent, type AnyEvent, type EventKind, type EventSource } from './player/events';
import type { LessonCard, LessonPicker } from './lessons/panel';
import type { Lesson } from './lessons/model';
import { lessonLink, parseLessonLink } from './lessons/link';
import { WITHHELD, withheldFocus, withheldMapleFocus } from './lessons/withhold';
import { hallLayout } from './lessons/hall';
import { STORE_TYPES } from './lessons/storeTypes';
import type { AskKind, Pick, Resolved as AskResolved } from './lessons/question';
import { at, clampPos, nextFrame, nextOp, prevFrame, prevOp, samePos, type Pos } from './player/timeline';
import { inPurge, narrate, type MarkerKind, type Narration } from './narrate/narrate';
import { around } from './layout/zoom';
import { CodePanel } from './views/codePanel';
import { FreeTree } from './views/freeTree';
import { NarrationPanel } from './views/narration';
import { OpForms } from './views/opForms';
import { FreePopover, HelpOverlay, lectureLegend } from './views/overlays';
import { OpList, summarizeOutput } from './views/player';
import { SpaceBar } from './views/spaceBar';
import { SpaceZoom } from './views/spaceZoom';
import { Stats } from './views/stats';
import { UndoToast } from './views/undoToast';
import { SPEEDS, Transport, type TransportAction } from './views/transport';
import { noteShown } from './trap';

export interface AppDeps {
  /** Replay a trace (throws `line N: ...`). */
  load: (text: string) => Session;
  /** Open a trace a slice at a time (long links: the page stays responsive); optional. */
  begin?: (text: string) => Slices;
  /** A promise to await before `load` can open this trace (a capture's: another core build), or null. */
  coreFor?: (text: string) => Promise<void> | null;
}

/** A link's trace longer than this (characters) opens in slices between frames, cancellable. */
export const SLICED_LINK = 16_384;

function part<T extends HTMLElement>(root: HTMLElement, widget: string): T {
  const e = root.querySelector<T>(`[data-widget="${widget}"]`);
  if (!e) throw new Error(`the page has no [data-widget="${widget}"]`);
  return e;
}

/** Spans are recorded while a link opens (up to its first drawing with every view loaded). */
let timing = false;

/**
 * A span of the page's own work on the performance timeline (`vmapviz:NAME`), so a trace of the
 * page (or a test reading `performance.getEntriesByType('measure')`) shows where opening goes.
 */
function span<T>(name: string, f: () => T): T {
  if (!timing) return f();
  const t0 = performance.now();
  try {
    return f();
  } finally {
    performance.measure(`vmapviz:${name}`, { start: t0, end: performance.now() });
  }
}


const DEFAULT_NOTE = 'Showing the default scenario instead.';

/** A trace that opens on the maple view (its `profile` line comes first). */
const MAPLE_PROFILE = /^\s*profile[ \t]+maple-(rfc|tree)\b/;

/** The address bar's link of the session's trace, without its step (null while compressing). */
interface LinkCache {
  trace: string;
  prefix: string | null;
  /** Longer than LONG_LINK in the plain form: named compressed, written after a longer rest. */
  long: boolean;
}

/** A micro-step lasts this long at 1×. */
const FRAME_MS = 1000;
/** A link longer than this (characters) is written only after a longer rest of the player. */
const LONG_LINK = 16_384;
/** Operations one event jump reads at most, and how long it may take (a long trace's frames are slow). */
const JUMP_OPS = 2000;
const JUMP_MS = 250;
/** Operations whose markers one call to the core gathers. */
const MARK_SLICE = 2048;

export class App {
  private session: Session | null = null;
  private pos: Pos = at(0);
  private readonly frameCache = new Lru<number, OpFrames | null>(6);
  private readonly stateCache = new Lru<number, State>(8);
  private markers = new Map<number, Set<MarkerKind>>();
  private markersNote = '';
  private markersVersion = 0;
  private scanToken = 0;
  private playing = false;
  private timer: number | null = null;
  private speed: number;
  private startPaused = true;
  private lecture = false;
  /** The era views (web/src/views/eraPanel.ts), loaded with lecture mode. */
  private era: import('./views/eraPanel').EraPanel | null = null;
  private eraLoading = false;
  private selected: number | null = null;
  private linkTimer: number | null = null;
  private linkCache: LinkCache | null = null;
  private readonly zipper = new LinkZipper();
  /** The last trace given to the zipper, and its answer (the address bar and "Copy permalink"). */
  private zipMemo: { trace: string; z: Promise<string> } | null = null;
  private readonly stats: Stats;
  private readonly bar: SpaceBar;
  private readonly lens: SpaceZoom;
  private readonly tree: FreeTree;
  private readonly narration: NarrationPanel;
  private readonly code: CodePanel;
  private readonly transport: Transport;
  private readonly ops: OpList;
  private readonly forms: OpForms;
  private readonly help: HelpOverlay;
  private readonly popover: FreePopover;
  private readonly banner: HTMLElement;
  private readonly undo: UndoToast;
  /** The lesson's card and the picker: built when the lessons load (their code loads with them). */
  private lessonCard: LessonCard | null = null;
  private readonly cardRoot: HTMLElement;
  private picker: LessonPicker | null = null;
  private readonly pickRoot: HTMLElement;
  /** The lessons' module (their words and traces), loaded on first use. */
  private lessons: Promise<readonly Lesson[]> | null = null;
  /** The lessons' functions, loaded with the catalogue (web/src/lessons/lazy.ts). */
  private lessonFns: typeof import('./lessons/lazy') | null = null;
  /** The lesson shown: which stop, where it sits (null when it could not be placed), its trace. */
  private lesson: { lesson: Lesson; index: number; pos: Pos | null; problem: string | null; trace: string; q?: Question | null } | null = null;
  /** `&embed=1`: only the views and the transport (an iframe); no questions asked. */
  private embed = false;
  private readonly listeners: (() => void)[] = [];
  /** Told of every micro-step too (compare mode following the main view). */
  private readonly frameListeners: (() => void)[] = [];
  private notifiedFrame = '';
  private version = 0;
  private notified = '';
  private readonly mapleRoot: HTMLElement;
  private mapleUi: MapleUi | null = null;
  private mapleLoading = false;
  private mapleHover: (id: number | null) => void = () => undefined;
  private mapleHoverSlot: (slot: MapleHover | null) => void = () => undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly deps: AppDeps,
  ) {
    this.speed = loadSpeed(SPEEDS);
    // Hover links the views both ways. An area (bar, lens, free tree) outlines itself everywhere
    // and, in the maple view, the slot whose range holds it and the path down to it. A slot of
    // the maple view outlines the areas in its range (a NULL hole: its free span). A maple-tree
    // trace's areas are its stored ranges, named by leaf and slot (`rangeId`): ids link them.
    const hover = (id: number | null, area?: { start: bigint; end: bigint; state: string } | null) => {
      this.bar.highlight(id);
      this.lens.highlight(id);
      this.tree.highlight(id);
      const view = this.mapleUi?.view;
      if (!view) return;
      if (isMapleSession(this.session)) view.highlightRange(id);
      else view.highlightAt(area && area.state !== 'cluster' ? area.start : null);
    };
    this.mapleHover = (id) => {
      if (isMapleSession(this.session)) hover(id);
    };
    this.mapleHoverSlot = (h) => {
      if (isMapleSession(this.session)) return;
      const span: [bigint, bigint] | null = h ? [h.lo, h.hi + 1n] : null;
      this.bar.highlightSpan(span);
      this.lens.highlightSpan(span);
      this.mapleUi?.view.highlightSlot(h);
    };
    const select = (id: number | null) => {
      this.selected = id === this.selected ? null : id;
      this.tree.select(this.selected);
      this.bar.select(this.selected);
    };
    this.stats = new Stats(part(root, 'stats'));
    this.bar = new SpaceBar(part(root, 'space-bar'), {
      onHover: hover,
      onAreaClick: (a, e) => {
        if (this.asking('land')) {
          const r = (e.currentTarget as Element | null)?.querySelector('rect.fill')?.getBoundingClientRect();
          const len = a.end - a.start;
          const frac = r && r.width > 0 ? Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)) : 0;
          // The page under the click.
          let addr = a.start + BigInt(Math.floor(frac * Number(len)));
          if (addr >= a.end) addr = a.end - 1n;
          addr -= addr % 0x1000n;
          if (addr < a.start) addr = a.start;
          this.answer({ ask: 'land', addr });
          return;
        }
        if (a.state === 'busy') this.offerFree(a.start, a.end, false, e);
        else if (a.state === 'cluster') this.lens.setWindow(around(a.start, a.end, 0.9));
        else select(a.id);
      },
    });
    this.lens = new SpaceZoom(part(root, 'space-zoom'), {
      onHover: hover,
      onAreaClick: (a, e) => (a.state === 'busy' ? this.offerFree(a.start, a.end, false, e) : select(a.id)),
      onWindow: (w) => {
        if (this.barState) this.bar.render(this.barState, { ranges: this.focus.ranges, window: w, key: this.barKey, colorBy: this.colorBy });
      },
    });
    this.tree = new FreeTree(part(root, 'free-tree'), {
      onHover: hover,
      onSelect: (id) => {
        if (id !== null && this.asking('visit')) this.answer({ ask: 'visit', node: id });
        else select(id);
      },
    });
    // The maple tree's view takes the free tree's place for a maple-tree trace (loaded then).
    this.mapleRoot = document.createElement('div');
    this.mapleRoot.className = 'free-tree-root maple-tree-root';
    this.mapleRoot.dataset.widget = 'maple-tree';
    this.mapleRoot.hidden = true;
    part(root, 'free-tree').after(this.mapleRoot);
    // A question's click on a maple node or slot (before the view's own handlers).
    this.mapleRoot.addEventListener(
      'click',
      (e) => {
        const t = e.target instanceof Element ? e.target : null;
        const g = t?.closest('g.maple-node');
        if (!g || !(this.asking('visit') || this.asking('slot'))) return;
        const node = Number(g.getAttribute('data-maple-id'));
        const cell = t?.closest('[data-slot]');
        e.stopPropagation();
        if (this.asking('visit')) this.answer({ ask: 'visit', node });
        else if (cell) this.answer({ ask: 'slot', node, slot: Number(cell.getAttribute('data-slot')) });
      },
      true,
    );
    this.narration = new NarrationPanel(part(root, 'narration'));
    this.code = new CodePanel(part(root, 'code'));
    this.transport = new Transport(part(root, 'player'), {
      onAction: (a) => this.action(a),
      onScrub: (k) => {
        this.pause();
        this.setPos(at(k));
      },
      onStartPaused: (on) => {
        this.startPaused = on;
        save('start-paused', String(on));
      },
      onJump: (kind, dir) => this.jump(kind, dir),
    });
    this.ops = new OpList(part(root, 'ops'), {
      onStep: (k) => {
        this.pause();
        this.setPos(at(k));
      },
      onPush: (line) => this.push(line),
    });
    this.forms = new OpForms(part(root, 'op-forms'), { onPush: (line) => this.push(line) });
    this.help = new HelpOverlay(part(root, 'help'));
    this.popover = new FreePopover(part(root, 'free-popover'), (line) => this.push(line));
    this.banner = part(root, 'load-error');
    // The lesson's card sits above the narration (lecture mode keeps it); the picker beside the help.
    const card = document.createElement('section');
    card.className = 'panel lesson-panel';
    card.dataset.widget = 'lesson';
    card.setAttribute('aria-label', 'Lesson');
    const side = root.querySelector('.side');
    if (side) side.prepend(card);
    else root.append(card);
    card.hidden = true;
    this.cardRoot = card;
    const pick = document.createElement('div');
    pick.dataset.widget = 'lessons';
    pick.hidden = true;
    part(root, 'help').after(pick);
    this.pickRoot = pick;
    // Outside #app so that lecture mode, which hides the rest, still shows it.
    this.undo = new UndoToast(root.ownerDocument.body);
    root.ownerDocument.addEventListener('keydown', (e) => this.onKey(e));
    root.ownerDocument.addEventListener('click', (e) => {
      const t = e.target as Element | null;
      if (this.popover.open && t && !t.closest('[data-widget="free-popover"], g.area, g.seg')) this.popover.hide();
    });
    this.tools();
    this.mountPanels();
  }

  /** The workbench, loaded now if it is not yet (on its large-trace tab). */
  private workbench: () => Promise<Workbench> | null = () => null;

  /** Panels of the workbench (web/src/panels/**), mounted through the public API below. */
  private mountPanels(): void {
    // panels:begin
    // The workbench (web/src/panels): its own chunk and wasm build, loaded on first use; until
    // then its shell (stub.ts) shows the heading and the tabs.
    const host = this.root.querySelector<HTMLElement>('[data-widget="workbench"]');
    if (!host) return;
    let bench: Promise<Workbench> | null = null;
    const stub = new WorkbenchStub(host, (hand) =>
      (bench = import('./panels').then((m) => m.mountWorkbench(this, this.root, hand)).catch((e: unknown) => {
        console.error('the workbench did not mount', e);
        throw e;
      })),
    );
    this.workbench = () => (stub.start({ tab: 'large', focus: false }, false), bench);
    // panels:end
  }

  // ---------- public API (used by web/src/panels/**) ----------

  /**
   * Replace the session with a trace and show `step` (default: the end). Throws an Error
   * `line N: ...` when the trace is invalid, leaving the current session as it was.
   */
  loadTrace(text: string, step: number | 'end' = 'end'): void {
    const session = this.deps.load(text);
    this.leaveLesson(false);
    this.stopOpening();
    const before = this.session ? { trace: this.session.traceText(), length: this.session.length, pos: this.pos } : null;
    this.open(session, step, null);
    this.showError([]);
    this.writeLink(true);
    // Every replacement can be taken back: the previous trace and the step it was at.
    if (before && before.trace !== session.traceText()) {
      const n = session.length;
      this.undo.show(`Opened a trace of ${n} operation${n === 1 ? '' : 's'} in place of yours (${before.length}).`, () => {
        this.open(this.deps.load(before.trace), before.pos.op, before.pos.frame >= 0 ? before.pos.frame : null);
        this.showError([]);
      });
    }
  }

  /** The current trace as text (the core's canonical form). */
  currentTrace(): string {
    return this.session?.traceText() ?? '';
  }

  /** The current trace's lz-string form, compressed in a worker once per trace. */
  zippedTrace(): Promise<string> {
    return this.zip(this.currentTrace());
  }

  private zip(trace: string): Promise<string> {
    if (this.zipMemo?.trace !== trace) this.zipMemo = { trace, z: this.zipper.compress(trace) };
    return this.zipMemo.z;
  }

  /** The step shown: the number of operations applied (0..length). */
  currentStep(): number {
    return this.pos.op;
  }

  /** The micro-step shown inside operation `currentStep()`, or -1 between operations. */
  currentFrame(): number {
    return this.pos.frame;
  }

  /** Call `cb` whenever the session or the step shown changes. */
  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  /** Call `cb` whenever the position shown changes, micro-steps included. */
  onFrame(cb: () => void): void {
    this.frameListeners.push(cb);
  }

  /**
   * How the address-space overview fills busy and lazy areas: by state (the default) or by
   * vmap node (linux-6.9's nodes; the patterns still tell busy from lazy).
   */
  setColorBy(mode: 'state' | 'node'): void {
    this.colorBy = mode;
    if (this.barState) this.bar.render(this.barState, { ranges: this.focus.ranges, window: this.lens.window, key: this.barKey, colorBy: mode });
  }

  /** The session (read-only use: tests and panels compare with the core). */
  get core(): Session | null {
    return this.session;
  }

  /** Bumped whenever the session or its trace changes (a load, an operation added). */
  get sessionVersion(): number {
    return this.version;
  }

  /**
   * Tell the listeners, once per change of session or step: moving between the micro-steps of
   * one operation changes neither `currentStep()` nor `currentTrace()`.
   */
  private changed(): void {
    const key = `${this.version}:${this.pos.op}`;
    const frameKey = `${key}:${this.pos.frame}`;
    const call = (cbs: (() => void)[]) => {
      for (const cb of cbs) {
        try {
          cb();
        } catch (e) {
          console.error(e);
        }
      }
    };
    if (key !== this.notified) {
      this.notified = key;
      call(this.listeners);
    }
    if (frameKey !== this.notifiedFrame) {
      this.notifiedFrame = frameKey;
      call(this.frameListeners);
    }
  }

  // ---------- embedding (web/src/embed.ts) ----------

  /** `&embed=1`: only the views and the transport; kept in the links the page writes. */
  /** Lecture mode's legend, shown or hidden (key G). */
  private toggleLegend(): void {
    let box = document.getElementById('lecture-legend');
    if (!box) {
      box = lectureLegend();
      document.querySelector('#app > main')?.append(box);
    }
    box.hidden = !box.hidden;
  }

  setEmbed(on: boolean): void {
    this.embed = on;
    document.body.classList.toggle('embed', on);
    // The header (and its h1) is hidden in a frame: the frame keeps a heading for screen readers.
    let title = document.getElementById('embed-title');
    if (on && !title) {
      title = document.createElement('h1');
      title.id = 'embed-title';
      title.className = 'visually-hidden';
      title.textContent = 'vmapviz: the vmalloc allocator, step by step';
      document.querySelector('#app > main')?.prepend(title);
    } else if (!on) title?.remove();
    this.writeLink(true);
  }

  /** Operation `op`, micro-step `frame` (-1: before it), clamped to the trace. */
  goToFrame(op: number, frame: number): void {
    this.pause();
    this.setPos(at(op, frame));
  }

  /** Play from the position shown (an embedding page's "play"). */
  resume(): void {
    if (!this.playing) this.play();
  }

  /** A touch swipe's step (web/src/touch.ts): as → / ← with or without Shift, unless a dialog is open. */
  swipe(a: 'next' | 'prev' | 'next-op' | 'prev-op'): void {
    if (this.help.open || this.picker?.open || this.blanked()) return;
    this.action(a);
  }

  /** Where the page is: the operation, the micro-step in it, how many it has, the lesson's stop. */
  where(): { op: number; step: number; frame: number; lesson?: string; stop?: number } {
    const p = this.pos;
    const w: { op: number; step: number; frame: number; lesson?: string; stop?: number } = { op: p.op, step: p.frame, frame: this.count(p.op) };
    if (this.lesson) {
      w.lesson = this.lesson.lesson.id;
      w.stop = this.lesson.index + 1;
    }
    return w;
  }

  // ---------- opening ----------

  /** Open what the location hash names, or the default scenario (also after an error). */
  openHash(hash: string, search = location.search): void {
    performance.mark('vmapviz:open-link');
    timing = true;
    // A long compressed link is decompressed in the link worker (seconds for 10^5 operations).
    const big = bigZLink(hash);
    if (big) {
      this.openZipped(big, hash, search);
      return;
    }
    // A compressed link (#z=, web/src/panels/zlink.ts) opens like the plain one it stands for.
    const z = expandHash(hash);
    const extra = parsePlayerLink(hash, search);
    if (z.hash) hash = z.hash;
    const lectureBefore = this.lecture;
    const lessonAt = parseLessonLink(hash);
    if (lessonAt) {
      this.setLecture(extra.lecture, false);
      void this.openLesson(lessonAt.id, lessonAt.stop - 1, lessonAt);
      return;
    }
    this.leaveLesson(false);
    // A damaged #z= is one problem, not also a badly encoded parameter.
    const { link, error } = z.error ? { link: null, error: null } : parseHash(hash);
    this.setLecture(extra.lecture, false);
    const problems: string[] = [z.error, error].filter((e): e is string => e !== null);
    // Lecture mode as it was, for a link that fails on a page already showing a trace.
    this.lectureBefore = lectureBefore;
    this.stopOpening();
    this.openLink(link, extra.frame, problems);
  }

  /**
   * Open a link's trace at its step (or, when it has none or fails, keep what is shown or open the
   * default scenario), saying `problems`.
   */
  private openLink(link: Permalink | null, frame: number | null, problems: string[], counted = false): void {
    // A maple profile's link needs the maple view's chunk: fetched while the core replays the
    // trace, not after (a third of the time to a long link's first drawing).
    if (link && MAPLE_PROFILE.test(link.trace.slice(0, 512))) this.loadMapleUi();
    // A capture's trace replays in the workbench's core build: loaded first, then opened.
    const core = link ? this.deps.coreFor?.(link.trace) : null;
    if (core) {
      core.then(
        () => this.openLink(link, frame, problems, counted),
        (e: unknown) => this.openLink(null, frame, [`Could not load the core that replays captures: ${errorMessage(e)}`, ...problems], counted),
      );
      return;
    }
    if (link && this.deps.begin && link.trace.length > SLICED_LINK) {
      // More lines than the player holds operations: counted exactly before choosing.
      if (!counted && link.trace.split('\n', LARGE_OPS + 1).length > LARGE_OPS) {
        const { ctl, note } = this.startOpening();
        void this.openBig(ctl, note, { text: link.trace }, link.step, frame, problems);
        return;
      }
      this.openSliced(link.trace, link.step, frame, problems);
      return;
    }
    if (link) {
      try {
        const session = span('load', () => this.deps.load(link.trace));
        if (session.length > 0) {
          this.open(session, link.step, frame);
          this.showError(problems);
          return;
        }
        session.dispose();
        problems.unshift('The link\'s trace is empty: it has no operation to show.');
      } catch (e) {
        problems.unshift(`Could not load the trace from the link: ${errorMessage(e)}`);
      }
    }
    if (problems.length > 0 && this.keepShown(problems)) return;
    // The default scenario opens at its start, ready to play.
    this.open(this.deps.load(DEFAULT_TRACE), 0, null);
    if (problems.length > 0) problems.push(DEFAULT_NOTE);
    this.showError(problems);
  }

  /**
   * A link that fails on a page already showing a trace (a link followed, a hash edited) leaves
   * that trace as it was, as a failed import does, and puts its own link back in the address
   * bar (a reload shows it, not the error again). False on a first load: nothing to keep.
   */
  private keepShown(problems: string[]): boolean {
    if (!this.session) return false;
    // Nothing of the failed link applies, its `lecture=` included.
    this.setLecture(this.lectureBefore, false);
    this.showError([...problems, this.standIn ? DEFAULT_NOTE : 'The trace shown before is kept.']);
    this.writeLink(true);
    return true;
  }

  private opening: AbortController | null = null;
  /** The default scenario stands in while a first link opens in the large-trace navigator. */
  private standIn = false;
  private lectureBefore = false;
  private openingNoteEl: HTMLElement | null = null;

  /** Abandon a long link still opening (a new link, a loaded trace or an edit replaces it). */
  private stopOpening(): void {
    this.opening?.abort();
    this.opening = null;
    this.openingNoteEl?.remove();
    this.openingNoteEl = null;
    delete document.body.dataset.opening;
  }

  /**
   * A long `#z=` link: its text is decompressed in the link worker (web/src/workers/zip.ts) while
   * the page stays live, with the same progress line and Cancel as a long plain link, then it
   * opens as the plain link it stands for.
   */
  private openZipped(big: BigZLink, hash: string, search: string): void {
    const extra = parsePlayerLink(hash, search);
    const lectureBefore = this.lecture;
    this.leaveLesson(false);
    this.setLecture(extra.lecture, false);
    this.lectureBefore = lectureBefore;
    this.stopOpening();
    const { ctl, note } = this.startOpening('Opening the link: decompressing…');
    const { link, error } = parseHash(`#trace=&step=${big.step}`);
    void this.openBig(ctl, note, { z: big.z }, link?.step ?? 'end', extra.frame, error ? [error] : []);
  }

  /** The progress line and Cancel of a long link (what was shown stays meanwhile). */
  private startOpening(text?: string): { ctl: AbortController; note: HTMLElement } {
    const ctl = new AbortController();
    this.opening = ctl;
    const note = this.openingNote(ctl);
    if (text) (note.querySelector('[data-role="progress"]') as HTMLElement).textContent = text;
    this.openingNoteEl = note;
    document.body.dataset.opening = 'true';
    ctl.signal.addEventListener('abort', () => {
      // Cancel pressed (anything else that stops the opening has taken `opening` already).
      if (this.opening !== ctl) return;
      this.endOpening(ctl, note);
      this.fallBack(['Opening the trace from the link was cancelled.']);
    });
    return { ctl, note };
  }

  /**
   * A long link, read off the main thread (web/src/player/bigLink.ts): a trace the player holds
   * opens as any link; a longer one in the workbench's large-trace navigator at the link's step,
   * the player keeping what it showed (on a first load, the default scenario, said so).
   */
  private openBig(ctl: AbortController, note: HTMLElement, src: { z: string } | { text: string }, step: StepRef, frame: number | null, problems: string[]): void {
    const live = () => this.opening === ctl;
    const end = () => live() && (this.endOpening(ctl, note), true);
    void import('./player/bigLink').then((m) =>
      m.openBig(
        {
          live,
          label: note.querySelector('[data-role="progress"]') as HTMLElement,
          player: (text) => end() && this.openLink({ trace: text, step }, frame, problems, true),
          end: (msg, open) => end() && (open ? this.showError : this.fallBack).call(this, [msg, ...problems]),
          workbench: () => {
            // Never a blank player (the address bar keeps the link while it opens).
            if (!this.session) {
              this.open(this.deps.load(DEFAULT_TRACE), 0, null);
              this.standIn = true;
            }
            return [this.standIn, this.workbench()];
          },
        },
        src,
        step,
        ctl.signal,
      ),
    );
  }

  /**
   * Open a long link's trace in slices (web/src/player/opening.ts), with a progress line and a
   * Cancel button; what was shown stays meanwhile (on a first load, nothing: the default scenario
   * is opened only if the link fails or is cancelled, or for an edit typed meanwhile, instead of
   * being drawn and thrown away on the way to the link). A refused trace shows the core's
   * message. The main thread is never held for more than a slice.
   */
  private openSliced(trace: string, step: StepRef, frame: number | null, problems: string[]): void {
    const ctl = new AbortController();
    this.opening = ctl;
    const note = this.openingNote(ctl);
    const t0 = performance.now();
    this.openingNoteEl = note;
    document.body.dataset.opening = 'true';
    let slices: Slices;
    try {
      slices = (this.deps.begin as (t: string) => Slices)(trace);
    } catch (e) {
      this.endOpening(ctl, note);
      this.fallBack([`Could not load the trace from the link: ${errorMessage(e)}`, ...problems]);
      return;
    }
    const label = note.querySelector('[data-role="progress"]') as HTMLElement;
    openInSlices(slices, {
      signal: ctl.signal,
      onProgress: (p) => {
        label.textContent = `Opening the trace from the link: ${p.phase} ${Math.floor(p.fraction * 100)} %`;
      },
    }).then(
      (session) => {
        performance.measure('vmapviz:slices', { start: t0, end: performance.now() });
        timing = true;
        if (this.opening !== ctl) {
          session.dispose();
          return;
        }
        this.endOpening(ctl, note);
        if (session.length === 0) {
          session.dispose();
          this.fallBack(["The link's trace is empty: it has no operation to show.", ...problems]);
          return;
        }
        this.open(session, step, frame);
        this.showError(problems);
      },
      (e: unknown) => {
        if (this.opening !== ctl) return;
        this.endOpening(ctl, note);
        const why = e instanceof OpenCancelled ? 'Opening the trace from the link was cancelled.' : `Could not load the trace from the link: ${errorMessage(e)}`;
        this.fallBack([why, ...problems]);
      },
    );
  }

  /** After a long link failed: what was shown stays, or (a first load) the default scenario opens. */
  private fallBack(problems: string[]): void {
    if (this.keepShown(problems)) return;
    span('default-scenario', () => this.open(this.deps.load(DEFAULT_TRACE), 0, null));
    this.showError([...problems, DEFAULT_NOTE]);
  }

  private openingNote(ctl: AbortController): HTMLElement {
    const note = document.createElement('div');
    note.className = 'opening-note';
    note.dataset.widget = 'opening';
    note.setAttribute('role', 'status');
    const label = document.createElement('span');
    label.dataset.role = 'progress';
    label.textContent = 'Opening the trace from the link…';
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.textContent = 'Cancel';
    cancel.dataset.action = 'cancel-opening';
    cancel.addEventListener('click', () => ctl.abort());
    note.append(label, ' ', cancel);
    this.banner.before(note);
    return note;
  }

  private endOpening(ctl: AbortController, note: HTMLElement): void {
    note.remove();
    if (this.opening !== ctl) return;
    this.opening = null;
    this.openingNoteEl = null;
    delete document.body.dataset.opening;
  }

  private open(session: Session, step: StepRef, frame: number | null): void {
    this.standIn = false;
    this.pause();
    if (!this.openingLesson) this.leaveLesson(false);
    this.session?.dispose();
    this.session = session;
    this.version++;
    this.frameCache.clear();
    this.stateCache.clear();
    this.linkCache = null;
    span('summaries', () => this.ops.setOps(session.summaries()));
    this.lens.reset();
    const k = resolveStep(step, session.length);
    // Opened before its end (a scenario at its start), the zoomed view still frames the areas
    // the trace will use: those of its end.
    if (k < session.length) span('end-state', () => this.lens.render(this.stateAt(session.length), [], `${this.version}:${session.length}`));
    this.pos = clampPos(at(k, frame ?? -1), session.length, (op) => this.count(op));
    this.firstRender = true;
    span('first-render', () => this.render(false));
    // Done, unless the maple view's chunk is still coming (its first drawing ends the spans).
    if (!this.mapleLoading) timing = false;
    this.writeLink(true);
    this.scanMarkers();
  }

  private firstRender = true;

  // ---------- the core's data, cached ----------

  private stateAt(k: number): State {
    const s = this.session as Session;
    // The same object the neighbouring operations' frames hold, when they are cached: the views
    // then see an unchanged state between a step and the micro-steps next to it.
    const near = this.frameCache.get(k)?.before ?? this.frameCache.get(k - 1)?.after;
    if (near) return near;
    let st = this.stateCache.get(k);
    if (!st) {
      st = span('state', () => s.state(k));
      this.stateCache.set(k, st);
    }
    return st;
  }

  private framesOf(k: number): OpFrames | null {
    const s = this.session;
    if (!s || k < 0 || k >= s.length) return null;
    if (this.frameCache.has(k)) return this.frameCache.get(k) ?? null;
    const f = span('frames', () => s.frames(k));
    this.frameCache.set(k, f);
    return f;
  }

  private count(op: number): number {
    return this.framesOf(op)?.frames.length ?? 0;
  }

  // ---------- moving ----------

  /** Draw step k (the state after the first k operations). */
  goTo(k: number): void {
    this.setPos(at(k));
  }

  private setPos(p: Pos, animate = true, force = false): void {
    const s = this.session;
    if (!s) return;
    const next = clampPos(p, s.length, (op) => this.count(op));
    if (!force && samePos(next, this.pos)) return;
    this.pos = next;
    this.render(animate);
  }

  private action(a: TransportAction): void {
    const s = this.session;
    if (!s) return;
    const count = (op: number) => this.count(op);
    if (a === 'play') return this.togglePlay();
    if (a === 'slower' || a === 'faster') return this.changeSpeed(a === 'faster' ? 1 : -1);
    this.pause();
    let p: Pos | null = null;
    // Stepping on from an open question's micro-step shows its answer: that is a reveal.
    if (a === 'next' && this.withholding() && this.reveal()) return;
    if (a === 'first') p = at(0);
    else if (a === 'last') p = at(s.length);
    else if (a === 'next') p = nextFrame(this.pos, s.length, count);
    else if (a === 'prev') p = prevFrame(this.pos, count);
    else if (a === 'next-op') p = nextOp(this.pos, s.length);
    else if (a === 'prev-op') p = prevOp(this.pos);
    if (p) this.setPos(p);
  }

  /**
   * To the next (1) or previous (-1) micro-step whose event is of `kind`, reading the core's
   * frames of the operations on the way (at most JUMP_OPS of them per press: a long trace says
   * where it stopped looking). Returns whether it moved.
   */
  jump(kind: EventKind, dir: 1 | -1): boolean {
    const s = this.session;
    if (!s) return false;
    this.pause();
    this.transport.kind = kind;
    const src = { length: s.length, events: (op: number): AnyEvent[] => (this.framesOf(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
    const t0 = performance.now();
    const found = findEvent(src, this.pos, kind, dir, JUMP_OPS, () => performance.now() - t0 > JUMP_MS);
    const label = Transport.label(kind);
    if (found.pos) {
      this.transport.jumpStatus('');
      this.setPos(found.pos);
      return true;
    }
    const where = dir === 1 ? 'after this point' : 'before this point';
    this.transport.jumpStatus(
      found.complete
        ? `no ${label} ${where}`
        : `no ${label} in the ${found.scanned.toLocaleString('en-US')} operations ${dir === 1 ? 'ahead' : 'back'}; press again to look further`,
    );
    if (!found.complete) {
      // Look further on the next press: from where this one stopped.
      const from = this.pos.frame >= 0 ? this.pos.op + 1 : this.pos.op;
      const op = dir === 1 ? Math.min(s.length, this.pos.op + found.scanned) : Math.max(0, from - found.scanned);
      this.setPos(at(op));
    }
    return false;
  }

  // ---------- lessons ----------

  /** The lessons (their module is loaded once, on first use). */
  private loadLessons(): Promise<readonly Lesson[]> {
    this.lessons ??= Promise.all([import('./lessons/catalogue'), import('./lessons/lazy'), import('./lessons/panel')]).then(([m, fns, ui]) => {
      this.lessonFns = fns;
      this.lessonCard = new ui.LessonCard(this.cardRoot, {
        onStop: (dir) => this.stepStop(dir),
        onReturn: () => this.toStop(),
        onLeave: () => this.leaveLesson(),
        onChoice: (store) => this.asking('store') && this.answer({ ask: 'store', store }),
        onReveal: () => this.reveal(),
        link: () => this.lessonHref() ?? location.href,
        onMicroStep: (dir) => this.action(dir === 1 ? 'next' : 'prev'),
        onBlank: () => this.setBlank(!this.blanked()),
        onTyped: (text) => {
          const q = this.lesson?.q;
          if (!q || q.revealed) return null;
          const p = fns.parsePick(q.r.answer.ask, text);
          if ('error' in p) return p.error;
          this.answer(p);
          return null;
        },
      });
      this.picker = new ui.LessonPicker(this.pickRoot, (id) => void this.openLesson(id, 0).then(() => this.lessonCard?.focus()));
      this.lessonOrder = m.LESSONS.map((l) => l.id);
      return m.LESSONS;
    });
    return this.lessons;
  }

  /** The picker (L, or the header's Lessons button). */
  async showLessons(): Promise<void> {
    try {
      const all = await this.loadLessons();
      this.picker?.show(all, this.lesson?.lesson.id ?? null);
    } catch (e) {
      this.showError([`The lessons did not load: ${errorMessage(e)}`]);
    }
  }

  /** Open lesson `id` at stop `index` (0-based); an unknown lesson or stop says so. */
  async openLesson(id: string, index: number, around?: { at: Pos | null; answer: boolean }): Promise<void> {
    let all: readonly Lesson[];
    try {
      all = await this.loadLessons();
    } catch (e) {
      this.showError([`The lessons did not load: ${errorMessage(e)}`]);
      return;
    }
    // HOOK (practice, web/src/lessons/practice.ts): `practice-KIND-SEED` is a lesson the core's generator makes.
    const lesson = all.find((l) => l.id === id) ?? (await this.lessonFns?.practiceLesson(id).catch(() => null)) ?? undefined;
    // A long link still opening gives way to the lesson.
    this.stopOpening();
    if (!lesson) {
      if (!this.session) this.open(this.deps.load(DEFAULT_TRACE), 0, null);
      this.showError([`There is no lesson "${id}" (the lessons are ${all.map((l) => l.id).join(', ')}).`]);
      return;
    }
    const i = Math.max(0, Math.min(lesson.stops.length - 1, Number.isFinite(index) ? index : 0));
    const problems = i !== index ? [`The lesson "${lesson.title}" has ${lesson.stops.length} stops: showing stop ${i + 1}.`] : [];
    // A lesson opened over a trace of one's own (not another lesson's) can be taken back.
    const s = this.session;
    const before = s && !this.lesson ? { trace: s.traceText(), pos: this.pos } : null;
    this.lesson = { lesson, index: i, pos: null, problem: null, trace: '' };
    this.goToStop(i);
    // A link's position around the stop and its revealed answer (the picture it was copied from).
    if (around && i === index) {
      const bad = this.aroundStop(around.at, around.answer);
      if (bad) problems.push(bad);
    }
    if (before) {
      this.undo.show(`Opened the lesson "${lesson.title}" in place of your trace.`, () => {
        this.leaveLesson(false);
        this.open(this.deps.load(before.trace), before.pos.op, before.pos.frame >= 0 ? before.pos.frame : null);
        this.showError([]);
      });
    }
    this.showError(problems);
    this.root.dataset.lessonReady = 'true';
  }

  /**
   * The next (1) or previous (-1) stop; past a lesson's last stop, the first of the next lesson
   * (before its first, the last of the one before), so a remote walks the whole course.
   */
  private stepStop(dir: 1 | -1): void {
    const l = this.lesson;
    if (!l) return;
    const i = l.index + dir;
    if (i >= 0 && i < l.lesson.stops.length) {
      this.goToStop(i);
      return;
    }
    void this.loadLessons().then((all) => {
      const at = all.findIndex((x) => x.id === l.lesson.id);
      // HOOK (practice): a practice is no lesson of the course; it ends at its last stop.
      if (at < 0) return;
      const other = all[at + dir];
      if (!other || this.lesson !== l) return;
      this.lesson = { lesson: other, index: 0, pos: null, problem: null, trace: l.trace };
      this.goToStop(dir === 1 ? 0 : other.stops.length - 1);
    });
  }

  /** Show stop `i` of the lesson: its trace (replayed once per trace), at its micro-step. */
  private goToStop(i: number): void {
    const l = this.lesson;
    if (!l || i < 0 || i >= l.lesson.stops.length) return;
    const stop = l.lesson.stops[i];
    const trace = l.lesson.traces[stop.trace] ?? '';
    this.pause();
    l.index = i;
    if (l.trace !== trace || !this.session) {
      let session: Session;
      try {
        session = this.deps.load(trace);
      } catch (e) {
        l.pos = null;
        l.problem = `its trace does not replay: ${errorMessage(e)}`;
        this.renderLesson();
        return;
      }
      l.trace = trace;
      this.openingLesson = true;
      this.open(session, 0, null);
      this.openingLesson = false;
    }
    // ] and [ then go to the next event of the kind the stop is about.
    this.transport.kind = stop.claim.kind;
    const s = this.session as Session;
    // Loaded with the catalogue, which a lesson open has awaited.
    const { resolveStop, checkClaim, resolveAsk } = this.lessonFns as typeof import('./lessons/lazy');
    const r = resolveStop(this.eventSource(s), stop);
    if ('error' in r) {
      l.pos = null;
      l.problem = r.error;
    } else {
      l.pos = r.pos;
      l.problem = checkClaim(stop, r.event);
      l.q = null;
      const q = stop.ask && !this.embed ? resolveAsk(this.eventSource(s), r.pos.op, stop.ask) : null;
      if (q && 'error' in q) l.problem = `its question cannot be answered: ${q.error}`;
      else if (q) l.q = { r: q, revealed: false, pick: null, right: null };
      this.setPos(l.q ? l.q.r.posed : r.pos, true, true);
    }
    this.writeLink(true);
    this.renderLesson();
  }

  /** A lesson link's position and answer applied to the stop just shown; what is wrong, or null. */
  private aroundStop(at: Pos | null, answer: boolean): string | null {
    const l = this.lesson;
    const s = this.session;
    if (!l || !s || !l.pos) return null;
    if (answer && l.q) l.q.revealed = true;
    let pos = answer && l.q ? l.pos : null;
    let bad: string | null = null;
    if (at) {
      if (at.op > s.length || (at.op === s.length && at.frame >= 0) || at.frame >= this.count(at.op)) {
        bad = `The link's micro-step (operation ${at.op + 1}, micro-step ${at.frame + 1}) is past this lesson's trace: showing the stop.`;
      } else pos = at;
    }
    if (pos) this.setPos(pos, true, true);
    this.writeLink(true);
    this.renderLesson();
    return bad;
  }

  /** Back to the stop's micro-step (once its question is revealed: without asking again). */
  private toStop(): void {
    const l = this.lesson;
    if (!l) return;
    if (l.q?.revealed && l.pos) {
      this.pause();
      this.setPos(l.pos);
    } else this.goToStop(l.index);
  }

  /** Whether a question is open on the micro-step shown (its answer is then withheld). */
  private withholding(): boolean {
    const q = this.lesson?.q;
    return !!q && !q.revealed && samePos(q.r.posed, this.pos);
  }

  /** Whether the stop shown asks a question of this kind, not yet answered. */
  private asking(kind: AskKind): boolean {
    const q = this.lesson?.q;
    return !!q && !q.revealed && q.r.answer.ask === kind;
  }

  /** A student's answer: right or wrong, then the answer is revealed. */
  private answer(p: Pick): void {
    const q = this.lesson?.q;
    const fns = this.lessonFns;
    if (!q || q.revealed || q.r.answer.ask !== p.ask || !fns) return;
    q.pick = fns.pickText(p);
    q.right = fns.isRight(q.r.answer, p);
    // HOOK (practice): the score counts each stop's first answer.
    if (this.lesson) fns.recordPractice(this.lesson.lesson.id, this.lesson.index, q.right);
    this.reveal();
  }

  /** Show the answer (the lecturer's key, or after an answer): step to the micro-step that shows it. */
  reveal(): boolean {
    const q = this.lesson?.q;
    if (!q || q.revealed) return false;
    q.revealed = true;
    this.pause();
    this.setPos(q.r.shown, true, true);
    this.renderLesson();
    return true;
  }

  /** A session's events, for searches (frames through the page's cache). */
  private eventSource(s: Session): EventSource {
    return { length: s.length, events: (op) => (this.framesOf(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
  }

  private openingLesson = false;
  /** The lessons' ids in order, once loaded (the card offers the next lesson after the last stop). */
  private lessonOrder: string[] = [];

  /** Out of the lesson: the trace stays, the link becomes the trace's own. */
  leaveLesson(writeLink = true): void {
    if (!this.lesson) return;
    this.lesson = null;
    delete this.root.dataset.lessonReady;
    this.renderLesson();
    if (writeLink) this.writeLink(true);
  }

  /** The card, and the panels the stop points to (outlined). */
  private renderLesson(): void {
    const l = this.lesson;
    const q = l?.q ?? null;
    const atStop =
      l !== null &&
      l.pos !== null &&
      (q ? (q.revealed ? samePos(q.r.shown, this.pos) || samePos(l.pos, this.pos) : samePos(q.r.posed, this.pos)) : samePos(l.pos, this.pos));
    if (q && !q.revealed) document.body.dataset.asking = q.r.answer.ask;
    else delete document.body.dataset.asking;
    const order = this.lessonOrder;
    const at = l ? order.indexOf(l.lesson.id) : -1;
    this.lessonCard?.render(
      l
        ? {
            lesson: l.lesson, index: l.index, atStop, problem: l.problem, hasPrev: at > 0, hasNext: at >= 0 && at < order.length - 1,
            question: q
              ? {
                  ask: q.r.answer.ask,
                  prompt: q.r.prompt,
                  revealed: q.revealed,
                  picked: q.pick,
                  right: q.right,
                  why: q.r.why,
                  offStop: q.revealed && l.pos !== null && samePos(q.r.shown, this.pos) && !samePos(l.pos, this.pos),
                }
              : null,
          }
        : null,
    );
    const look = new Set(l && atStop ? l.lesson.stops[l.index].look : []);
    const panels: [string, string][] = [
      ['bar', '.space-panel'],
      ['tree', '.tree-panel'],
      ['narration', '[data-widget="narration"]'],
      ['code', '[data-widget="code"]'],
    ];
    for (const [k, sel] of panels) this.root.querySelector(sel)?.classList.toggle('lesson-look', look.has(k as never));
    if (l) this.root.dataset.lessonStop = String(l.index + 1);
    else delete this.root.dataset.lessonStop;
    // HOOK (hall layout, web/src/lessons/hall.ts): lecture mode and embeds lay the page out by the stop's look.
    hallLayout(this.root, l ? l.lesson.stops[l.index] : null, { lecture: this.lecture, embed: this.embed });
  }

  private togglePlay(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  private play(): void {
    const s = this.session;
    if (!s || this.pos.op >= s.length) return;
    this.playing = true;
    this.tick();
  }

  private tick(): void {
    const s = this.session;
    if (!s || !this.playing) return;
    const n = nextFrame(this.pos, s.length, (op) => this.count(op));
    if (!n) {
      this.pause();
      return;
    }
    this.pos = n;
    this.render(true);
    if (n.op >= s.length) {
      this.pause();
      return;
    }
    this.timer = window.setTimeout(() => this.tick(), FRAME_MS / this.speed);
  }

  pause(): void {
    const was = this.playing;
    this.playing = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (was) {
      this.renderTransport();
      this.writeLink();
    }
  }

  private changeSpeed(dir: 1 | -1): void {
    const i = SPEEDS.indexOf(this.speed);
    const j = Math.max(0, Math.min(SPEEDS.length - 1, (i < 0 ? SPEEDS.indexOf(1) : i) + dir));
    this.speed = SPEEDS[j];
    save('speed', String(this.speed));
    this.renderTransport();
  }

  /** How long movements take now: 0 under reduced motion, else most of a micro-step. */
  private motionMs(animate: boolean): number {
    if (!animate || reducedMotion()) return 0;
    return Math.round(Math.min(600, (0.6 * FRAME_MS) / this.speed));
  }

  // ---------- drawing ----------

  private focus: Focus = NO_FOCUS;
  private barState: State | null = null;
  private statsKey = '';
  private barKey = '';
  private colorBy: 'state' | 'node' = 'state';

  private render(animate: boolean): void {
    const s = this.session;
    if (!s) return;
    const p = this.pos;
    const ms = this.motionMs(animate);
    let state: State;
    // The counters tell the state the picture shows: inside an operation, that micro-step's.
    let statsState: State;
    let index: Index;
    let rfcFocus: MapleFocus | undefined;
    let nodes: FreeNode[];
    let narration: Narration | null = null;
    let frames = 0;
    this.focus = NO_FOCUS;
    // A question open here: nothing drawn may hold its answer (web/src/lessons/withhold.ts).
    const withheld = this.withholding();
    const of = p.frame >= 0 ? this.framesOf(p.op) : null;
    if (of && p.frame < of.frames.length) {
      const fr = of.frames[p.frame];
      frames = of.frames.length;
      index = of.trees[fr.tree] ?? of.before.index;
      nodes = freeNodes(index);
      // The bar shows what the core reports right after this micro-step (an area that just left
      // the busy tree is no longer drawn busy), not the state before the operation.
      state = stateAtFrame(of, p.frame);
      statsState = state;
      const byId = new Map(nodes.map((n) => [n.id, n]));
      // A maple-tree trace's frames are the maple tree's events: narrated by the maple module below.
      if (!isMapleSession(s) && of.before.index.kind === 'maple') {
        // maple-rfc: its maple trees' events, the window loop and the bump overlay, narrated by
        // the maple module (loaded with the maple view; drawn again once it has).
        const ui = this.loadMapleUi();
        narration = ui ? ui.narrateRfc(of, p.frame) : null;
        rfcFocus = ui ? ui.focusRfc(of, p.frame) : undefined;
        if (withheld && rfcFocus) rfcFocus = withheldMapleFocus(rfcFocus);
      } else if (!isMapleSession(s)) {
        this.focus = focusOf(of, p.frame, byId);
        if (withheld) this.focus = withheldFocus(this.focus);
        narration = narrate(fr.event, { search: searchOf(of.frames, p.frame), nodes: byId, op: of.text, inPurge: inPurge(of.frames, p.frame) });
      }
    } else {
      state = this.stateAt(p.op);
      statsState = state;
      index = state.index;
      nodes = freeNodes(index);
    }
    this.barState = state;
    // The state before op k, whichever object holds it (frames(k).before or state(k)).
    const key = `${this.version}:${p.op}`;
    const fr = of && p.frame >= 0 ? of.frames[p.frame] : undefined;
    const statsKey = fr ? `${key}:t${fr.tree}:a${fr.areas}` : key;
    if (statsKey !== this.statsKey) {
      const mapleTree = isMapleSession(s) ? this.mapleTreeAt(s) : undefined;
      span('stats', () => this.stats.render(statsState, mapleTree));
    }
    this.statsKey = statsKey;
    // The address views change within an operation too: keyed by the snapshots in force.
    this.barKey = fr ? `${key}:t${fr.tree}:a${fr.areas}` : key;
    // A maple tree's stored ranges change only with a store or an erase: one key until then.
    if (isMapleSession(s)) this.barKey = `${this.version}:${s.areasKey(p.op, fr ? fr.areas : -1)}`;
    span('address-views', () => {
      this.lens.render(state, this.focus.ranges, this.barKey);
      this.bar.render(state, { ranges: this.focus.ranges, window: this.lens.window, duration: ms, key: this.barKey, colorBy: this.colorBy });
    });
    // During an operation's micro-steps the trees are the core's live ones (the first op sets up the space).
    const maple = isMapleSession(s) ? s : null;
    // The era's index decides the view: a free tree, or a maple tree (maple-rfc's occupied tree,
    // drawn by the maple view too).
    const occupied = !maple && index.kind === 'maple' ? index.tree : null;
    const mapleView = maple !== null || occupied !== null;
    part(this.root, 'free-tree').hidden = mapleView;
    this.mapleRoot.hidden = !mapleView;
    this.root.dataset.view = mapleView ? 'maple-tree' : 'free-tree';
    const title = this.root.querySelector('#tree-title');
    if (title) title.textContent = maple ? 'Maple tree' : occupied ? 'Occupied tree (maple)' : 'Free tree';
    this.treeWords(maple ? 'maple-tree' : occupied ? 'maple-rfc' : 'free-tree');
    if (maple) narration = span('maple-view', () => this.renderMaple(maple, ms, withheld));
    else if (occupied) span('maple-view', () => this.renderOccupied(occupied, ms, rfcFocus));
    else this.tree.render(nodes, { initialized: state.initialized || p.frame >= 0, focus: this.focus, duration: ms });
    // HOOK (era views, web/src/views/eraPanel.ts): lecture mode and embeds draw 5.1's busy list in
    // the free tree's place and 6.9's vmap nodes above the tree.
    if ((this.lecture || this.embed) && !this.era && !this.eraLoading) {
      this.eraLoading = true;
      void import('./views/eraPanel').then((m) => {
        this.era = new m.EraPanel(part(this.root, 'free-tree'));
        this.render(false);
      });
    }
    const era = this.era?.render(state, of ? of.frames.slice(0, p.frame + 1).map((f) => f.event) : [], (this.lecture || this.embed) && !mapleView) ?? null;
    if (era === 'list') {
      part(this.root, 'free-tree').hidden = true;
      if (title) title.textContent = 'Busy list';
    }
    if (this.firstRender && (!mapleView || this.mapleUi)) {
      if (mapleView) this.mapleUi?.view.fit(0);
      else this.tree.fit(0);
      this.firstRender = false;
    }

    const ops = s.length;
    const opIndex = p.op < ops ? p.op : null;
    const summary = opIndex !== null ? s.summaries(opIndex, opIndex + 1)[0] : null;
    const warning = this.warningAt(p.op, p.frame, frames);
    this.narration.render({
      op: p.op,
      frame: p.frame,
      frames,
      opText: summary?.text ?? null,
      narration: withheld ? null : narration,
      idle: this.idleText(p.op),
      warning,
      // Between operations (where will it land?) the idle words name the request, not the answer.
      withheld: withheld && p.frame >= 0 ? WITHHELD.narration : null,
    });
    // Lecture mode shows it over the tree too: the side column's long narration can push the
    // narration's copy below the screen.
    const banner = document.querySelector<HTMLElement>('.tree-warning');
    if (banner) {
      banner.hidden = !warning;
      if (banner.textContent !== (warning ?? '')) banner.textContent = warning ?? '';
    }
    // The function stays, its current line (the branch taken) waits for the reveal.
    if (withheld) this.code.render(null, narration?.listing ?? '');
    else this.code.render(narration);
    this.ops.setPosition(p.op, p.frame >= 0 ? p.op : null);
    this.root.dataset.step = String(p.op);
    this.root.dataset.frame = String(p.frame);
    this.renderTransport(frames);
    if (this.lesson) this.renderLesson();
    // The (possibly long) link is written once the player rests for a moment.
    this.writeLink();
    this.changed();
  }

  private treeNoteHtml: string | null = null;
  private treeWordsFor = '';

  /** The tree panel's note and legend, true for the index shown (written when it changes). */
  private treeWords(kind: 'free-tree' | 'maple-tree' | 'maple-rfc'): void {
    if (kind === this.treeWordsFor) return;
    this.treeWordsFor = kind;
    const note = this.root.querySelector<HTMLElement>('#tree-note');
    const legend = this.root.querySelector<HTMLElement>('#tree-legend');
    if (note) {
      this.treeNoteHtml ??= note.innerHTML;
      const gaps =
        '<code>arange</code> nodes keep <code>gap[]</code>, the largest NULL run below each slot, so ' +
        '<code>mas_empty_area</code> skips subtrees whose gaps are too small for the request.';
      note.innerHTML =
        kind === 'maple-tree'
          ? `The maple tree of <code>lib/maple_tree.c</code>: each node a row of slots, each slot a range that holds an entry, a NULL hole or a child; ${gaps}`
          : kind === 'maple-rfc'
            ? `maple-rfc keeps no free tree: its occupied maple tree holds every allocated range, and the free space is its NULL ranges; ${gaps}`
            : this.treeNoteHtml;
    }
    if (legend) legend.hidden = kind !== 'free-tree';
    // The address bar's legend: a maple-tree trace has stored ranges and NULL ranges, nothing to free.
    const space = this.root.querySelector<HTMLElement>('#space-legend');
    if (space) {
      this.spaceLegendHtml ??= space.innerHTML;
      space.innerHTML =
        kind === 'maple-tree'
          ? '<li><span class="swatch swatch-busy"></span>stored (an entry)</li><li><span class="swatch swatch-gap"></span>NULL (no entry)</li>'
          : this.spaceLegendHtml;
    }
  }

  private spaceLegendHtml: string | null = null;

  /**
   * Draw the maple tree at the current position (web/src/maple/: loaded on first use, then
   * drawn again); its narration of the current micro-step, or null.
   */
  private renderMaple(s: MapleSession, ms: number, withheld = false): Narration | null {
    const ui = this.loadMapleUi();
    if (!ui) return null;
    const p = this.pos;
    const of = p.frame >= 0 ? s.mapleFrames(p.op) : null;
    if (of && p.frame < of.frames.length) {
      const fr = of.frames[p.frame];
      const focus = ui.focus(of, p.frame);
      ui.view.render(of.trees[fr.tree] ?? of.trees[0], { focus: withheld ? withheldMapleFocus(focus) : focus, duration: ms, lecture: this.lecture });
      return ui.narrate(of, p.frame);
    }
    ui.view.render(s.tree(p.op), { duration: ms, lecture: this.lecture });
    return null;
  }

  /** The maple tree a `profile maple-tree` trace shows at the current position. */
  private mapleTreeAt(s: MapleSession): MapleSnapshot {
    const p = this.pos;
    const of = p.frame >= 0 ? s.mapleFrames(p.op) : null;
    const fr = of && p.frame < of.frames.length ? of.frames[p.frame] : undefined;
    return of && fr ? (of.trees[fr.tree] ?? of.trees[0]) : s.tree(p.op);
  }

  /** The maple view's module, or null while it loads (the page is drawn again once it has). */
  private loadMapleUi(): MapleUi | null {
    if (!this.mapleUi && !this.mapleLoading) {
      this.mapleLoading = true;
      const t0 = performance.now();
      import('./maple/ui')
        .then((m) => {
          performance.measure('vmapviz:maple-chunk', { start: t0, end: performance.now() });
          this.mapleUi = m.mountMaple(this.mapleRoot, { onHover: (id) => this.mapleHover(id), onHoverSlot: (h) => this.mapleHoverSlot(h) });
          // Drawn again if the page is waiting for it (a link still opening needs it later).
          if (this.root.dataset.view === 'maple-tree') {
            this.firstRender = true;
            span('maple-render', () => this.render(false));
          }
          if (!this.opening) timing = false;
        })
        .catch((e: unknown) => this.showError([`The maple tree view did not load: ${errorMessage(e)}`]))
        .finally(() => {
          this.mapleLoading = false;
        });
    }
    return this.mapleUi;
  }

  /** Draw a maple-rfc state's occupied tree (parsed once per snapshot object). */
  private renderOccupied(raw: Extract<Index, { kind: 'maple' }>['tree'], ms: number, focus?: MapleFocus): void {
    const ui = this.loadMapleUi();
    if (!ui) return;
    // Empty in maple-rfc is a point of its own (S5): say why, not the maple-tree's "first store".
    const empty =
      'The occupied tree is empty: nothing is busy inside the vmalloc window, the only place the perf-mode switch seeds it from. ' +
      "An area outside the window (the module area) is kept by its node's busy tree alone, so its range looks free here.";
    ui.view.render(mapleSnapshotOf(raw), { duration: ms, lecture: this.lecture, empty, ...(focus ? { focus } : {}) });
  }

  /**
   * The operation's WARNING where the picture has reached it: its last micro-step, or between
   * operations right after it (`k` ops done).
   */
  private warningAt(k: number, frame: number, frames: number): string | null {
    const s = this.session as Session;
    const i = frame >= 0 ? (frame === frames - 1 ? k : -1) : k - 1;
    if (i < 0 || i >= s.length) return null;
    return s.summaries(i, i + 1)[0]?.warning ?? null;
  }

  private idleText(k: number): string {
    const s = this.session as Session;
    const n = s.length;
    const prev = k > 0 ? s.summaries(k - 1, k)[0] : null;
    const after = prev ? `After op ${k}, ${prev.text}${summarizeOutput(prev.output) ? ` → ${summarizeOutput(prev.output)}` : ''}. ` : '';
    if (n === 0) return 'The trace is empty: there is no operation to show. Add one below, or open a scenario of the workbench.';
    if (k >= n) return `${after}End of the trace: ${n} operation${n === 1 ? '' : 's'}. Step back with ← or Shift+←.`;
    const next = s.summaries(k, k + 1)[0];
    return `${after}Next: op ${k + 1}, ${next.text}. Press → to step through its micro-steps, Space to play.`;
  }

  private renderTransport(frames?: number): void {
    const s = this.session;
    if (!s) return;
    const f = frames ?? (this.pos.frame >= 0 ? this.count(this.pos.op) : 0);
    this.transport.render({
      op: this.pos.op,
      frame: this.pos.frame,
      frames: f,
      length: s.length,
      playing: this.playing,
      speed: this.speed,
      markers: this.markers,
      markersVersion: this.markersVersion,
      markersNote: this.markersNote,
      markerKinds: this.root.dataset.view === 'maple-tree' ? 'none' : 'free-tree',
    });
  }

  // ---------- markers ----------

  /**
   * Gather the timeline's markers in idle time: each op's splits, merges and rotations, from
   * the core's mark bits (a replay without snapshots, a few thousand ops per slice).
   */
  private scanMarkers(): void {
    const s = this.session;
    if (!s) return;
    const token = ++this.scanToken;
    this.markers = new Map();
    this.markersVersion++;
    this.markersNote = 'gathering markers…';
    const n = s.length;
    const idle = (fn: () => void) =>
      typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 500 }) : window.setTimeout(fn, 30);
    let k = 0;
    const work = () => {
      if (token !== this.scanToken) return;
      const t0 = performance.now();
      while (k < n && performance.now() - t0 < 8) {
        const to = Math.min(n, k + MARK_SLICE);
        s.marks(k, to).forEach((kinds, i) => {
          if (kinds.size) this.markers.set(k + i, kinds);
        });
        k = to;
      }
      this.markersVersion++;
      if (k < n) idle(work);
      else {
        this.markersNote =
          this.root.dataset.view === 'maple-tree'
            ? 'Markers mark the free tree’s splits (NE), merges and rotations: a maple tree keeps none (its splits, rebalances and gap updates are micro-steps).'
            : 'Markers: splits (NE), merges and rotations of every operation.';
        this.root.dataset.markers = 'ready';
      }
      this.renderTransport();
    };
    this.root.dataset.markers = 'pending';
    idle(work);
  }

  // ---------- editing ----------

  /**
   * Add a line typed into the page (either form, "Add an operation", the pop-up on a busy area):
   * one rule for all of them, the core's (`pushChecked`), which also refuses a request that is
   * the caller's mistake (a free of nothing, a double free, an empty window).
   */
  private push(line: string): string | null {
    // Typed while a first link opens (nothing shown yet): it goes to the default scenario, as it
    // would have gone to whatever was shown.
    if (!this.session && this.opening) {
      this.stopOpening();
      span('default-scenario', () => this.open(this.deps.load(DEFAULT_TRACE), 0, null));
    }
    const s = this.session;
    if (!s) return 'the core is not loaded';
    // An edit of what is shown wins over a long link still opening.
    this.stopOpening();
    this.pause();
    try {
      s.pushChecked(line);
    } catch (e) {
      return errorMessage(e);
    }
    // The lesson's trace is no longer what its stops describe.
    this.leaveLesson(false);
    // An edit after a replacement: undoing the replacement would drop it, so the offer ends.
    this.undo.hide();
    this.linkCache = null;
    this.version++;
    this.stateCache.clear();
    this.frameCache.clear();
    this.ops.setOps(s.summaries());
    this.popover.hide();
    const k = s.length - 1;
    // "Start paused": wait at the new operation's first step; otherwise play it.
    this.setPos(at(k), false, true);
    if (!this.startPaused) this.play();
    this.scanMarkers();
    this.writeLink(true);
    return null;
  }

  private offerFree(start: bigint, end: bigint, lazy: boolean, e: MouseEvent): void {
    const s = this.session;
    // A maple-tree trace has no allocator: nothing to vfree (its trace language stores and erases).
    if (!s || isMapleSession(s)) return;
    this.forms.setFreeAddress(start);
    this.popover.show({ start, end, lazy, atEnd: this.pos.op === s.length && this.pos.frame < 0, length: s.length }, e.clientX, e.clientY + window.scrollY);
  }

  // ---------- keys, tools, link ----------

  private onKey(e: KeyboardEvent): void {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (isTyping(e.target)) return;
    const t = e.target;
    const inApp = t === null || t === this.root.ownerDocument || t === this.root.ownerDocument.body || t === this.root.ownerDocument.documentElement || (t instanceof Node && this.root.contains(t));
    if (!inApp) return;
    if (e.key === 'Escape') {
      if (this.help.open) this.help.hide();
      if (this.popover.open) this.popover.hide();
      return;
    }
    if (this.help.open && e.key !== '?') return;
    if (this.picker?.open) return;
    // Space on a focused button or link activates it, as everywhere else.
    if ((e.key === ' ' || e.key === 'Spacebar') && t instanceof HTMLElement && t.closest('button, a[href], summary')) return;
    // Lecture mode: a presenter remote's buttons (PageDown/PageUp, or ↓/↑ on some) step, and its
    // "blank" button (b or .) blacks the screen out until pressed again.
    if (this.lesson && this.lessonKey(e)) {
      e.preventDefault();
      return;
    }
    if (this.lecture && this.remoteKey(e)) {
      e.preventDefault();
      return;
    }
    if (this.blanked() && e.key === 'Escape') return;
    let used = true;
    switch (e.key) {
      case ' ':
      case 'Spacebar':
        this.togglePlay();
        break;
      case 'ArrowRight':
        this.action(e.shiftKey ? 'next-op' : 'next');
        break;
      case 'ArrowLeft':
        this.action(e.shiftKey ? 'prev-op' : 'prev');
        break;
      case 'Home':
        this.action('first');
        break;
      case 'End':
        this.action('last');
        break;
      case '-':
      case '_':
        this.changeSpeed(-1);
        break;
      case '+':
      case '=':
        this.changeSpeed(1);
        break;
      case ']':
        this.jump(this.transport.kind, 1);
        break;
      case '[':
        this.jump(this.transport.kind, -1);
        break;
      case 'k':
      case 'K':
        this.transport.jumpStatus(`jumps go to: ${Transport.label(this.transport.cycleKind(e.key === 'K' ? -1 : 1))}`);
        break;
      case 'l':
      case 'L':
        void this.showLessons();
        break;
      case 'g':
      case 'G':
        // Lecture mode hides the legends for room; the hall can ask what a colour means.
        if (this.lecture) this.toggleLegend();
        else used = false;
        break;
      case '?':
        this.help.toggle();
        break;
      default:
        used = false;
    }
    if (used) e.preventDefault();
  }

  /**
   * In a lesson, PgDn / PgUp (a remote's buttons) and N / P go from stop to stop; the other keys
   * stay the player's (→ / ← step around the stop). True when the key was used.
   */
  private lessonKey(e: KeyboardEvent): boolean {
    const l = this.lesson;
    if (!l || this.blanked()) return false;
    if (e.shiftKey && (e.key === 'PageDown' || e.key === 'PageUp')) return false;
    if (e.key === 'r' || e.key === 'R') return this.reveal();
    // Keys 1–9: the store types' buttons, in their order.
    if (/^[1-9]$/.test(e.key) && this.asking('store')) {
      this.answer({ ask: 'store', store: STORE_TYPES[Number(e.key) - 1] });
      return true;
    }
    if (e.key === 'PageDown' || e.key === 'n' || e.key === 'N') {
      // A question waiting: the remote's first press reveals it (a hall answers aloud).
      if (this.reveal()) return true;
      const q = l.q;
      if (q?.revealed && l.pos && samePos(q.r.shown, this.pos) && !samePos(l.pos, this.pos)) this.toStop();
      else this.stepStop(1);
      return true;
    }
    if (e.key === 'PageUp' || e.key === 'p' || e.key === 'P') {
      this.stepStop(-1);
      return true;
    }
    return false;
  }

  /** A presenter remote's key in lecture mode; true when it was used. */
  private remoteKey(e: KeyboardEvent): boolean {
    if (e.key === 'b' || e.key === 'B' || e.key === '.') {
      this.setBlank(!this.blanked());
      return true;
    }
    if (this.blanked()) {
      // Any step key brings the picture back first, as slide software does.
      if (['PageDown', 'PageUp', 'ArrowDown', 'ArrowUp', 'ArrowRight', 'ArrowLeft', ' ', 'Escape'].includes(e.key)) {
        this.setBlank(false);
        return true;
      }
      return false;
    }
    switch (e.key) {
      case 'PageDown':
      case 'ArrowDown':
        this.action(e.shiftKey ? 'next-op' : 'next');
        return true;
      case 'PageUp':
      case 'ArrowUp':
        this.action(e.shiftKey ? 'prev-op' : 'prev');
        return true;
      default:
        return false;
    }
  }

  private blanked(): boolean {
    return document.body.dataset.blank === 'true';
  }

  /** Black the screen out (a remote's "blank" button) or bring it back. */
  private setBlank(on: boolean): void {
    if (on) document.body.dataset.blank = 'true';
    else delete document.body.dataset.blank;
    // A presenter view says whether the hall sees a picture.
    window.dispatchEvent(new Event('vmapviz:presenter-state'));
  }

  private tools(): void {
    const tools = part(this.root, 'tools');
    const theme = tools.querySelector<HTMLButtonElement>('[data-tool="theme"]');
    const setTheme = (t: Theme, remember: boolean) => {
      document.documentElement.dataset.theme = t;
      if (theme) theme.textContent = t === 'dark' ? '◐ Light' : '◐ Dark';
      if (remember) save('theme', t);
    };
    setTheme(loadTheme(), false);
    theme?.addEventListener('click', () => setTheme(document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark', true));
    tools.querySelector('[data-tool="lecture"]')?.addEventListener('click', () => this.setLecture(!this.lecture, true));
    tools.querySelector('[data-tool="help"]')?.addEventListener('click', () => this.help.toggle());
    tools.querySelector('[data-tool="lessons"]')?.addEventListener('click', () => void this.showLessons());
    this.startPaused = true;
  }

  /** Lecture mode: large type, high contrast, only the player; kept in the permalink. */
  setLecture(on: boolean, updateLink = true): void {
    this.lecture = on;
    if (!on) this.setBlank(false);
    document.body.classList.toggle('lecture', on);
    this.root.dataset.lecture = String(on);
    this.root.querySelector('[data-tool="lecture"]')?.setAttribute('aria-pressed', String(on));
    if (updateLink) {
      this.writeLink(true);
      if (this.session) {
        this.firstRender = true;
        this.render(false);
      }
    }
  }

  /**
   * Keep the address bar's link on the step. While the player moves it is written once the
   * player rests, and not while it plays (pausing writes it): with a long trace the link is
   * hundreds of KB and `history.replaceState` with it costs a frame or more.
   */
  private writeLink(now = false): void {
    if (this.linkTimer !== null) clearTimeout(this.linkTimer);
    this.linkTimer = null;
    if (now) this.flushLink();
    else if (!this.playing) {
      this.linkTimer = window.setTimeout(() => this.flushLink(), this.linkCache?.long ? 1500 : 200);
    }
  }

  /** In a lesson, the address of the picture shown (the workbench's Copy permalink); else null. */
  lessonHref(): string | null {
    return this.lesson ? new URL(this.lessonHash(), location.href).href : null;
  }

  /** The lesson's link for the picture shown (the stop, the micro-step around it, a revealed answer). */
  private lessonHash(): string {
    const l = this.lesson;
    if (!l) return '';
    // The micro-step shown, when it is not where the stop opens (its question's, or its own).
    const own = l.q && !l.q.revealed ? l.q.r.posed : l.pos;
    const around = own && samePos(own, this.pos) ? null : this.pos;
    return lessonLink(l.lesson.id, l.index + 1, this.lecture, around, !!l.q?.revealed) + (this.embed ? '&embed=1' : '');
  }

  private flushLink(): void {
    this.linkTimer = null;
    const s = this.session;
    // While a long link opens, the address bar keeps that link (a reload opens it again).
    if (!s || this.opening) return;
    if (this.lesson) {
      const hash = this.lessonHash();
      if (location.hash !== hash) history.replaceState(null, '', hash);
      noteShown(hash);
      return;
    }
    if (!this.linkCache) this.linkCache = this.linkFor(s.traceText());
    if (this.linkCache.prefix === null) return; // compressing: written when done
    const p = this.pos;
    const step = p.op === s.length && p.frame < 0 ? 'end' : String(p.op);
    const hash = `${this.linkCache.prefix}&step=${step}${p.frame >= 0 ? `&frame=${p.frame}` : ''}${this.lecture ? '&lecture=1' : ''}${this.embed ? '&embed=1' : ''}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
    noteShown(hash);
  }

  /**
   * The part of the link that names the trace. A long trace is named in the compressed form
   * (`#z=`, about 25 times shorter on test_vmalloc-like traces), compressed in a worker: the
   * plain form of 20,000 operations is 1 MB, and `history.replaceState` with it held the page
   * for two seconds. Until the worker answers, the address bar keeps what it had.
   */
  private linkFor(trace: string): LinkCache {
    // Encoding never shortens, so a trace this long is not encoded only to be measured.
    if (trace.length <= LONG_LINK) {
      const plain = formatPlayerHash({ trace, step: 'end' }, null, false).replace(/&step=end$/, '');
      if (plain.length <= LONG_LINK) return { trace, prefix: plain, long: false };
    }
    const cache: LinkCache = { trace, prefix: null, long: true };
    this.zip(trace).then((z) => {
      if (this.linkCache !== cache) return; // another trace, or an edit, since
      cache.prefix = zPrefix(z);
      this.flushLink();
    });
    return cache;
  }

  private showError(problems: string[]): void {
    this.banner.hidden = problems.length === 0;
    this.banner.textContent = problems.join('\n');
  }
}

/** Whether a key event comes from a field the user types in (keys then belong to it). */
function isTyping(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT') return true;
  if (t.tagName !== 'INPUT') return false;
  const type = (t as HTMLInputElement).type;
  return !['range', 'checkbox', 'radio', 'button', 'submit', 'reset', 'color'].includes(type);
}

/** A stop's question while it is shown: resolved from the core's events, answered or not. */
interface Question {
  r: AskResolved;
  revealed: boolean;
  pick: string | null;
  right: boolean | null;
}
