// The page's keys: the player's (step, play, speed, jumps), a lesson's (stops, reveal, answers)
// and a presenter remote's in lecture mode. Each key is handed to what it drives.
import type { EventKind } from '../player/events';
import { STORE_TYPES } from '../lessons/storeTypes';
import { Transport, type TransportAction } from '../views/transport';
import { blanked, setBlank } from './lecture';

/** What the keys drive. */
export interface KeyHost {
  root: HTMLElement;
  help: { readonly open: boolean; hide(): void; toggle(): void };
  popover: { readonly open: boolean; hide(): void };
  transport: Transport;
  pickerOpen(): boolean;
  lecture(): boolean;
  action(a: TransportAction): void;
  togglePlay(): void;
  changeSpeed(dir: 1 | -1): void;
  jump(kind: EventKind, dir: 1 | -1): boolean;
  showLessons(): Promise<void>;
  toggleLegend(): void;
  /** The lesson shown, or null outside one. */
  lesson(): LessonKeys | null;
}

/** A lesson's side of the keys. */
export interface LessonKeys {
  /** Show the open question's answer; false when there is none to show. */
  reveal(): boolean;
  /** Answer a store-type question with this store type; false when none is asked. */
  answerStore(store: (typeof STORE_TYPES)[number]): boolean;
  /** The remote's "next": the question's answer first, then back to the stop, then the next stop. */
  forward(): void;
  stepStop(dir: 1 | -1): void;
}

/** Listen on the page's document. */
export function installKeys(host: KeyHost): void {
  host.root.ownerDocument.addEventListener('keydown', (e) => onKey(host, e));
}

function onKey(h: KeyHost, e: KeyboardEvent): void {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
  if (isTyping(e.target)) return;
  const t = e.target;
  const doc = h.root.ownerDocument;
  const inApp = t === null || t === doc || t === doc.body || t === doc.documentElement || (t instanceof Node && h.root.contains(t));
  if (!inApp) return;
  if (e.key === 'Escape') {
    if (h.help.open) h.help.hide();
    if (h.popover.open) h.popover.hide();
    return;
  }
  if (h.help.open && e.key !== '?') return;
  if (h.pickerOpen()) return;
  // Space on a focused button or link activates it, as everywhere else.
  if ((e.key === ' ' || e.key === 'Spacebar') && t instanceof HTMLElement && t.closest('button, a[href], summary')) return;
  // Lecture mode: a presenter remote's buttons (PageDown/PageUp, or ↓/↑ on some) step, and its
  // "blank" button (b or .) blacks the screen out until pressed again.
  const lesson = h.lesson();
  if (lesson && lessonKey(lesson, e)) {
    e.preventDefault();
    return;
  }
  if (h.lecture() && remoteKey(h, e)) {
    e.preventDefault();
    return;
  }
  if (blanked() && e.key === 'Escape') return;
  let used = true;
  switch (e.key) {
    case ' ':
    case 'Spacebar':
      h.togglePlay();
      break;
    case 'ArrowRight':
      h.action(e.shiftKey ? 'next-op' : 'next');
      break;
    case 'ArrowLeft':
      h.action(e.shiftKey ? 'prev-op' : 'prev');
      break;
    case 'Home':
      h.action('first');
      break;
    case 'End':
      h.action('last');
      break;
    case '-':
    case '_':
      h.changeSpeed(-1);
      break;
    case '+':
    case '=':
      h.changeSpeed(1);
      break;
    case ']':
      h.jump(h.transport.kind, 1);
      break;
    case '[':
      h.jump(h.transport.kind, -1);
      break;
    case 'k':
    case 'K':
      h.transport.jumpStatus(`jumps go to: ${Transport.label(h.transport.cycleKind(e.key === 'K' ? -1 : 1))}`);
      break;
    case 'l':
    case 'L':
      void h.showLessons();
      break;
    case 'g':
    case 'G':
      // Lecture mode hides the legends for room; the hall can ask what a colour means.
      if (h.lecture()) h.toggleLegend();
      else used = false;
      break;
    case '?':
      h.help.toggle();
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
function lessonKey(l: LessonKeys, e: KeyboardEvent): boolean {
  if (blanked()) return false;
  if (e.shiftKey && (e.key === 'PageDown' || e.key === 'PageUp')) return false;
  if (e.key === 'r' || e.key === 'R') return l.reveal();
  // Keys 1–9: the store types' buttons, in their order.
  if (/^[1-9]$/.test(e.key) && l.answerStore(STORE_TYPES[Number(e.key) - 1])) return true;
  if (e.key === 'PageDown' || e.key === 'n' || e.key === 'N') {
    l.forward();
    return true;
  }
  if (e.key === 'PageUp' || e.key === 'p' || e.key === 'P') {
    l.stepStop(-1);
    return true;
  }
  return false;
}

/** A presenter remote's key in lecture mode; true when it was used. */
function remoteKey(h: KeyHost, e: KeyboardEvent): boolean {
  if (e.key === 'b' || e.key === 'B' || e.key === '.') {
    setBlank(!blanked());
    return true;
  }
  if (blanked()) {
    // Any step key brings the picture back first, as slide software does.
    if (['PageDown', 'PageUp', 'ArrowDown', 'ArrowUp', 'ArrowRight', 'ArrowLeft', ' ', 'Escape'].includes(e.key)) {
      setBlank(false);
      return true;
    }
    return false;
  }
  switch (e.key) {
    case 'PageDown':
    case 'ArrowDown':
      h.action(e.shiftKey ? 'next-op' : 'next');
      return true;
    case 'PageUp':
    case 'ArrowUp':
      h.action(e.shiftKey ? 'prev-op' : 'prev');
      return true;
    default:
      return false;
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
