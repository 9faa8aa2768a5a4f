// The page: one session, the position on its timeline (a step, or a micro-step of an operation),
// and the widgets that draw it. Widgets only render what they are given; the app owns the
// session, the position and the player (play/pause, speed), and hands the parts around them
// (web/src/page/: links, keys, lessons, the address views, the panels' host) narrow host
// objects. Every position is drawn from the core's own snapshots (`state(k)`, `frames(k)`),
// never from a previous drawing, so stepping back restores exactly what was shown.
import { errorMessage, freeNodes, stateAtFrame, type FreeNode, type Index, type OpFrames, type OpSummary, type Session, type State } from './bridge';
import { resolveStep, type StepRef } from './permalink';
import type { Workbench } from './panels';
import type { TabId } from './panels/tabs';
import type { AppApi } from './panels/context';
import { DEFAULT_TRACE } from './scenario';
import { isMapleSession } from './maple/bridge';
import type { MapleFocus } from './views/mapleTree';
import { Lru } from './player/cache';
import { focusOf, NO_FOCUS, searchOf, type Focus } from './player/focus';
import { loadSpeed, loadTheme, reducedMotion, save, type Theme } from './player/settings';
import { findEvent, type AnyEvent, type EventKind } from './player/events';
import { WITHHELD, withheldFocus, withheldMapleFocus } from './lessons/withhold';
import { at, clampPos, nextFrame, nextOp, prevFrame, prevOp, samePos, type Pos } from './player/timeline';
import { inPurge, narrate, type Narration } from './narrate/narrate';
import { CodePanel } from './views/codePanel';
import type { FreeTree } from './views/freeTree';
import { NarrationPanel } from './views/narration';
import { OpForms } from './views/opForms';
import { FreePopover, HelpOverlay } from './views/overlays';
import { OpList, summarizeOutput } from './views/player';
import type { SpaceZoom } from './views/spaceZoom';
import { Stats } from './views/stats';
import { UndoToast } from './views/undoToast';
import { SPEEDS, Transport, type TransportAction } from './views/transport';
import { installKeys } from './page/keys';
import { blanked, setBlank, showEmbedded, toggleLegend } from './page/lecture';
import { LinkSync } from './page/link';
import { Markers } from './page/markers';
import { Lessons } from './page/lessons';
import { Opener, type AppDeps } from './page/opening';
import { setTiming, span } from './page/timing';
import { TreeWords } from './page/treeWords';
import type { MapleHost } from './page/mapleHost';
import { AddressViews } from './page/addressViews';
import { Listeners, mountPanels } from './page/panelHost';

function part<T extends HTMLElement>(root: HTMLElement, widget: string): T {
  const e = root.querySelector<T>(`[data-widget="${widget}"]`);
  if (!e) throw new Error(`the page has no [data-widget="${widget}"]`);
  return e;
}


/** A micro-step lasts this long at 1×. */
const FRAME_MS = 1000;
/** Operations one event jump reads at most, and how long it may take (a long trace's frames are slow). */
const JUMP_OPS = 2000;
const JUMP_MS = 250;

export class App {
  private session: Session | null = null;
  private pos: Pos = at(0);
  private readonly frameCache = new Lru<number, OpFrames | null>(6);
  private readonly stateCache = new Lru<number, State>(8);
  private readonly markers = new Markers();
  private playing = false;
  private timer: number | null = null;
  private speed: number;
  private startPaused = true;
  private lecture = false;
  /** The era views (web/src/views/eraPanel.ts), loaded with lecture mode or an embed. */
  private era: import('./views/eraPanel').EraPanel | null = null;
  private eraLoading = false;
  private readonly opener: Opener;
  private readonly link = new LinkSync({
    session: () => this.session,
    pos: () => this.pos,
    playing: () => this.playing,
    opening: () => this.opener.opening !== null || this.live,
    lecture: () => this.lecture,
    embed: () => this.embed,
    lessonHash: () => (this.lessons.lesson ? this.lessons.lessonHash() : null),
  });
  private readonly stats: Stats;
  private readonly views: AddressViews;
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
  private readonly lessons: Lessons;
  /** `&embed=1`: only the views and the transport (an iframe); no questions asked. */
  private embed = false;
  /** Live mode (`#live=1`): the address bar keeps that link. */
  private live = false;
  private readonly listeners = new Listeners();
  private version = 0;
  private readonly treeWords: TreeWords;
  private readonly maple: MapleHost;

