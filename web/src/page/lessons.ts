// The page's side of the lessons (web/src/lessons/): the lesson shown, its stop, its question
// and the card and picker that show them. A stop is a position of the page's player on the
// stop's trace; the card, the picker and the lessons' words load with the catalogue, on first use.
import { errorMessage, type Session } from '../bridge';
import { lessonLink } from '../lessons/link';
import type { Lesson } from '../lessons/model';
import type { LessonCard, LessonPicker } from '../lessons/panel';
import type { AskKind, Pick, Resolved as AskResolved } from '../lessons/question';
import type { AnyEvent, EventSource } from '../player/events';
import { samePos, type Pos } from '../player/timeline';
import type { StepRef } from '../permalink';
import { DEFAULT_TRACE } from '../scenario';
import type { UndoToast } from '../views/undoToast';
import type { Transport, TransportAction } from '../views/transport';
import { blanked, setBlank } from './lecture';
import type { AppDeps } from './opening';

/** What a lesson moves on the page. */
export interface LessonHost {
  readonly root: HTMLElement;
  readonly deps: AppDeps;
  readonly undo: UndoToast;
  readonly transport: Transport;
  session(): Session | null;
  pos(): Pos;
  lecture(): boolean;
  embed(): boolean;
  pause(): void;
  setPos(p: Pos, animate?: boolean, force?: boolean): void;
  open(session: Session, step: StepRef, frame: number | null): void;
  stopOpening(): void;
  showError(problems: string[]): void;
  writeLink(now: boolean): void;
  action(a: TransportAction): void;
  /** Micro-steps of operation `op`. */
  count(op: number): number;
  /** The events of operation `op`'s micro-steps. */
  events(op: number): AnyEvent[];
}

export class Lessons {
  /** The lesson's card and the picker: built when the lessons load (their code loads with them). */
  private lessonCard: LessonCard | null = null;
  private picker: LessonPicker | null = null;
  /** The lessons' module (their words and traces), loaded on first use. */
  private catalogue: Promise<readonly Lesson[]> | null = null;
  /** The lessons' functions, loaded with the catalogue (web/src/lessons/lazy.ts). */
  private lessonFns: typeof import('../lessons/lazy') | null = null;
  /** The lesson shown: which stop, where it sits (null when it could not be placed), its trace. */
  lesson: { lesson: Lesson; index: number; pos: Pos | null; problem: string | null; trace: string; q?: Question | null } | null = null;

  private readonly cardRoot: HTMLElement;
  private readonly pickRoot: HTMLElement;

  constructor(private readonly h: LessonHost) {
    const root = h.root;
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
    root.querySelector('[data-widget="help"]')?.after(pick);
    this.pickRoot = pick;
    root.querySelector('[data-tool="author"]')?.addEventListener('click', () => this.author());
  }

  /** The form that saves micro-steps as a lesson's stops (loaded with the lessons). */
  author(): void {
    this.loadLessons().then(
      () => this.lessonFns?.showAuthoring(this.h, (id) => this.openLesson(id, 0)),
      (e: unknown) => this.h.showError([`The lessons did not load: ${errorMessage(e)}`]),
    );
  }

  /** Whether the picker is open (the player's keys then wait). */
  pickerOpen(): boolean {
    return this.picker?.open ?? false;
  }


