// The replay worker: opens a trace (text, an import, a generated workload) with the core in
// its own wasm instance, replays it with events off in chunks, posting progress, and then, for
// a large trace, keeps the session and answers the page's questions (state, frames, summaries)
// so the page can jump anywhere and step. Cancelling is the page terminating this worker.
import init, {
  contention,
  cost_sweep,
  detect_format,
  import_bytes,
  import_text,
  Loader,
  Vmapviz,
  workload,
  type ImportResult,
} from '../pkg-workbench/vmapviz_wasm.js';
import { BUNDLE_PARTS, THIN_MAX, type Envelope, type Opened, type Reply, type Source } from './protocol';
import { parseReport } from '../panels/api';

const ready = init();
let session: Vmapviz | null = null;

const post = (r: Reply, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(r, transfer);

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * A replay error in a converted trace: name the operation too (its line is in the converted
 * text; without a text, operations in hand, operation N is line N).
 */
function converted(msg: string, text: string | null, format: string): string {
  const m = /^line (\d+): (.*)$/s.exec(msg);
  if (!m) return msg;
  const line = Number(m[1]);
  let op = text === null ? line : 0;
  for (const l of text?.split('\n', line) ?? []) {
    const t = l.trim();
    if (t && !t.startsWith('#')) op++;
  }
  return `operation ${op} of the trace converted from ${format} (its line ${line}): ${m[2]}`;
}

const INPUTS: Record<string, string> = {
  trace: 'trace',
  json: 'JSON trace',
  ftrace: 'ftrace capture',
  vmallocinfo: '/proc/vmallocinfo',
  capture: 'capture bundle',
};

/** The capture bundle's files by part: each plain or `.gz`; a missing required part is an error naming it. */
function bundle(parts: { name: string; bytes: Uint8Array }[]): { names: string; bytes: (Uint8Array | undefined)[] } {
  const base = (n: string) => (n.split('/').pop() ?? n).replace(/\.gz$/, '');
  const found = BUNDLE_PARTS.map((p) => parts.find((f) => base(f.name) === p));
  const missing = [0, 1, 3].filter((i) => !found[i]).map((i) => BUNDLE_PARTS[i]);
  if (missing.length) {
    const names = parts.map((f) => f.name).join(', ');
    throw new Error(
      `a capture bundle needs ${missing.join(', ')} (plain or .gz) besides what was given (${names}): choose all the files of the bundle's folder together (scripts/capture.sh writes vmallocinfo.before, trace.txt, vmallocinfo.after, cpus.txt and uname.txt)`,
    );
  }
  return { names: found.map((f) => f?.name ?? '').join('\n'), bytes: found.map((f) => f?.bytes) };
}

/** An import that gives no operation (a `profile` aside) would show an empty trace: refused, as an empty file is. */
function nothing(format: string, report: string | null): string {
  const skipped = report ? parseReport(report).skipped : [];
  const first = skipped[0];
  const out = first ? ` (${skipped.length} line${skipped.length === 1 ? '' : 's'} left out; line ${first.line}: ${first.text})` : '';
  return `nothing to import: the ${INPUTS[format] ?? format} gives no operation${out}.`;
}

function open(id: number, source: Source, largeOps: number, chunk: number): Opened {
  const t0 = performance.now();
  let loader: Loader;
  let text: string | null = null;
  let report: string | null = null;
  let format = 'trace';
  if (source.kind === 'text') {
    text = source.text;
    loader = Loader.parse(text);
  } else if (source.kind === 'link') {
    // A link's trace (more than the player holds: it stays here). Neither its bytes nor its text
    // are kept once parsed: up to 64 MiB each.
    loader = Loader.parse(new TextDecoder().decode(source.bytes));
    (source.bytes.buffer as ArrayBuffer & { transfer?: (n: number) => ArrayBuffer }).transfer?.(0);
  } else if (source.kind === 'workload') {
    loader = Loader.workload(source.name, source.params);
  } else if (source.kind === 'capture') {
    // The capture's replay hands over its operations, not text: the session is stepped from
    // them, and their text is printed only when asked.
    const b = bundle(source.parts);
    const [before, trace, after, cpus, uname] = b.bytes;
    loader = Loader.capture(b.names, before!, trace!, after, cpus!, uname, source.profile);
    report = loader.report() ?? null;
    format = 'capture';
  } else {
    // The trace language itself goes straight to the loader (one parse, errors at the input's
    // lines); the other formats, and bytes that are not UTF-8, go through the core's importers.
    let plain: string | undefined = source.text;
    if (source.bytes) {
      try {
        plain = new TextDecoder('utf-8', { fatal: true }).decode(source.bytes);
      } catch {
        plain = undefined;
      }
    }
    const direct = plain !== undefined && !source.profile && (source.format === 'trace' || (source.format === 'auto' && detect_format(plain) === 'trace'));
    if (direct && plain !== undefined) {
      text = plain;
      loader = Loader.parse(text);
      report = JSON.stringify({ format: 'trace', mapped: loader.total(), skipped: [], notes: [], purge_events: 0, mismatches: 0, labels: [] });
    } else {
      let r: ImportResult;
      if (source.bytes) r = import_bytes(source.format, source.bytes, source.profile);
      else r = import_text(source.format, source.text ?? '', source.profile);
      report = r.report;
      format = (JSON.parse(report) as { format: string }).format;
      text = r.text;
      r.free();
      loader = Loader.parse(text);
    }
  }
  const total = loader.total();
  if ((source.kind === 'import' || source.kind === 'capture') && loader.acting() === 0) {
    loader.free();
    throw new Error(nothing(format, report));
  }
  const t1 = performance.now();
  if (source.kind === 'capture' && total <= largeOps) {
    // The main view steps the capture's operations into its session, in its own instance of
    // the core: they go as bytes (no text printed here and parsed there), and nothing is
    // replayed here.
    const ops = loader.ops();
    loader.free();
    return { kind: 'small', total, text: null, ops, report, parseMs: t1 - t0, replayMs: 0 };
  }
  post({ id, type: 'progress', done: 0, total });
  try {
    // `[phase, done, total]`: done reaches the total as the replay ends.
    for (let done = 0; done < total; ) {
      done = Array.from(loader.advance(chunk))[1] ?? total;
      post({ id, type: 'progress', done, total });
    }
  } catch (e) {
    loader.free();
    const msg = message(e);
    throw new Error(format === 'trace' ? msg : converted(msg, text, format));
  }
  const t2 = performance.now();
  if (total <= largeOps) {
    loader.free();
    if (source.kind === 'workload') text = workload(source.name, source.params);
    return { kind: 'small', total, text, report, parseMs: t1 - t0, replayMs: t2 - t1 };
  }
  session?.free();
  session = loader.finish();
  loader.free();
  return { kind: 'large', total, text: null, report, parseMs: t1 - t0, replayMs: t2 - t1 };
}

function need(): Vmapviz {
  if (!session) throw new Error('no trace is open in this worker');
  return session;
}

self.onmessage = async (e: MessageEvent<Envelope>) => {
  const { id, req } = e.data;
  try {
    await ready;
    let value: unknown;
    switch (req.type) {
      case 'warm':
        // Nothing more than the wasm instance (awaited above) to prepare.
        value = null;
        break;
      case 'open':
        value = open(id, req.source, req.largeOps, req.chunk);
        break;
      case 'state':
        // A state of more areas than the page can take comes thinned (`Vmapviz.state_thin`).
        value = need().state_thin(req.k, THIN_MAX);
        break;
      case 'frames':
        value = need().frames(req.k);
        break;
      case 'summaries':
        value = need().summaries(req.from, req.to);
        break;
      case 'trace_text':
        value = need().trace_text();
        break;
      case 'trace_json':
        value = need().trace_json();
        break;
      case 'counters':
        value = need().counters(req.from, req.to);
        break;
      case 'fragmentation':
        value = need().fragmentation(req.k);
        break;
      case 'frag_series':
        value = need().frag_series(req.from, req.to, req.every);
        break;
      case 'sweep':
        value = cost_sweep(req.profile, req.shape, req.lives, req.rounds, req.bump);
        break;
      case 'contention':
        value = contention(req.profile, req.cpus, req.pairs, req.bump);
        break;
    }
    // A capture's operations move to the page (no copy).
    const ops = (value as Opened | null)?.ops;
    post({ id, type: 'ok', value }, ops ? [ops.buffer as ArrayBuffer] : []);
  } catch (err) {
    post({ id, type: 'error', message: message(err) });
  }
};