  constructor(
    private readonly root: HTMLElement,
    private readonly deps: AppDeps,
  ) {
    this.speed = loadSpeed(SPEEDS);
    this.opener = new Opener({
      deps,
      banner: part(root, 'load-error'),
      hasSession: () => this.session !== null,
      lecture: () => this.lecture,
      setLecture: (on, updateLink) => this.setLecture(on, updateLink),
      openLesson: (id, index, around) => this.lessons.openLesson(id, index, around),
      leaveLesson: (writeLink) => this.lessons.leaveLesson(writeLink),
      loadMapleUi: () => void this.maple.load(),
      open: (session, step, frame) => this.open(session, step, frame),
      showError: (problems) => this.showError(problems),
      writeLink: (now) => this.link.write(now),
      workbench: () => this.workbench(),
    });
    this.stats = new Stats(part(root, 'stats'));
    this.views = new AddressViews(root, {
      session: () => this.session,
      asking: (kind) => this.lessons.asking(kind),
      answer: (p) => this.lessons.answer(p),
      offerFree: (start, end, lazy, e) => this.offerFree(start, end, lazy, e),
      mapleLoaded: () => {
        // Drawn again if the page is waiting for it (a link still opening needs it later).
        if (this.root.dataset.view === 'maple-tree') {
          this.firstRender = true;
          span('maple-render', () => this.render(false));
        }
        if (!this.opener.opening) setTiming(false);
      },
      mapleFailed: (e) => this.showError([`The maple tree view did not load: ${errorMessage(e)}`]),
    });
    ({ lens: this.lens, tree: this.tree, maple: this.maple } = this.views);
    this.treeWords = new TreeWords(root);
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
    // Outside #app so that lecture mode, which hides the rest, still shows it.
    this.undo = new UndoToast(root.ownerDocument.body);
    this.lessons = new Lessons({
      root,
      deps,
      undo: this.undo,
      transport: this.transport,
      session: () => this.session,
      pos: () => this.pos,
      lecture: () => this.lecture,
      embed: () => this.embed,
      pause: () => this.pause(),
      setPos: (p, animate, force) => this.setPos(p, animate, force),
      open: (session, step, frame) => this.open(session, step, frame),
      stopOpening: () => this.opener.stop(),
      showError: (problems) => this.showError(problems),
      writeLink: (now) => this.link.write(now),
      action: (a) => this.action(a),
      count: (op) => this.count(op),
      events: (op) => (this.framesOf(op)?.frames ?? []).map((f) => f.event as AnyEvent),
    });
    installKeys({
      root,
      help: this.help,
      popover: this.popover,
      transport: this.transport,
      pickerOpen: () => this.lessons.pickerOpen(),
      lecture: () => this.lecture,
      action: (a) => this.action(a),
      togglePlay: () => this.togglePlay(),
      changeSpeed: (d) => this.changeSpeed(d),
      jump: (k, d) => this.jump(k, d),
      showLessons: () => this.lessons.showLessons(),
      toggleLegend,
      lesson: () => {
        const l = this.lessons;
        if (!l.lesson) return null;
        return {
          reveal: () => l.reveal(),
          answerStore: (store) => l.asking('store') && (l.answer({ ask: 'store', store }), true),
          forward: () => l.forward(),
          stepStop: (d) => l.stepStop(d),
        };
      },
    });
    root.ownerDocument.addEventListener('click', (e) => {
      const t = e.target as Element | null;
      if (this.popover.open && t && !t.closest('[data-widget="free-popover"], g.area, g.seg')) this.popover.hide();
    });
    this.tools();
    this.workbench = mountPanels(root, this.panelApi());
  }