  /** The lessons (their module is loaded once, on first use). */
  private loadLessons(): Promise<readonly Lesson[]> {
    this.catalogue ??= Promise.all([import('../lessons/catalogue'), import('../lessons/lazy'), import('../lessons/panel')]).then(([m, fns, ui]) => {
      this.lessonFns = fns;
      this.lessonCard = new ui.LessonCard(this.cardRoot, {
        onStop: (dir) => this.stepStop(dir),
        onReturn: () => this.toStop(),
        onLeave: () => this.leaveLesson(),
        onChoice: (store) => this.asking('store') && this.answer({ ask: 'store', store }),
        onReveal: () => this.reveal(),
        link: () => this.lessonHref() ?? location.href,
        previews: () => (this.lesson ? fns.previewLinks(m.LESSONS, this.lesson.lesson, this.lesson.index, this.h.pos(), (op) => this.h.count(op)) : null),
        onMicroStep: (dir) => this.h.action(dir === 1 ? 'next' : 'prev'),
        onBlank: () => setBlank(!blanked()),
        onTyped: (text) => {
          const q = this.lesson?.q;
          if (!q || q.revealed) return null;
          const p = fns.parsePick(q.r.answer.ask, text);
          if ('error' in p) return p.error;
          this.answer(p);
          return null;
        },
      });
      this.picker = new ui.LessonPicker(this.pickRoot, (id) => void this.openLesson(id, 0).then(() => this.lessonCard?.focus()), () => this.author());
      this.lessonOrder = m.LESSONS.map((l) => l.id);
      return m.LESSONS;
    });
    return this.catalogue;
  }

  /** The picker (L, or the header's Lessons button). */
  async showLessons(): Promise<void> {
    try {
      const all = await this.loadLessons();
      this.picker?.show(all, this.lesson?.lesson.id ?? null);
    } catch (e) {
      this.h.showError([`The lessons did not load: ${errorMessage(e)}`]);
    }
  }

  /** Open lesson `id` at stop `index` (0-based); an unknown lesson or stop says so. */
  async openLesson(id: string, index: number, around?: { at: Pos | null; answer: boolean }): Promise<void> {
    let all: readonly Lesson[];
    try {
      all = await this.loadLessons();
    } catch (e) {
      this.h.showError([`The lessons did not load: ${errorMessage(e)}`]);
      return;
    }
    // A practice the core's generator makes, or a lecturer's lesson its link carries (lessons/lazy.ts).
    const mine = all.find((l) => l.id === id) ?? (await this.lessonFns?.otherLesson(id, this.h.deps).catch((e: unknown) => ({ message: errorMessage(e) })));
    const lesson = mine && 'stops' in mine ? mine : undefined;
    // A long link still opening gives way to the lesson.
    this.h.stopOpening();
    if (!lesson) {
      if (!this.h.session()) this.h.open(this.h.deps.load(DEFAULT_TRACE), 0, null);
      this.h.showError([mine && 'message' in mine ? `This lesson is refused: ${mine.message}` : `There is no lesson "${id}" (the lessons are ${all.map((l) => l.id).join(', ')}).`]);
      return;
    }
    const i = Math.max(0, Math.min(lesson.stops.length - 1, Number.isFinite(index) ? index : 0));
    const problems = i !== index ? [`The lesson "${lesson.title}" has ${lesson.stops.length} stops: showing stop ${i + 1}.`] : [];
    // A lesson opened over a trace of one's own (not another lesson's) can be taken back.
    const s = this.h.session();
    const before = s && !this.lesson ? { trace: s.traceText(), pos: this.h.pos() } : null;
    this.lesson = { lesson, index: i, pos: null, problem: null, trace: '' };
    this.goToStop(i);
    // A link's position around the stop and its revealed answer (the picture it was copied from).
    if (around && i === index) {
      const bad = this.aroundStop(around.at, around.answer);
      if (bad) problems.push(bad);
    }
    if (before) {
      this.h.undo.show(`Opened the lesson "${lesson.title}" in place of your trace.`, () => {
        this.leaveLesson(false);
        this.h.open(this.h.deps.load(before.trace), before.pos.op, before.pos.frame >= 0 ? before.pos.frame : null);
        this.h.showError([]);
      });
    }
    this.h.showError(problems);
    this.h.root.dataset.lessonReady = 'true';
  }

