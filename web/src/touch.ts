// Touch: a horizontal swipe steps the player (left: forward; a long swipe or two fingers: a
// whole operation), a tap on a picture's node or area shows what its hover tooltip says, and on a
// narrow screen one finger scrolls the page over a tree while two pinch or pan it.
export type SwipeStep = 'next' | 'prev' | 'next-op' | 'prev-op';

export { NARROW, zoomFilter } from './zoomFilter';

/** Least horizontal travel of a swipe, px. */
const SWIPE_MIN = 50;
/** A swipe takes at most this long, ms. */
const SWIPE_MS = 1000;
/** A swipe over this fraction of the screen's width steps a whole operation. */
const LONG_FRACTION = 0.5;
/** Two fingers whose distance changes by more than this factor pinch, they do not swipe. */
const PINCH = 1.25;
/** How long a tap's tip stays, ms. */
const TIP_MS = 6000;

/** Where a touch may not swipe: controls that take a drag or a scroll of their own, and dialogs. */
const NO_SWIPE = 'input, select, textarea, .ops, .code-lines, [role="dialog"], .overlay, [data-widget="workbench"], .space-zoom-root';

interface Point {
  x: number;
  y: number;
}

/** What a finished touch gesture means: a step, or nothing. Pure, for the tests. */
export function swipeStep(
  start: readonly Point[],
  end: readonly Point[],
  fingers: number,
  ms: number,
  width: number,
): SwipeStep | null {
  if (start.length === 0 || end.length === 0 || ms > SWIPE_MS) return null;
  if (fingers >= 2 && start.length >= 2 && end.length >= 2) {
    const d0 = Math.hypot(start[1].x - start[0].x, start[1].y - start[0].y);
    const d1 = Math.hypot(end[1].x - end[0].x, end[1].y - end[0].y);
    if (d0 > 0 && (d1 / d0 > PINCH || d0 / Math.max(d1, 1) > PINCH)) return null;
  }
  const dx = end[0].x - start[0].x;
  const dy = end[0].y - start[0].y;
  if (Math.abs(dx) < SWIPE_MIN || Math.abs(dx) < 2 * Math.abs(dy)) return null;
  const whole = fingers >= 2 || Math.abs(dx) >= LONG_FRACTION * width;
  if (dx < 0) return whole ? 'next-op' : 'next';
  return whole ? 'prev-op' : 'prev';
}


function points(list: TouchList): Point[] {
  return [...list].map((t) => ({ x: t.clientX, y: t.clientY }));
}

/** Swipes anywhere on the page call `step`; taps on a picture show its tooltip in a tip. */
export function installTouch(doc: Document, step: (s: SwipeStep) => void): void {
  let start: Point[] = [];
  let last: Point[] = [];
  let fingers = 0;
  let t0 = 0;
  let off = false;
  const opts: AddEventListenerOptions = { capture: true, passive: true };
  doc.addEventListener(
    'touchstart',
    (e) => {
      if (e.touches.length === 1 || start.length === 0) {
        t0 = e.timeStamp;
        fingers = 0;
        const t = e.target instanceof Element ? e.target : null;
        off = !!t?.closest(NO_SWIPE);
      }
      start = points(e.touches);
      last = start;
      fingers = Math.max(fingers, e.touches.length);
    },
    opts,
  );
  doc.addEventListener(
    'touchmove',
    (e) => {
      // Only the fingers that started the gesture, in the same order.
      if (e.touches.length >= start.length) last = points(e.touches).slice(0, start.length);
    },
    opts,
  );
  const end = (e: TouchEvent, cancel: boolean) => {
    if (e.touches.length > 0) return;
    const s = swipeStep(start, last, fingers, e.timeStamp - t0, doc.documentElement.clientWidth);
    start = [];
    last = [];
    if (cancel || off || !s) return;
    step(s);
  };
  doc.addEventListener('touchend', (e) => end(e, false), opts);
  doc.addEventListener('touchcancel', (e) => end(e, true), opts);
  installTips(doc);
}

/** The tooltip text of the picture element under a tap (its own or an ancestor's `<title>`). */
function titleOf(t: Element | null): string | null {
  for (let e = t; e && !(e instanceof HTMLElement); e = e.parentElement) {
    const title = [...e.children].find((c) => c.tagName.toLowerCase() === 'title');
    const text = title?.textContent?.trim();
    if (text) return text;
  }
  return null;
}

/** A tap (not a mouse click) on an SVG node or area: its hover text, in a tip under the finger. */
function installTips(doc: Document): void {
  const tip = doc.createElement('div');
  tip.className = 'touch-tip';
  tip.dataset.testid = 'touch-tip';
  tip.setAttribute('role', 'status');
  tip.hidden = true;
  doc.body.append(tip);
  let timer: number | null = null;
  let touch = false;
  const hide = () => {
    tip.hidden = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  doc.addEventListener('pointerdown', (e) => (touch = e.pointerType === 'touch'), { capture: true, passive: true });
  doc.addEventListener(
    'click',
    (e) => {
      if (!touch) return;
      const text = e.target instanceof Element && e.target.closest('svg') ? titleOf(e.target) : null;
      if (!text) return hide();
      tip.textContent = text;
      tip.hidden = false;
      const w = doc.documentElement.clientWidth;
      const h = doc.documentElement.clientHeight;
      tip.style.left = '8px';
      tip.style.maxWidth = `${w - 16}px`;
      // Above the finger when there is room, else below it.
      const below = e.clientY < h / 3;
      tip.style.top = below ? `${Math.round(e.clientY + 28)}px` : '';
      tip.style.bottom = below ? '' : `${Math.round(h - e.clientY + 28)}px`;
      if (timer !== null) clearTimeout(timer);
      timer = window.setTimeout(hide, TIP_MS);
    },
    true,
  );
}
