// The presenter view's link with the page: one BroadcastChannel between the windows of this
// origin. The page's lesson card posts where the lesson is (the stop, its words, the next stop);
// the presenter window asks for it when it opens and sends "next" / "prev" back.
//
// Every page has an id of its own, sent with each state. A presenter view follows one page: the
// one that opened it (its id in the presenter's address, `#page=`), else the first page it
// hears with a lesson open. Its commands name that page, and only that page obeys them, so
// other tabs of vmapviz (another lesson, a second copy) are left alone.

export const CHANNEL = 'vmapviz-presenter';

/** What the presenter shows of a stop. */
export interface StopNotes {
  title: string;
  text: string;
}

/** Page -> presenter: where the lesson is. */
export interface PresenterState {
  type: 'state';
  /** The page that posted it (its id, see `pageId`). */
  from: string;
  /** null: no lesson open. */
  lesson: string | null;
  /** 1-based. */
  stop: number;
  stops: number;
  current: StopNotes | null;
  /** The stop after this one in the lesson (null at its last stop). */
  next: StopNotes | null;
  /** A "your turn" question asked at this stop, with its answer (the presenter may read it). */
  question: { prompt: string; answer: string; revealed: boolean } | null;
  /** Whether the page shows the stop's own micro-step (false: the lecturer stepped away). */
  atStop: boolean;
  /** The page's link to the picture shown (the lesson, the stop, the micro-step). */
  link: string | null;
  /** The hashes of the picture shown and of the next one, opened embedded as previews (web/src/lessons/preview.ts). */
  previews: { now: string; next: string | null } | null;
  /** The lesson's minutes as planned (the presenter's timer runs against them). */
  minutes: number;
  /** Whether the page's screen is blanked. */
  blank: boolean;
  /** A new version waits: the page does not say so on the projected screen, the presenter does. */
  update: boolean;
}

export const COMMANDS = ['next', 'prev', 'hello', 'step-next', 'step-prev', 'blank'] as const;
export type PresenterCmd = (typeof COMMANDS)[number];

/** Presenter -> page. */
export interface PresenterCommand {
  type: 'cmd';
  /** Stops (`next`, `prev`), micro-steps (`step-next`, `step-prev`), the blank screen (`blank`). */
  cmd: PresenterCmd;
  /** The page that is to obey it (`hello` asks every page for its state: null). */
  to: string | null;
}

export type PresenterMessage = PresenterState | PresenterCommand;

/** Whether `m` is one of ours (a message from another version of the page is ignored). */
export function isMessage(m: unknown): m is PresenterMessage {
  if (typeof m !== 'object' || m === null) return false;
  const t = (m as { type?: unknown }).type;
  if (t === 'cmd') return (COMMANDS as readonly string[]).includes((m as { cmd?: unknown }).cmd as string);
  return t === 'state' && typeof (m as { stop?: unknown }).stop === 'number' && typeof (m as { from?: unknown }).from === 'string';
}

/** An id for this page, fresh at each load (which presenter view follows which tab). */
export function newPageId(): string {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/** The page a presenter view was opened for (`#page=ID` in its address), or null. */
export function pairedPage(hash: string): string | null {
  const id = new URLSearchParams(hash.replace(/^#/, '')).get('page');
  return id && /^[0-9a-f]{1,32}$/.test(id) ? id : null;
}

/** The channel, or null where the browser has none. */
export function openChannel(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
}
