// Opening what a link names: a plain or compressed (`#z=`) trace, a lesson's stop, or (when it
// has none, or fails) the default scenario. A long link opens in slices with a progress line and
// Cancel, or off the main thread (player/bigLink.ts); what was shown stays meanwhile.
import { errorMessage, type Session } from '../bridge';
import { parseLessonLink } from '../lessons/link';
import type { Workbench } from '../panels';
import { LARGE_OPS } from '../panels/limits';
import { type BigZLink, bigZLink, expandHash } from '../panels/zlink';
import { parseHash, type Permalink, type StepRef } from '../permalink';
import { parsePlayerLink } from '../player/link';
import { OpenCancelled, openInSlices, type Slices } from '../player/opening';
import type { Pos } from '../player/timeline';
import { DEFAULT_AT, DEFAULT_TRACE } from '../scenario';
import { setTiming, span } from './timing';

export interface AppDeps {
  /** Replay a trace (throws `line N: ...`). */
  load: (text: string) => Session;
  /** Open a trace a slice at a time (long links: the page stays responsive); optional. */
  begin?: (text: string) => Slices;
  /** A promise to await before `load` can open this trace (a capture's: another core build), or null. */
  coreFor?: (text: string) => Promise<void> | null;
  /** The core's eras as its JSON (its registry, parsed by web/src/eras.ts); none: no era panel. */
  eras?: () => string;
}

/** A link's trace longer than this (characters) opens in slices between frames, cancellable. */
export const SLICED_LINK = 16_384;

export const DEFAULT_NOTE = 'Showing the default scenario instead.';

/** A trace that opens on the maple view (its `profile` line comes first). */
const MAPLE_PROFILE = /^\s*profile[ \t]+maple-(rfc|tree)\b/;

/** What opening a link changes on the page. */
export interface OpenHost {
  readonly deps: AppDeps;
  /** The error banner (the progress line goes before it). */
  readonly banner: HTMLElement;
  hasSession(): boolean;
  lecture(): boolean;
  setLecture(on: boolean, updateLink: boolean): void;
  openLesson(id: string, index: number, around?: { at: Pos | null; answer: boolean }): Promise<void>;
  leaveLesson(writeLink: boolean): void;
  /** Start loading the maple view's chunk. */
  loadMapleUi(): void;
  /** Show a replayed session at a step (and micro-step). */
  open(session: Session, step: StepRef, frame: number | null): void;
  showError(problems: string[]): void;
  writeLink(now: boolean): void;
  workbench(): Promise<Workbench> | null;
}

export class Opener {
  /** A long link still opening, or null. */
  opening: AbortController | null = null;
  /** The default scenario stands in while a first link opens in the large-trace navigator. */
  standIn = false;
  private lectureBefore = false;
  private openingNoteEl: HTMLElement | null = null;

  constructor(private readonly h: OpenHost) {}


  /** Open what the location hash names, or the default scenario (also after an error). */
  openHash(hash: string, search = location.search): void {
    performance.mark('vmapviz:open-link');
    setTiming(true);
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
    const lectureBefore = this.h.lecture();
    const lessonAt = parseLessonLink(hash);
    if (lessonAt) {
      this.h.setLecture(extra.lecture, false);
      void this.h.openLesson(lessonAt.id, lessonAt.stop - 1, lessonAt);
      return;
    }
    this.h.leaveLesson(false);
    // A damaged #z= is one problem, not also a badly encoded parameter.
    const { link, error } = z.error ? { link: null, error: null } : parseHash(hash);
    this.h.setLecture(extra.lecture, false);
    const problems: string[] = [z.error, error].filter((e): e is string => e !== null);
    // Lecture mode as it was, for a link that fails on a page already showing a trace.
    this.lectureBefore = lectureBefore;
    this.stop();
    this.openLink(link, extra.frame, problems);
  }

