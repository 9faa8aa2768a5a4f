// How many operations a trace's text holds, read the way the core's parser reads it (one per
// line that is neither blank nor a `#` comment; core/src/trace.rs `parse_line`), without
// parsing: a link's trace is measured before anything decides where it opens.

/** Blank as Rust's `str::trim` sees it (Unicode White_Space), for one UTF-16 unit. */
function blank(c: number, ch: string): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c > 127 && c !== 0xfeff && /\s/.test(ch));
}

/** Index of the first character of the line at `i` that is not blank (`end` when none). */
function skip(text: string, i: number, end: number): number {
  while (i < end && blank(text.charCodeAt(i), text[i])) i++;
  return i;
}

export interface Measure {
  /** Lines that are operations. */
  ops: number;
  /** The first operation is `profile maple-tree` (the maple tree's own player). */
  maple: boolean;
}

/** Count the operations of `text` (linear, no copy of the text). */
export function measure(text: string): Measure {
  let ops = 0;
  let maple = false;
  const len = text.length;
  // A byte-order mark before the first line is not part of it.
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < len) {
    let end = text.indexOf('\n', i);
    if (end < 0) end = len;
    const k = skip(text, i, end);
    if (k < end && text.charCodeAt(k) !== 35) {
      if (ops === 0) maple = end - k < 64 && /^profile\s+maple-tree$/.test(text.slice(k, end).trim());
      ops++;
    }
    i = end + 1;
  }
  return { ops, maple };
}
