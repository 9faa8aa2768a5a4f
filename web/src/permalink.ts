// Permalinks: `#trace=<URI-encoded trace text>&step=N|end`.

export type StepRef = number | 'end';

export interface Permalink {
  trace: string;
  step: StepRef;
}

export interface ParsedHash {
  /** The link, or null when the hash carries no trace. */
  link: Permalink | null;
  /** A problem with the hash itself (not with the trace's content). */
  error: string | null;
}

/** At most `max` characters of a piece of a link quoted in a message (with its full length when cut). */
export function quoteLink(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** Read a location hash (`#trace=...&step=...`); an absent `step` means the end. */
export function parseHash(hash: string): ParsedHash {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!body) return { link: null, error: null };
  const params = new Map<string, string>();
  for (const part of body.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const raw = eq < 0 ? '' : part.slice(eq + 1);
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      return { link: null, error: `the link's ${quoteLink(key)} is not valid URI encoding` };
    }
    params.set(key, value);
  }
  const trace = params.get('trace');
  if (trace === undefined) return { link: null, error: null };
  const stepText = (params.get('step') ?? 'end').trim();
  let step: StepRef = 'end';
  let error: string | null = null;
  if (/^\d+$/.test(stepText)) step = Number(stepText);
  else if (stepText !== 'end') error = `step=${quoteLink(stepText)}: expected a number or "end"; showing the end`;
  return { link: { trace, step }, error };
}

/** The hash for a trace and a step. */
export function formatHash(link: Permalink): string {
  return `#trace=${encodeURIComponent(link.trace)}&step=${link.step}`;
}

/** The step a reference means in a trace of `length` operations (clamped). */
export function resolveStep(step: StepRef, length: number): number {
  return step === 'end' ? length : Math.max(0, Math.min(length, step));
}
