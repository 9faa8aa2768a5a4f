// Limits of the workbench, documented in the panels' own text.

/** Pasted text above this is refused (use the file picker or drop the file): 4 MiB. */
export const PASTE_LIMIT = 4 << 20;
/** A file above this is refused before it is read: the core's parser limit, 64 MiB. */
export const FILE_LIMIT = 64 << 20;
/** Traces of more operations are replayed and kept in a Web Worker (the large-trace navigator). */
export const LARGE_OPS = 20_000;

/** The 1-based line on which `text` crosses `limit` characters. */
export function lineAt(text: string, limit: number): number {
  let line = 1;
  const end = Math.min(limit, text.length);
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

export function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(bytes >= 10 << 20 ? 0 : 1)} MiB`;
}

/**
 * Why a file holds nothing to import (`is empty`, `holds only comments`), or null when it has a
 * line that is neither blank nor a `#` comment. Such a file would replace the trace shown with
 * nothing, so it is refused like an empty paste. Reads only as far as the first such line.
 */
export function nothingToImport(bytes: Uint8Array): string | null {
  let start = true; // at the start of a line, before anything but blanks
  let comment = false;
  let any = false;
  for (const b of bytes) {
    if (b === 10) {
      start = true;
      comment = false;
      continue;
    }
    if (comment) continue;
    // Blanks, and a UTF-8 byte order mark at the very start.
    if (b === 32 || b === 9 || b === 13 || b === 11 || b === 12 || (!any && (b === 0xef || b === 0xbb || b === 0xbf))) continue;
    if (start && b === 35) {
      comment = true;
      any = true;
      continue;
    }
    return null;
  }
  return any ? 'holds only comments' : 'is empty';
}
