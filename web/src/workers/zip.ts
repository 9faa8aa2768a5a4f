// The page's side of the link compressor (zlink.worker.ts): one small worker, started on first
// use, that turns a trace into the lz-string text of a `#z=` link, and a long link's text back
// into its trace (a 143 KB link holds 30 MB of trace: 2.9 s on the main thread). Where a worker
// cannot start, the work is done on the main thread, after the current task.
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';

export interface ZipRequest {
  id: number;
  /** zip: `text` is a trace; unzip: `text` is a link's lz-string text. */
  op: 'zip' | 'unzip';
  text: string;
}

export interface ZipReply {
  id: number;
  /** zip: the lz-string text; unzip: the trace, or null when the text does not decompress. */
  z: string | null;
}

/** What one request does (in the worker, or here when it cannot start). */
export function work(op: ZipRequest['op'], text: string): string | null {
  if (op === 'zip') return compressToEncodedURIComponent(text);
  try {
    // lz-string answers garbage with null or an empty string.
    const t = decompressFromEncodedURIComponent(text);
    return t === null || (t === '' && text !== '' && text !== 'Q') ? null : t;
  } catch {
    return null;
  }
}

export class LinkZipper {
  private w: Worker | null = null;
  private failed = false;
  private next = 1;
  private readonly pending = new Map<number, { op: ZipRequest['op']; text: string; res: (z: string | null) => void }>();

  /** The lz-string (URI-safe) form of `text`. */
  compress(text: string): Promise<string> {
    return this.ask('zip', text) as Promise<string>;
  }

  /** The trace a `#z=` link's text holds, or null when it does not decompress. */
  decompress(z: string): Promise<string | null> {
    return this.ask('unzip', z);
  }

  private ask(op: ZipRequest['op'], text: string): Promise<string | null> {
    const w = this.worker();
    if (!w) return new Promise((res) => here(op, text, res));
    const id = this.next++;
    return new Promise((res) => {
      this.pending.set(id, { op, text, res });
      const req: ZipRequest = { id, op, text };
      w.postMessage(req);
    });
  }

  private worker(): Worker | null {
    if (this.w || this.failed) return this.w;
    try {
      const w = new Worker(new URL('./zlink.worker.ts', import.meta.url), { type: 'module', name: 'vmapviz-zlink' });
      w.onmessage = (e: MessageEvent<ZipReply>) => {
        this.pending.get(e.data.id)?.res(e.data.z);
        this.pending.delete(e.data.id);
      };
      // A worker that fails (its script refused, say): what it was asked is done here instead.
      w.onerror = () => {
        this.failed = true;
        this.w = null;
        w.terminate();
        const waiting = [...this.pending.values()];
        this.pending.clear();
        for (const { op, text, res } of waiting) here(op, text, res);
      };
      this.w = w;
    } catch {
      this.failed = true;
    }
    return this.w;
  }
}

/** Do the work on the main thread, after the current task. */
function here(op: ZipRequest['op'], text: string, res: (z: string | null) => void): void {
  setTimeout(() => res(work(op, text)), 0);
}
