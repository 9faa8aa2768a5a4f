// The presenter view's link with the page: one BroadcastChannel between the windows of this
// origin. The page's lesson card posts where the lesson is (the stop, its words, the next stop);
// the presenter window asks for it when it opens and sends "next" / "prev" back.

export const CHANNEL = 'vmapviz-presenter';

/** What the presenter shows of a stop. */
export interface StopNotes {
  title: string;
  text: string;
}

/** Page -> presenter: where the lesson is. */
export interface PresenterState {
  type: 'state';
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
}

/** Presenter -> page. */
export interface PresenterCommand {
  type: 'cmd';
  cmd: 'next' | 'prev' | 'hello';
}

export type PresenterMessage = PresenterState | PresenterCommand;

/** Whether `m` is one of ours (a message from another version of the page is ignored). */
export function isMessage(m: unknown): m is PresenterMessage {
  if (typeof m !== 'object' || m === null) return false;
  const t = (m as { type?: unknown }).type;
  if (t === 'cmd') return ['next', 'prev', 'hello'].includes((m as { cmd?: unknown }).cmd as string);
  return t === 'state' && typeof (m as { stop?: unknown }).stop === 'number';
}

/** The channel, or null where the browser has none. */
export function openChannel(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
}
