// Compressed permalinks: `#z=<lz-string, URI-safe>&step=N|end`. "Copy permalink" gives this
// form, and so does the page's own address for a long trace (a short one keeps the readable
// `#trace=` form of web/src/permalink.ts); `expandHash` turns it back into the plain form the
// app opens.
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';
import { formatHash, type StepRef } from '../permalink';

/** The compressed hash for a trace and a step. */
export function compressHash(trace: string, step: StepRef): string {
  return `${zPrefix(compressToEncodedURIComponent(trace))}&step=${step}`;
}

/** The start of a `#z=` hash, from the trace's lz-string (URI-safe) form. */
export function zPrefix(compressed: string): string {
  return `#z=${compressed}`;
}

export interface Expanded {
  /** The plain `#trace=...&step=...` hash, or null when the hash is not a `#z=` link. */
  hash: string | null;
  /** Why a `#z=` link could not be read (the app then opens its default scenario). */
  error: string | null;
}

/** Turn `#z=...&step=...` into `#trace=...&step=...`; anything else is left alone (hash null). */
export function expandHash(hash: string): Expanded {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const params = new Map<string, string>();
  for (const part of body.split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const z = params.get('z');
  if (z === undefined) return { hash: null, error: null };
  let trace: string | null = null;
  try {
    trace = decompressFromEncodedURIComponent(z);
  } catch {
    trace = null;
  }
  // lz-string answers garbage with null or an empty string.
  if (trace === null || (trace === '' && z !== '' && z !== 'Q')) {
    return { hash: null, error: 'the compressed link (#z=) is damaged: it does not decompress' };
  }
  // The step as written (the plain link's parser reports a bad one, as for #trace=).
  return { hash: `${formatHash({ trace, step: 'end' }).replace(/&step=end$/, '')}&step=${params.get('step') ?? 'end'}`, error: null };
}

/** A `#z=` text longer than this is decompressed in the link worker, not on the main thread. */
export const ZLINK_WORKER = 16 * 1024;

/** A long compressed link: its lz-string text and its `step=` as written. */
export interface BigZLink {
  z: string;
  step: string;
}

/** The `#z=` text and step of `hash` when the text is long enough for the worker; else null. */
export function bigZLink(hash: string): BigZLink | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  let z: string | undefined;
  let step = 'end';
  for (const part of body.split('&')) {
    if (part.startsWith('z=')) z = part.slice(2);
    else if (part.startsWith('step=')) step = part.slice(5);
  }
  return z !== undefined && z.length > ZLINK_WORKER ? { z, step } : null;
}

/** Where a link opens beyond its step: a micro-step of that operation, lecture mode. */
export interface LinkExtras {
  /** The micro-step inside operation `step` (-1 or absent: between operations). */
  frame?: number;
  lecture?: boolean;
}

/** The full URL of the page with a compressed link to `trace` at `step`. */
export function compressedUrl(href: string, trace: string, step: StepRef, extras: LinkExtras = {}): string {
  return zUrl(href, compressToEncodedURIComponent(trace), step, extras);
}

/** The same URL from the trace's lz-string form (compressed elsewhere: a worker, a cache). */
export function zUrl(href: string, compressed: string, step: StepRef, extras: LinkExtras = {}): string {
  const frame = extras.frame !== undefined && extras.frame >= 0 ? `&frame=${extras.frame}` : '';
  return `${href.split('#')[0]}${zPrefix(compressed)}&step=${step}${frame}${extras.lecture ? '&lecture=1' : ''}`;
}
