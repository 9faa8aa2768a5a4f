// The presenter's two previews: the links (hashes) of the picture the hall sees and of the next
// one, each opened embedded in a small frame of the presenter view. The next picture is the next
// micro-step of the operation shown, and after its last micro-step the next stop (the first stop
// of the next lesson after a lesson's last).
import { lessonLink } from './link';
import type { Lesson } from './model';

export interface Previews {
  now: string;
  /** null after the course's last stop. */
  next: string | null;
}

export function previewLinks(all: readonly Lesson[], lesson: Lesson, index: number, pos: { op: number; frame: number }, count: (op: number) => number): Previews {
  const embed = (h: string) => `${h}&embed=1`;
  const now = embed(lessonLink(lesson.id, index + 1, false, pos));
  if (pos.frame + 1 < count(pos.op)) return { now, next: embed(lessonLink(lesson.id, index + 1, false, { op: pos.op, frame: pos.frame + 1 })) };
  if (index + 1 < lesson.stops.length) return { now, next: embed(lessonLink(lesson.id, index + 2, false)) };
  const at = all.findIndex((l) => l.id === lesson.id);
  const after = at >= 0 ? all[at + 1] : undefined;
  return { now, next: after ? embed(lessonLink(after.id, 1, false)) : null };
}
