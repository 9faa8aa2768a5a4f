// The page's side of the link compressor (zlink.worker.ts): one small worker, started on first
// use, that turns a trace into the lz-string text of a `#z=` link. Where a worker cannot start,
// the text is compressed on the main thread, after the current task.
import { compressToEncodedURIComponent } from 'lz-string';

export interface ZipRequest {
  id: number;
  text: string;
}

export interface ZipReply {
  id: number;
  z: string;
}

export class LinkZipper {
  private w: Worker | null = null;
  private failed = false;
  private next = 1;
  private readonly pending = new Map<number, { text: string; res: (z: string) => void }>();

  /** The lz-string (URI-safe) form of `text`. */
  compress(text: string): Promise<string> {
    const w = this.worker();
    if (!w) return new Promise((res) => here(text, res));
    const id = this.next++;
    return new Promise((res) => {
      this.pending.set(id, { text, res });
      const req: ZipRequest = { id, text };
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
        for (const { text, res } of waiting) here(text, res);
      };
      this.w = w;
    } catch {
      this.failed = true;
    }
    return this.w;
  }
}

/** Compress on the main thread, after the current task. */
function here(text: string, res: (z: string) => void): void {
  setTimeout(() => res(compressToEncodedURIComponent(text)), 0);
}
