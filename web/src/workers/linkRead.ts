// What a link's trace is, decided before anything replays it: its operations counted (and, for
// a `#z=` link, its text decompressed) where this runs, the link worker (link.worker.ts) for a
// compressed link, so that the main thread never holds megabytes of trace. A trace the player
// holds comes back as text; a longer one as UTF-8 bytes (moved, not copied) for the replay
// worker of the large-trace navigator; a maple-tree trace longer than the player holds is
// refused at once (the navigator replays vmalloc traces only).
import { decompressFromEncodedURIComponent } from 'lz-string';
import { measure } from './count';

/** The core's parser limit (core/src/trace.rs MAX_TRACE_BYTES): a longer trace is refused. */
export const LINK_LIMIT = 64 << 20;

export type LinkRead =
  /** At most `largeOps` operations: the player opens `text` as it opens any link. */
  | { kind: 'small'; ops: number; text: string }
  /** More: the navigator opens it (`bytes` for a decompressed link, else the text as given). */
  | { kind: 'large'; ops: number; bytes: Uint8Array | null }
  /** Not opened, and why (one bounded sentence). */
  | { kind: 'refused'; message: string };

const n = (x: number) => x.toLocaleString('en-US');

/** Where a link's trace text opens; `bytes`: hand a large one over as UTF-8 bytes. */
export function readText(text: string, largeOps: number, bytes: boolean): LinkRead {
  if (text.length > LINK_LIMIT) {
    return { kind: 'refused', message: `The link's trace is ${n(Math.ceil(text.length / (1 << 20)))} MiB; the limit is 64 MiB.` };
  }
  const m = measure(text);
  if (m.ops <= largeOps) return { kind: 'small', ops: m.ops, text };
  if (m.maple) {
    return {
      kind: 'refused',
      message:
        `The link's trace is a maple-tree trace of ${n(m.ops)} operations: the player holds at most ${n(largeOps)}, ` +
        'and the large-trace navigator replays vmalloc traces only, so it is not opened.',
    };
  }
  const b = bytes ? new TextEncoder().encode(text) : null;
  if (b && b.length > LINK_LIMIT) return { kind: 'refused', message: `The link's trace is ${n(Math.ceil(b.length / (1 << 20)))} MiB; the limit is 64 MiB.` };
  return { kind: 'large', ops: m.ops, bytes: b };
}

/** The same for a `#z=` link's lz-string text. */
export function readZ(z: string, largeOps: number): LinkRead {
  let text: string | null;
  try {
    text = decompressFromEncodedURIComponent(z);
  } catch {
    text = null;
  }
  // lz-string answers garbage with null or an empty string.
  if (text === null || (text === '' && z !== '' && z !== 'Q')) {
    return { kind: 'refused', message: 'The compressed link (#z=) is damaged: it does not decompress.' };
  }
  return readText(text, largeOps, true);
}
