// The address bar's link kept on the picture shown: the trace (plain, or compressed in a worker
// when long) with its step and micro-step, or a lesson's stop; written once the player rests.
import type { Session } from '../bridge';
import { formatPlayerHash } from '../player/link';
import type { Pos } from '../player/timeline';
import { zPrefix } from '../panels/zlink';
import { noteShown } from '../trap';
import { LinkZipper } from '../workers/zip';

/** A link longer than this (characters) is written only after a longer rest of the player. */
const LONG_LINK = 16_384;

/** What the link is written from. */
export interface LinkHost {
  session(): Session | null;
  pos(): Pos;
  playing(): boolean;
  /** A long link still opening: the address bar keeps it. */
  opening(): boolean;
  lecture(): boolean;
  embed(): boolean;
  /** In a lesson, its hash for the picture shown; else null. */
  lessonHash(): string | null;
}

/** The address bar's link of the session's trace, without its step (null while compressing). */
interface LinkCache {
  trace: string;
  prefix: string | null;
  /** Longer than LONG_LINK in the plain form: named compressed, written after a longer rest. */
  long: boolean;
}

export class LinkSync {
  private timer: number | null = null;
  private cache: LinkCache | null = null;
  private readonly zipper = new LinkZipper();
  /** The last trace given to the zipper, and its answer (the address bar and "Copy permalink"). */
  private memo: { trace: string; z: Promise<string> } | null = null;

  constructor(private readonly host: LinkHost) {}

  /** The trace changed (opened, edited): its link is made again. */
  forget(): void {
    this.cache = null;
  }

  /** A trace's lz-string form, compressed in a worker once per trace. */
  zip(trace: string): Promise<string> {
    if (this.memo?.trace !== trace) this.memo = { trace, z: this.zipper.compress(trace) };
    return this.memo.z;
  }

  /**
   * Keep the address bar's link on the step. While the player moves it is written once the
   * player rests, and not while it plays (pausing writes it): with a long trace the link is
   * hundreds of KB and `history.replaceState` with it costs a frame or more.
   */
  write(now = false): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (now) this.flush();
    else if (!this.host.playing()) {
      this.timer = window.setTimeout(() => this.flush(), this.cache?.long ? 1500 : 200);
    }
  }

  private flush(): void {
    this.timer = null;
    const h = this.host;
    const s = h.session();
    // While a long link opens, the address bar keeps that link (a reload opens it again).
    if (!s || h.opening()) return;
    const lesson = h.lessonHash();
    if (lesson !== null) {
      if (location.hash !== lesson) history.replaceState(null, '', lesson);
      noteShown(lesson);
      return;
    }
    if (!this.cache) this.cache = this.linkFor(s.traceText());
    if (this.cache.prefix === null) return; // compressing: written when done
    const p = h.pos();
    const step = p.op === s.length && p.frame < 0 ? 'end' : String(p.op);
    const hash = `${this.cache.prefix}&step=${step}${p.frame >= 0 ? `&frame=${p.frame}` : ''}${h.lecture() ? '&lecture=1' : ''}${h.embed() ? '&embed=1' : ''}`;
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
    void this.zip(trace).then((z) => {
      if (this.cache !== cache) return; // another trace, or an edit, since
      cache.prefix = zPrefix(z);
      this.flush();
    });
    return cache;
  }
}
