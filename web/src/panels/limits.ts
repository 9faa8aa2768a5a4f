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
