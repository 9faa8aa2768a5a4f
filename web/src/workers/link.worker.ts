// Decompresses a long `#z=` link and counts its operations off the main thread
// (web/src/workers/linkRead.ts); a large trace's bytes are moved back, not copied.
import { readZ } from './linkRead';

self.onmessage = (e: MessageEvent<{ z: string; largeOps: number }>) => {
  const r = readZ(e.data.z, e.data.largeOps);
  (self as unknown as Worker).postMessage(r, r.kind === 'large' && r.bytes ? [r.bytes.buffer] : []);
};
