// The hall layout: in lecture mode at a lesson stop (wider than a phone) the page gives its room
// to what the stop's `look` names. `body[data-hall]` holds the look (hall.css lays out by it);
// the code goes under the tree when the stop is not about the tree, so the side column keeps
// the card and the whole narration; a tree stop keeps the tree's height. When the side column
// still cannot hold the card, the whole narration and the current code line, it widens, then
// its type steps down to the hall's 16 px (`data-hall-fit`, the first level at which it fits).
// Its styles (hall.css) load with the page's: the course's start link is on the first open.
import type { Stop } from './model';

/** Levels of `data-hall-fit` (hall.css): as laid out, then wider, widest, smaller type too. */
const LEVELS = ['0', '1', '2', '3'];
/** A maple node is wider than the tree panel already: the side column keeps its width. */
const LEVELS_WIDE_TREE = ['0', 'type'];

/** Structures a stop can be about, the first named being its point. */
const STRUCTURES = ['bar', 'tree', 'list', 'nodes'];

/**
 * What an embedded stop shows: its whole look in a frame of 900×500 or more; in a smaller one
 * (a slide's 640×400) its first structure only (with its narration when it names no other).
 */
export function embedded(look: readonly string[], w = innerWidth, h = innerHeight): string[] {
  if (w >= 900 && h >= 500) return [...look];
  const first = look.find((k) => STRUCTURES.includes(k));
  if (!first) return [...look];
  const others = look.filter((k) => STRUCTURES.includes(k) && k !== first);
  return look.filter((k) => k === first || (k === 'narration' && others.length === 0));
}

/**
 * Lay the page out for this stop (null: no lesson): lecture mode's hall layout, and an embed's
 * (`&embed=1`: only what the stop's look names, filling the frame, whatever its size).
 */
export function hallLayout(root: HTMLElement, at: Stop | null, mode: { lecture: boolean; embed: boolean }): void {
  const body = document.body;
  const embedLook = mode.embed && at ? embedded(at.look).join(' ') : null;
  if (embedLook === null) delete body.dataset.embedLook;
  else if (body.dataset.embedLook !== embedLook) body.dataset.embedLook = embedLook;
  // A frame too small for the narration beside its structure shows the structure alone.
  if (embedLook !== null && embedLook.includes('narration')) {
    const text = root.querySelector('.narration-text')?.getBoundingClientRect();
    const panel = root.querySelector('.step-panel')?.getBoundingClientRect();
    if (text && panel && text.height > 0 && text.bottom > Math.min(panel.bottom, innerHeight) + 0.5) {
      body.dataset.embedLook = embedLook.split(' ').filter((k) => k !== 'narration').join(' ');
    }
  }
  const stop = mode.lecture && !mode.embed ? at : null;
  const on = stop !== null && innerWidth > 800;
  const look = on ? stop.look.join(' ') : null;
  if (look === null) {
    delete body.dataset.hall;
    delete body.dataset.hallFit;
  } else if (body.dataset.hall !== look) body.dataset.hall = look;
  root.querySelector('[data-widget="era"]')?.classList.toggle('lesson-look', on && (stop.look.includes('list') || stop.look.includes('nodes')));
  const code = root.querySelector<HTMLElement>('[data-widget="code"]');
  const under = on && !stop.look.includes('tree');
  const home = root.querySelector(under ? '.tree-panel' : '.step-panel');
  if (code && home && code.parentElement !== home) home.append(code);
  if (!on) return;
  const wide = stop.look.includes('tree') && root.dataset.view === 'maple-tree';
  for (const level of wide ? LEVELS_WIDE_TREE : LEVELS) {
    body.dataset.hallFit = level;
    if (sideFits(root)) return;
  }
}

/** Whether the side column shows the card, the whole narration and the current code line. */
function sideFits(root: HTMLElement): boolean {
  const side = root.querySelector('.side')?.getBoundingClientRect();
  if (!side) return true;
  const bottom = Math.min(side.bottom, innerHeight) + 0.5;
  const card = root.querySelector('[data-widget="lesson"]')?.getBoundingClientRect();
  if (card && card.bottom > bottom) return false;
  const text = root.querySelector('.side .narration-text')?.getBoundingClientRect();
  const panel = root.querySelector('.side .step-panel')?.getBoundingClientRect();
  if (text && panel && text.height > 0 && text.bottom > Math.min(panel.bottom, bottom) + 0.5) return false;
  const list = root.querySelector<HTMLElement>('.side .code-lines');
  const line = list?.querySelector('.code-line.current')?.getBoundingClientRect();
  if (list && line && line.height > 0) {
    const l = list.getBoundingClientRect();
    if (l.height < line.height || l.bottom > bottom) return false;
  }
  return true;
}
