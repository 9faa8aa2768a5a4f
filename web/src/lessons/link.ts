// A lesson's link: `#lesson=ID&stop=N` (N from 1, as the card counts), `&lecture=1` kept.

/** The lesson and stop a location hash names, or null when it names none. */
export function parseLessonLink(hash: string): { id: string; stop: number } | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  let id: string | null = null;
  let stop = 1;
  for (const part of body.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq);
    // Only these two are read: a link's megabytes of trace are not decoded here too.
    if (key !== 'lesson' && key !== 'stop') continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1));
    } catch {
      continue;
    }
    if (key === 'lesson') id = value.trim();
    else if (key === 'stop' && /^\d+$/.test(value.trim())) stop = Math.max(1, Number(value.trim()));
  }
  return id ? { id, stop } : null;
}

/** The hash for a lesson's stop (1-based). */
export function lessonLink(id: string, stop: number, lecture: boolean): string {
  return `#lesson=${encodeURIComponent(id)}&stop=${stop}${lecture ? '&lecture=1' : ''}`;
}
