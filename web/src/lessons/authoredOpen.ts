// Opening a lecturer's lesson in the page: the link's packed JSON read back, each trace replayed
// by the core (a capture's after its core build loads), every stop checked (authoredCheck.ts).
// Loaded only when an `authored.` link or the authoring form is opened.
import { errorMessage } from '../bridge';
import type { AnyEvent, EventSource } from '../player/events';
import type { AppDeps } from '../page/opening';
import { AUTHORED_PREFIX, type AuthoredError, type AuthoredLesson, unpackLesson } from './authored';
import { checkAuthored } from './authoredCheck';
import type { Lesson } from './model';

/** A lesson's traces replayed by the core, and the lesson checked on them (sessions freed after). */
export async function checkWithCore(doc: AuthoredLesson, packed: string, deps: AppDeps): Promise<Lesson | AuthoredError> {
  const made: { dispose(): void }[] = [];
  try {
    const cores = new Map<string, string>();
    for (const [name, text] of Object.entries(doc.traces)) {
      try {
        await deps.coreFor?.(text);
      } catch (e) {
        cores.set(name, `its core did not load: ${errorMessage(e)}`);
      }
    }
    return checkAuthored(doc, packed, (name, text): EventSource | { error: string } => {
      const bad = cores.get(name);
      if (bad) return { error: bad };
      try {
        const s = deps.load(text);
        made.push(s);
        return { length: s.length, events: (op) => (s.frames(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
      } catch (e) {
        return { error: errorMessage(e) };
      }
    });
  } finally {
    for (const s of made) s.dispose();
  }
}

/** The lesson an `authored.` id carries, checked by the core; or why it is refused. */
export async function openAuthored(id: string, deps: AppDeps): Promise<Lesson | AuthoredError> {
  const packed = id.slice(AUTHORED_PREFIX.length);
  const doc = await unpackLesson(packed);
  if ('error' in doc) return doc;
  return checkWithCore(doc, packed, deps);
}
