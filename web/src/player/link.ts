// The player's additions to a permalink: `&frame=F` (a micro-step of operation `step`) and
// `&lecture` (lecture mode). The plain `#trace=…&step=N|end` form is permalink.ts's.
import { formatHash, type Permalink } from '../permalink';

export interface PlayerLink {
  frame: number | null;
  lecture: boolean;
}

function params(hash: string): Map<string, string> {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const out = new Map<string, string>();
  for (const part of body.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    out.set(eq < 0 ? part : part.slice(0, eq), eq < 0 ? '' : part.slice(eq + 1));
  }
  return out;
}

/** `frame` and `lecture` of a location hash (and `?lecture` of the query string). */
export function parsePlayerLink(hash: string, search = ''): PlayerLink {
  const p = params(hash);
  const f = p.get('frame');
  const frame = f !== undefined && /^\d+$/.test(f) ? Number(f) : null;
  const q = new URLSearchParams(search);
  const flag = (v: string | null | undefined) => v !== null && v !== undefined && v !== '0' && v !== 'false';
  return { frame, lecture: flag(p.get('lecture')) || flag(q.get('lecture')) };
}

/** The hash for a trace, a step, a frame and lecture mode. */
export function formatPlayerHash(link: Permalink, frame: number | null, lecture: boolean): string {
  return `${formatHash(link)}${frame !== null ? `&frame=${frame}` : ''}${lecture ? '&lecture=1' : ''}`;
}