  /** What the workbench's panels are handed (web/src/panels/context.ts). */
  private panelApi(): AppApi {
    const app = this;
    return {
      loadTrace: (text, step) => this.loadTrace(text, step),
      openSession: (session, step) => this.openSession(session, step),
      currentTrace: () => this.currentTrace(),
      zippedTrace: () => this.zippedTrace(),
      currentStep: () => this.pos.op,
      currentFrame: () => this.pos.frame,
      lessonHref: () => this.lessons.lessonHref(),
      onChange: (cb) => this.listeners.onChange(cb),
      onFrame: (cb) => this.listeners.onFrame(cb),
      get core() {
        return app.session;
      },
      get sessionVersion() {
        return app.version;
      },
    };
  }

  /** The workbench, loaded now if it is not yet (on its large-trace tab). */
  private workbench: (tab?: TabId) => Promise<Workbench> | null = () => null;

  // ---------- the page's own API (main.ts, embed, tests: window.vmapviz.app) ----------

  /** The areas' callers from /proc/vmallocinfo reads (live mode): hover and the callers table. */
  showCallers(files: { name: string; bytes: Uint8Array }[]): Promise<void> {
    return this.workbench('frag')?.then((w) => w.setCallers(files)) ?? Promise.resolve();
  }

  /** The lesson shown: its stops, the stop's index (the tests read what a stop names). */
  get lesson(): Lessons['lesson'] {
    return this.lessons.lesson;
  }

  /**
   * Replace the session with a trace and show `step` (default: the end). Throws an Error
   * `line N: ...` when the trace is invalid, leaving the current session as it was.
   */
  loadTrace(text: string, step: number | 'end' = 'end'): void {
    this.openSession(this.deps.load(text), step);
  }

  /**
   * Replace the session with one opened elsewhere (the workbench opens a capture from its
   * replay's operations, with no text in between) and show `step`, as `loadTrace` does.
   */
  openSession(session: Session, step: number | 'end' = 'end'): void {
    this.lessons.leaveLesson(false);
    this.opener.stop();
    const before = this.session ? { trace: this.session.traceText(), length: this.session.length, pos: this.pos } : null;
    this.open(session, step, null);
    this.showError([]);
    this.link.write(true);
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
    return this.link.zip(this.currentTrace());
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
    this.listeners.onChange(cb);
  }

  /** Call `cb` whenever the position shown changes, micro-steps included. */
  onFrame(cb: () => void): void {
    this.listeners.onFrame(cb);
  }

  /**
   * How the address-space overview fills busy and lazy areas: by state (the default) or by
   * vmap node (linux-6.9's nodes; the patterns still tell busy from lazy).
   */
  setColorBy(mode: 'state' | 'node'): void {
    this.views.setColorBy(mode);
  }

  /** The session (read-only use: tests and panels compare with the core). */
  get core(): Session | null {
    return this.session;
  }

  /** Bumped whenever the session or its trace changes (a load, an operation added). */
  get sessionVersion(): number {
    return this.version;
  }

  // ---------- embedding (web/src/embed.ts) ----------

  /** `&embed=1`: only the views and the transport; kept in the links the page writes. */
  setEmbed(on: boolean): void {
    this.embed = on;
    showEmbedded(on);
    this.link.write(true);
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
    if (this.help.open || this.lessons.pickerOpen() || blanked()) return;
    this.action(a);
  }

  /** Where the page is: the operation, the micro-step in it, how many it has, the lesson's stop. */
  where(): { op: number; step: number; frame: number; lesson?: string; stop?: number } {
    const p = this.pos;
    const w: { op: number; step: number; frame: number; lesson?: string; stop?: number } = { op: p.op, step: p.frame, frame: this.count(p.op) };
    const l = this.lessons.lesson;
    if (l) {
      w.lesson = l.lesson.id;
      w.stop = l.index + 1;
    }
    return w;
  }

  /** The picker (L, or the header's Lessons button). */
  showLessons(): Promise<void> {
    return this.lessons.showLessons();
  }

  /** Open lesson `id` at stop `index` (0-based); an unknown lesson or stop says so. */
  openLesson(id: string, index: number, around?: { at: Pos | null; answer: boolean }): Promise<void> {
    return this.lessons.openLesson(id, index, around);
  }

