// A wasm trap never leaves a blank page. A trap (`unreachable` after a panic, memory exhausted,
// an access out of bounds) leaves the instance unusable: wasm-bindgen's borrow flags stay set and
// every later call fails. The only sound way out is a new instance, and the page makes one the
// plain way: it reloads, on the link of the last picture it showed in full (the trace shown
// before), and says what happened. A second trap within half a minute falls back to the default
// scenario; a third stops trying and asks for a reload, so a trace that traps at once cannot make
// the page reload for ever.

const KEY = 'vmapviz:trap';
const WINDOW_MS = 30_000;
/** A trap's own words, quoted to this many characters. */
const QUOTE = 80;

interface Record {
  count: number;
  at: number;
  what: string;
  kept: boolean;
  /** The note was shown (a later reload does not show it again). */
  shown?: boolean;
}

/** The link of the last state shown in full (App.flushLink notes it), or null before any. */
let lastGood: string | null = null;
let recovering = false;

export function noteShown(hash: string): void {
  lastGood = hash;
}

/** Whether `e` says the wasm instance is broken: a trap, or a call into an instance a trap left mid-borrow. */
export function isTrap(e: unknown): boolean {
  if (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) return true;
  const m = e instanceof Error ? e.message : '';
  return /while it was borrowed|recursive use of an object detected/.test(m);
}

function describe(e: unknown): string {
  const m = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim() || 'no message';
  return m.length > QUOTE ? `${m.slice(0, QUOTE)}… (${m.length} characters)` : m;
}

function read(): Record | null {
  try {
    const r = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Record | null;
    return r && typeof r.count === 'number' && typeof r.at === 'number' ? r : null;
  } catch {
    return null;
  }
}

/** If `e` is a trap, start the recovery (once) and say so: true. Anything else: false. */
export function recoverFromTrap(e: unknown): boolean {
  if (!isTrap(e)) return false;
  if (recovering) return true;
  recovering = true;
  const prev = read();
  const count = prev && Date.now() - prev.at < WINDOW_MS ? prev.count + 1 : 1;
  const what = describe(e);
  if (count > 2) {
    showNote(`The core stopped again (${what}). Reload the page to start afresh.`);
    return true;
  }
  // First trap: back to the trace shown before. Second in a row: the default scenario.
  const back = count === 1 ? lastGood : null;
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ count, at: Date.now(), what, kept: back !== null } satisfies Record));
  } catch {
    // No storage: the reload still makes a new instance, only the note is lost.
  }
  history.replaceState(null, '', back ?? `${location.pathname}${location.search}`);
  location.reload();
  return true;
}

/** On start: the note a recovery left (shown once), the page's own trap listeners. */
export function installTrapRecovery(): void {
  const r = read();
  if (r && !r.shown && Date.now() - r.at < WINDOW_MS) {
    try {
      sessionStorage.setItem(KEY, JSON.stringify({ ...r, shown: true }));
    } catch {
      // Shown again on a reload: harmless.
    }
    showNote(
      `The core stopped (a WebAssembly trap: ${r.what}) and was restarted. ` +
        (r.kept ? 'The trace shown before is back.' : 'Showing the default scenario.'),
    );
  }
  window.addEventListener('error', (ev) => {
    if (recoverFromTrap(ev.error)) ev.preventDefault();
  });
  window.addEventListener('unhandledrejection', (ev) => {
    if (recoverFromTrap(ev.reason)) ev.preventDefault();
  });
}

function showNote(text: string): void {
  let note = document.querySelector<HTMLElement>('[data-testid="trap-note"]');
  if (!note) {
    note = document.createElement('div');
    note.className = 'banner trap-note';
    note.dataset.testid = 'trap-note';
    note.setAttribute('role', 'alert');
    const app = document.getElementById('app');
    const at = app?.querySelector('[data-widget="load-error"]');
    if (at) at.before(note);
    else (app ?? document.body).prepend(note);
  }
  note.textContent = text;
}