  /**
   * Open a link's trace at its step (or, when it has none or fails, keep what is shown or open the
   * default scenario), saying `problems`.
   */
  private openLink(link: Permalink | null, frame: number | null, problems: string[], counted = false): void {
    // A maple profile's link needs the maple view's chunk: fetched while the core replays the
    // trace, not after (a third of the time to a long link's first drawing).
    if (link && MAPLE_PROFILE.test(link.trace.slice(0, 512))) this.h.loadMapleUi();
    // A capture's trace replays in the workbench's core build: loaded first, then opened.
    // Meanwhile the page says it is opening (`data-opening`), and a link followed before the core
    // arrives replaces this one.
    const core = link ? this.h.deps.coreFor?.(link.trace) : null;
    if (core) {
      const ctl = new AbortController();
      this.opening = ctl;
      document.body.dataset.opening = 'true';
      const then = (l: Permalink | null, p: string[]) => {
        if (this.opening !== ctl) return;
        this.opening = null;
        delete document.body.dataset.opening;
        this.openLink(l, frame, p, counted);
      };
      core.then(
        () => then(link, problems),
        (e: unknown) => then(null, [`Could not load the core that replays captures: ${errorMessage(e)}`, ...problems]),
      );
      return;
    }
    if (link && this.h.deps.begin && link.trace.length > SLICED_LINK) {
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
        const session = span('load', () => this.h.deps.load(link.trace));
        if (session.length > 0) {
          this.h.open(session, link.step, frame);
          this.h.showError(problems);
          return;
        }
        session.dispose();
        problems.unshift('The link\'s trace is empty: it has no operation to show.');
      } catch (e) {
        problems.unshift(`Could not load the trace from the link: ${errorMessage(e)}`);
      }
    }
    if (problems.length > 0 && this.keepShown(problems)) return;
    // A first open shows the default scenario mid-way (holes in the tree, a search); after a
    // failed link it opens at its start.
    const [op, f] = problems.length ? [0, null] : DEFAULT_AT;
    this.h.open(this.h.deps.load(DEFAULT_TRACE), op, f);
    if (problems.length > 0) problems.push(DEFAULT_NOTE);
    this.h.showError(problems);
  }

  /**
   * A link that fails on a page already showing a trace (a link followed, a hash edited) leaves
   * that trace as it was, as a failed import does, and puts its own link back in the address
   * bar (a reload shows it, not the error again). False on a first load: nothing to keep.
   */
  keepShown(problems: string[]): boolean {
    if (!this.h.hasSession()) return false;
    // Nothing of the failed link applies, its `lecture=` included.
    this.h.setLecture(this.lectureBefore, false);
    this.h.showError([...problems, this.standIn ? DEFAULT_NOTE : 'The trace shown before is kept.']);
    this.h.writeLink(true);
    return true;
  }

  /** Abandon a long link still opening (a new link, a loaded trace or an edit replaces it). */
  stop(): void {
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
    const lectureBefore = this.h.lecture();
    this.h.leaveLesson(false);
    this.h.setLecture(extra.lecture, false);
    this.lectureBefore = lectureBefore;
    this.stop();
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
    void import('../player/bigLink').then((m) =>
      m.openBig(
        {
          live,
          label: note.querySelector('[data-role="progress"]') as HTMLElement,
          player: (text) => end() && this.openLink({ trace: text, step }, frame, problems, true),
          end: (msg, open) => end() && (open ? this.h.showError([msg, ...problems]) : this.fallBack([msg, ...problems]), true),
          workbench: () => {
            // Never a blank player (the address bar keeps the link while it opens).
            if (!this.h.hasSession()) {
              this.h.open(this.h.deps.load(DEFAULT_TRACE), 0, null);
              this.standIn = true;
            }
            return [this.standIn, this.h.workbench()];
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
      slices = (this.h.deps.begin as (t: string) => Slices)(trace);
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
        setTiming(true);
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
        this.h.open(session, step, frame);
        this.h.showError(problems);
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
  fallBack(problems: string[]): void {
    if (this.keepShown(problems)) return;
    span('default-scenario', () => this.h.open(this.h.deps.load(DEFAULT_TRACE), 0, null));
    this.h.showError([...problems, DEFAULT_NOTE]);
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
    this.h.banner.before(note);
    return note;
  }

  private endOpening(ctl: AbortController, note: HTMLElement): void {
    note.remove();
    if (this.opening !== ctl) return;
    this.opening = null;
    this.openingNoteEl = null;
    delete document.body.dataset.opening;
  }
}