  /** Out of the lesson: the trace stays, the link becomes the trace's own. */
  leaveLesson(writeLink = true): void {
    this.lessons.leaveLesson(writeLink);
  }

  /** Show the open question's answer (the lecturer's key, or after an answer). */
  reveal(): boolean {
    return this.lessons.reveal();
  }

  /** In a lesson, the address of the picture shown (the workbench's Copy permalink); else null. */
  lessonHref(): string | null {
    return this.lessons.lessonHref();
  }

  /** Live mode (web/src/live/live.ts): show a followed trace's session at a step. */
  follow(session: Session, step: StepRef): void {
    this.live = true;
    this.open(session, step, null);
  }

  /**
   * Live mode: the followed trace grew; add its new lines to `session`, shown by `follow` (false
   * when another trace is shown now), and show its end. Up to a line the core refuses: how many
   * were taken, and the core's words for the one refused ('' when all were taken).
   */
  extendFollowed(session: Session, lines: string[]): { taken: number; error: string } | false {
    if (this.session !== session) return false;
    const added: OpSummary[] = [];
    let error = '';
    for (const line of lines) {
      try {
        added.push(session.push(line));
      } catch (e) {
        error = errorMessage(e);
        break;
      }
    }
    if (added.length) {
      this.version++;
      this.stateCache.clear();
      this.frameCache.clear();
      this.ops.append(added);
      this.markers.scan(session, this.root, () => this.renderTransport(), session.length - added.length);
    }
    this.setPos(at(session.length), false, added.length > 0);
    return { taken: added.length, error };
  }

  /** Open what the location hash names, or the default scenario (also after an error). */
  openHash(hash: string, search = location.search): void {
    this.opener.openHash(hash, search);
  }