  /**
   * The next (1) or previous (-1) stop; past a lesson's last stop, the first of the next lesson
   * (before its first, the last of the one before), so a remote walks the whole course.
   */
  stepStop(dir: 1 | -1): void {
    const l = this.lesson;
    if (!l) return;
    const i = l.index + dir;
    if (i >= 0 && i < l.lesson.stops.length) {
      this.goToStop(i);
      return;
    }
    void this.loadLessons().then((all) => {
      const at = all.findIndex((x) => x.id === l.lesson.id);
      // A practice is no lesson of the course: it ends at its last stop.
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
    this.h.pause();
    l.index = i;
    if (l.trace !== trace || !this.h.session()) {
      let session: Session;
      try {
        session = this.h.deps.load(trace);
      } catch (e) {
        l.pos = null;
        l.problem = `its trace does not replay: ${errorMessage(e)}`;
        this.renderLesson();
        return;
      }
      l.trace = trace;
      this.openingLesson = true;
      this.h.open(session, 0, null);
      this.openingLesson = false;
    }
    // ] and [ then go to the next event of the kind the stop is about.
    if ('kind' in stop.claim) this.h.transport.kind = stop.claim.kind;
    const s = this.h.session() as Session;
    // Loaded with the catalogue, which a lesson open has awaited.
    const { resolveStop, checkClaim, resolveAsk } = this.lessonFns as typeof import('../lessons/lazy');
    const r = resolveStop(this.eventSource(s), stop);
    if ('error' in r) {
      l.pos = null;
      l.problem = r.error;
    } else {
      l.pos = r.pos;
      l.problem = checkClaim(stop, r.event);
      l.q = null;
      const q = stop.ask && !this.h.embed() ? resolveAsk(this.eventSource(s), r.pos.op, stop.ask) : null;
      if (q && 'error' in q) l.problem = `its question cannot be answered: ${q.error}`;
      else if (q) l.q = { r: q, revealed: false, pick: null, right: null };
      this.h.setPos(l.q ? l.q.r.posed : r.pos, true, true);
    }
    this.h.writeLink(true);
    this.renderLesson();
  }

  /** A lesson link's position and answer applied to the stop just shown; what is wrong, or null. */
  private aroundStop(at: Pos | null, answer: boolean): string | null {
    const l = this.lesson;
    const s = this.h.session();
    if (!l || !s || !l.pos) return null;
    if (answer && l.q) l.q.revealed = true;
    let pos = answer && l.q ? l.pos : null;
    let bad: string | null = null;
    if (at) {
      if (at.op > s.length || (at.op === s.length && at.frame >= 0) || at.frame >= this.h.count(at.op)) {
        bad = `The link's micro-step (operation ${at.op + 1}, micro-step ${at.frame + 1}) is past this lesson's trace: showing the stop.`;
      } else pos = at;
    }
    if (pos) this.h.setPos(pos, true, true);
    this.h.writeLink(true);
    this.renderLesson();
    return bad;
  }

  /** Back to the stop's micro-step (once its question is revealed: without asking again). */
  toStop(): void {
    const l = this.lesson;
    if (!l) return;
    if (l.q?.revealed && l.pos) {
      this.h.pause();
      this.h.setPos(l.pos);
    } else this.goToStop(l.index);
  }

  /** A remote's "next" in a lesson: a question waiting is revealed first (a hall answers aloud). */
  forward(): void {
    const l = this.lesson;
    if (!l || this.reveal()) return;
    const q = l.q;
    if (q?.revealed && l.pos && samePos(q.r.shown, this.h.pos()) && !samePos(l.pos, this.h.pos())) this.toStop();
    else this.stepStop(1);
  }

  /** Whether a question is open on the micro-step shown (its answer is then withheld). */
  withholding(): boolean {
    const q = this.lesson?.q;
    return !!q && !q.revealed && samePos(q.r.posed, this.h.pos());
  }

  /** Whether the stop shown asks a question of this kind, not yet answered. */
  asking(kind: AskKind): boolean {
    const q = this.lesson?.q;
    return !!q && !q.revealed && q.r.answer.ask === kind;
  }

  /** A student's answer: right or wrong, then the answer is revealed. */
  answer(p: Pick): void {
    const q = this.lesson?.q;
    const fns = this.lessonFns;
    if (!q || q.revealed || q.r.answer.ask !== p.ask || !fns) return;
    q.pick = fns.pickText(p);
    q.right = fns.isRight(q.r.answer, p);
    // A practice's score counts each stop's first answer.
    if (this.lesson) fns.recordPractice(this.lesson.lesson.id, this.lesson.index, q.right);
    this.reveal();
  }

  /** Show the answer (the lecturer's key, or after an answer): step to the micro-step that shows it. */
  reveal(): boolean {
    const q = this.lesson?.q;
    if (!q || q.revealed) return false;
    q.revealed = true;
    this.h.pause();
    this.h.setPos(q.r.shown, true, true);
    this.renderLesson();
    return true;
  }

  /** A session's events, for searches (frames through the page's cache). */
  private eventSource(s: Session): EventSource {
    return { length: s.length, events: (op) => this.h.events(op) };
  }

  /** True while a stop's trace is being opened (opening it does not leave the lesson). */
  openingLesson = false;
  /** The lessons' ids in order, once loaded (the card offers the next lesson after the last stop). */
  private lessonOrder: string[] = [];

  /** Out of the lesson: the trace stays, the link becomes the trace's own. */
  leaveLesson(writeLink = true): void {
    if (!this.lesson) return;
    this.lesson = null;
    delete this.h.root.dataset.lessonReady;
    this.renderLesson();
    if (writeLink) this.h.writeLink(true);
  }

  /** The card, and the panels the stop points to (outlined). */
  renderLesson(): void {
    const l = this.lesson;
    const q = l?.q ?? null;
    const atStop =
      l !== null &&
      l.pos !== null &&
      (q ? (q.revealed ? samePos(q.r.shown, this.h.pos()) || samePos(l.pos, this.h.pos()) : samePos(q.r.posed, this.h.pos())) : samePos(l.pos, this.h.pos()));
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
                  offStop: q.revealed && l.pos !== null && samePos(q.r.shown, this.h.pos()) && !samePos(l.pos, this.h.pos()),
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
    for (const [k, sel] of panels) this.h.root.querySelector(sel)?.classList.toggle('lesson-look', look.has(k as never));
    if (l) this.h.root.dataset.lessonStop = String(l.index + 1);
    else delete this.h.root.dataset.lessonStop;
    // Lecture mode and embeds lay the page out by the stop's look (web/src/lessons/hall.ts).
    // It loads with the lessons: before them there is no stop to lay out.
    this.lessonFns?.hallLayout(this.h.root, l ? l.lesson.stops[l.index] : null, { lecture: this.h.lecture(), embed: this.h.embed() });
  }

  /** In a lesson, the address of the picture shown (the workbench's Copy permalink); else null. */
  lessonHref(): string | null {
    return this.lesson ? new URL(this.lessonHash(), location.href).href : null;
  }

  /** The lesson's link for the picture shown (the stop, the micro-step around it, a revealed answer). */
  lessonHash(): string {
    const l = this.lesson;
    if (!l) return '';
    // The micro-step shown, when it is not where the stop opens (its question's, or its own).
    const own = l.q && !l.q.revealed ? l.q.r.posed : l.pos;
    const around = own && samePos(own, this.h.pos()) ? null : this.h.pos();
    return lessonLink(l.lesson.id, l.index + 1, this.h.lecture(), around, !!l.q?.revealed) + (this.h.embed() ? '&embed=1' : '');
  }
}

/** A stop's question while it is shown: resolved from the core's events, answered or not. */
interface Question {
  r: AskResolved;
  revealed: boolean;
  pick: string | null;
  right: boolean | null;
}
