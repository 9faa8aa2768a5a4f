// What a lesson needs once it is open, loaded with the catalogue (not on the first open of the
// page): finding each stop's micro-step and checking its claim, the "your turn" questions, and the
// lessons no catalogue holds (a practice, a lecturer's lesson and its form).
import type { AppDeps } from '../page/opening';
import type { LessonHost } from '../page/lessons';
import type { Lesson } from './model';
import { practiceLesson } from './practice';

export { checkClaim, resolveStop } from './resolve';
export { isRight, parsePick, pickText, resolveAsk } from './question';
export { recordPractice } from './practice';
export { hallLayout } from './hall';
export { previewLinks } from './preview';

/**
 * A lesson no catalogue holds: a practice (`practice-KIND-SEED`, practice.ts) or a lecturer's,
 * carried by its link (`authored.…`, authored.ts); a refusal's message; or null.
 */
export async function otherLesson(id: string, deps: AppDeps): Promise<Lesson | { message: string } | null> {
  if (!id.startsWith('authored.')) return practiceLesson(id).catch(() => null);
  return (await import('./authoredForm')).openAuthored(id, deps);
}

/** The lesson form (authoredForm.ts, loaded on first use). */
export async function showAuthoring(h: LessonHost, play: (id: string) => Promise<void>): Promise<void> {
  (await import('./authoredForm')).showAuthoring(h, play);
}