  private open(session: Session, step: StepRef, frame: number | null): void {
    this.opener.standIn = false;
    this.pause();
    if (!this.lessons.openingLesson) this.lessons.leaveLesson(false);
    this.session?.dispose();
    this.session = session;
    this.version++;
    this.frameCache.clear();
    this.stateCache.clear();
    this.link.forget();
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
    if (!this.maple.loading) setTiming(false);
    this.link.write(true);
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
    if (a === 'next' && this.lessons.withholding() && this.lessons.reveal()) return;
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
      this.link.write();
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
  private statsKey = '';

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
    const withheld = this.lessons.withholding();
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
        const ui = this.maple.load();
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
    // The state before op k, whichever object holds it (frames(k).before or state(k)).
    const key = `${this.version}:${p.op}`;
    const fr = of && p.frame >= 0 ? of.frames[p.frame] : undefined;
    const statsKey = fr ? `${key}:t${fr.tree}:a${fr.areas}` : key;
    if (statsKey !== this.statsKey) {
      const mapleTree = isMapleSession(s) ? this.maple.treeAt(s, this.pos) : undefined;
      span('stats', () => this.stats.render(statsState, mapleTree));
    }
    this.statsKey = statsKey;
    // The address views change within an operation too: keyed by the snapshots in force.
    let barKey = fr ? `${key}:t${fr.tree}:a${fr.areas}` : key;
    // A maple tree's stored ranges change only with a store or an erase: one key until then.
    if (isMapleSession(s)) barKey = `${this.version}:${s.areasKey(p.op, fr ? fr.areas : -1)}`;
    span('address-views', () => this.views.drawAddress(state, this.focus.ranges, barKey, ms));
    // During an operation's micro-steps the trees are the core's live ones (the first op sets up the space).
    const maple = isMapleSession(s) ? s : null;
    // The era's index decides the view: a free tree, or a maple tree (maple-rfc's occupied tree,
    // drawn by the maple view too).
    const occupied = !maple && index.kind === 'maple' ? index.tree : null;
    const mapleView = maple !== null || occupied !== null;
    part(this.root, 'free-tree').hidden = mapleView;
    this.maple.root.hidden = !mapleView;
    this.root.dataset.view = mapleView ? 'maple-tree' : 'free-tree';
    const title = this.root.querySelector('#tree-title');
    if (title) title.textContent = maple ? 'Maple tree' : occupied ? 'Occupied tree (maple)' : 'Free tree';
    this.treeWords.show(maple ? 'maple-tree' : occupied ? 'maple-rfc' : 'free-tree');
    if (maple) narration = span('maple-view', () => this.maple.drawSession(maple, this.pos, ms, this.lecture, withheld));
    else if (occupied) span('maple-view', () => this.maple.drawOccupied(occupied, ms, this.lecture, rfcFocus));
    else this.tree.render(nodes, { initialized: state.initialized || p.frame >= 0, focus: this.focus, duration: ms });
    // Lecture mode and embeds draw the list walk's busy list (5.1) in the free tree's place and
    // the vmap nodes (6.9 on) above the tree (web/src/views/eraPanel.ts).
    if ((this.lecture || this.embed) && !this.era && !this.eraLoading) {
      this.eraLoading = true;
      void Promise.all([import('./views/eraPanel'), import('./eras')]).then(([m, e]) => {
        this.era = new m.EraPanel(part(this.root, 'free-tree'), this.deps.eras ? e.parseEras(this.deps.eras()) : []);
        this.render(false);
      });
    }
    const era = this.era?.render(state, of ? of.frames.slice(0, p.frame + 1).map((f) => f.event) : [], (this.lecture || this.embed) && !mapleView) ?? null;
    if (era === 'list') {
      part(this.root, 'free-tree').hidden = true;
      if (title) title.textContent = 'Busy list';
    }
    // At a lesson stop about the nodes and not the tree, the nodes take the tree's room.
    const l = this.lessons.lesson;
    if (era === 'nodes' && this.lecture && l && !l.lesson.stops[l.index].look.includes('tree')) part(this.root, 'free-tree').hidden = true;
    if (this.firstRender && (!mapleView || this.maple.ui)) {
      if (mapleView) this.maple.ui?.view.fit(0);
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
    if (this.lessons.lesson) this.lessons.renderLesson();
    // The (possibly long) link is written once the player rests for a moment.
    this.link.write();
    this.listeners.changed(this.version, this.pos.op, this.pos.frame);
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
      markers: this.markers.map,
      markersVersion: this.markers.version,
      markersNote: this.markers.note,
      markerKinds: this.root.dataset.view === 'maple-tree' ? 'none' : 'free-tree',
    });
  }

  /** The timeline's markers of the session, gathered in idle time. */
  private scanMarkers(): void {
    if (this.session) this.markers.scan(this.session, this.root, () => this.renderTransport());
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
    if (!this.session && this.opener.opening) {
      this.opener.stop();
      span('default-scenario', () => this.open(this.deps.load(DEFAULT_TRACE), 0, null));
    }
    const s = this.session;
    if (!s) return 'the core is not loaded';
    // An edit of what is shown wins over a long link still opening.
    this.opener.stop();
    this.pause();
    try {
      s.pushChecked(line);
    } catch (e) {
      return errorMessage(e);
    }
    // The lesson's trace is no longer what its stops describe.
    this.lessons.leaveLesson(false);
    // An edit after a replacement: undoing the replacement would drop it, so the offer ends.
    this.undo.hide();
    this.link.forget();
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
    this.link.write(true);
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
    tools.querySelector('[data-tool="lessons"]')?.addEventListener('click', () => void this.lessons.showLessons());
    this.startPaused = true;
  }

  /** Lecture mode: large type, high contrast, only the player; kept in the permalink. */
  setLecture(on: boolean, updateLink = true): void {
    this.lecture = on;
    if (!on) setBlank(false);
    document.body.classList.toggle('lecture', on);
    this.root.dataset.lecture = String(on);
    this.root.querySelector('[data-tool="lecture"]')?.setAttribute('aria-pressed', String(on));
    if (updateLink) {
      this.link.write(true);
      if (this.session) {
        this.firstRender = true;
        this.render(false);
      }
    }
  }

  private showError(problems: string[]): void {
    this.banner.hidden = problems.length === 0;
    this.banner.textContent = problems.join('\n');
  }
}
