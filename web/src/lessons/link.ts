// A lesson's link: `#lesson=ID&stop=N` (N from 1, as the card counts), `&lecture=1` kept, and
// where the lecturer stepped to around the stop: `&step=OP&frame=F` (the operation, from 0, and
// its micro-step, -1 between operations, as a trace's link counts them) and `&answer=1` once
// the stop's question is revealed. Without them the link opens the stop as it is first shown.

export interface LessonLink {
  id: string;
  stop: number;
  /** The position shown, when it is not the stop's own. */
  at: { op: number; frame: number } | null;
  /** The stop's question was revealed. */
  answer: boolean;
}

/** The lesson, stop and position a location hash names, or null when it names no lesson. */
export function parseLessonLink(hash: string): LessonLink | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  let id: string | null = null;
  let stop = 1;
  let op: number | null = null;
  let frame = -1;
  let answer = false;
  for (const part of body.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq);
    // Only these are read: a link's megabytes of trace are not decoded here too.
    if (key !== 'lesson' && key !== 'stop' && key !== 'step' && key !== 'frame' && key !== 'answer') continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1)).trim();
    } catch {
      continue;
    }
    const n = /^\d{1,9}$/.test(value) ? Number(value) : null;
    if (key === 'lesson') id = value;
    else if (key === 'stop' && n !== null) stop = Math.max(1, n);
    else if (key === 'step' && n !== null) op = n;
    else if (key === 'frame' && (n !== null || value === '-1')) frame = n ?? -1;
    else if (key === 'answer') answer = value === '1';
  }
  return id ? { id, stop, at: op === null ? null : { op, frame }, answer } : null;
}

/** The hash for a lesson's stop (1-based), and where around it the page is. */
export function lessonLink(id: string, stop: number, lecture: boolean, at: { op: number; frame: number } | null = null, answer = false): string {
  const pos = at ? `&step=${at.op}&frame=${at.frame}` : '';
  return `#lesson=${encodeURIComponent(id)}&stop=${stop}${pos}${answer ? '&answer=1' : ''}${lecture ? '&lecture=1' : ''}`;
}
