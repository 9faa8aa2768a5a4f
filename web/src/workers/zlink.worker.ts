// Compresses a long trace for the address bar's `#z=` link (web/src/panels/zlink.ts) off the
// main thread: lz-string takes 100–200 ms on a trace of 20,000 operations.
import { compressToEncodedURIComponent } from 'lz-string';
import type { ZipReply, ZipRequest } from './zip';

self.onmessage = (e: MessageEvent<ZipRequest>) => {
  const reply: ZipReply = { id: e.data.id, z: compressToEncodedURIComponent(e.data.text) };
  postMessage(reply);
};
