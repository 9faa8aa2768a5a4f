// The page's side of the link compressor (zlink.worker.ts): one small worker, started on first
// use, that turns a trace into the lz-string text of a `#z=` link. (A long link is read back by
// the link worker: web/src/workers/linkRead.ts.) Where a worker cannot start, the work is done
// on the main thread, after the current task.
import { compressToEncodedURIComponent } from 'lz-string';

export interface ZipRequest {
  id: number;
  /** `text` is a trace. */
  op: 'zip';
  text: string;
}

export interface ZipReply {
  id: number;
  /** The lz-string text. */
  z: string | null;
}

/** What one request does (in the worker, or here when it cannot start). */
export function work(_op: ZipRequest['op'], text: string): string {
  return compressToEncodedURIComponent(text);
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
