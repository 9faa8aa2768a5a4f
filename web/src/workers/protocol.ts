// Messages between the page and the replay worker (web/src/workers/replay.worker.ts).

/** Where the trace of an `open` comes from. */
export type Source =
  | { kind: 'text'; text: string }
  /** A link's trace, decompressed in the link worker (web/src/workers/linkRead.ts): UTF-8. */
  | { kind: 'link'; bytes: Uint8Array }
  | { kind: 'import'; format: string; profile: string; text?: string; bytes?: Uint8Array }
  | { kind: 'workload'; name: string; params: string }
  /** A capture bundle's files (scripts/capture.sh), each plain or gzipped, by file name. */
  | { kind: 'capture'; profile: string; parts: { name: string; bytes: Uint8Array }[] };

/** A capture bundle's parts in the order `import_capture` takes them; the first, second and fourth are required. */
export const BUNDLE_PARTS = ['vmallocinfo.before', 'trace.txt', 'vmallocinfo.after', 'cpus.txt', 'uname.txt'];

/** Whether a file's name is one of a capture bundle's parts (plain or `.gz`). */
export function isBundlePart(name: string): boolean {
  return BUNDLE_PARTS.includes(name.replace(/\.gz$/, ''));
}

export type Request =
  | { type: 'warm' }
  | { type: 'open'; source: Source; largeOps: number; chunk: number }
  | { type: 'state'; k: number }
  | { type: 'frames'; k: number }
  | { type: 'summaries'; from: number; to: number }
  | { type: 'trace_text' }
  | { type: 'trace_json' }
  | { type: 'counters'; from: number; to: number }
  | { type: 'fragmentation'; k: number }
  | { type: 'frag_series'; from: number; to: number; every: number }
  | { type: 'sweep'; profile: string; shape: string; lives: string; rounds: number; bump?: boolean }
  | { type: 'contention'; profile: string; cpus: string; pairs: number; bump?: boolean };

/** What an `open` produced. */
export interface Opened {
  /**
   * `small`: the trace for the app to open (its text, or a capture's operations as bytes);
   * `large`: the session stays in the worker.
   */
  kind: 'small' | 'large';
  /** Operations in the trace. */
  total: number;
  /** The trace text (small traces but captures). */
  text: string | null;
  /**
   * A small capture's operations as bytes (`Loader.ops()`, core/src/trace_bytes.rs), moved to
   * the page: it steps them into its session (`Loader.from_bytes`), the capture's one replay
   * into a session. Absent otherwise.
   */
  ops?: Uint8Array;
  /** The import report JSON (imports only). */
  report: string | null;
  /** Milliseconds: reading the input (parse, import or generation), then the replay. */
  parseMs: number;
  replayMs: number;
}

export type Reply =
  | { id: number; type: 'progress'; done: number; total: number }
  | { id: number; type: 'ok'; value: unknown }
  | { id: number; type: 'error'; message: string };

export interface Envelope {
  id: number;
  req: Request;
}

/** A navigator's state holds at most this many busy and lazy entries, and free-tree nodes, each (`Vmapviz.state_thin`). */
export const THIN_MAX = 4000;

/** What a thinned state had: its busy, lazy and free-tree counts, and the runs sent. */
export interface Thinned {
  busy: number;
  lazy: number;
  free: number;
  runs: number;
}
