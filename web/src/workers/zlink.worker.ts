// Compresses a long trace for the address bar's `#z=` link (web/src/panels/zlink.ts), and opens
// a long `#z=` link back into its trace, off the main thread: lz-string takes 100–200 ms on a
// trace of 20,000 operations, and seconds on a link of 10^5 or more.
import { type ZipReply, type ZipRequest, work } from './zip';

self.onmessage = (e: MessageEvent<ZipRequest>) => {
  const reply: ZipReply = { id: e.data.id, z: work(e.data.op, e.data.text) };
  postMessage(reply);
};
