import { describe, expect, it } from 'vitest';
import { parseHash } from '../permalink';
import { bigZLink, expandHash, ZLINK_WORKER, zPrefix } from '../panels/zlink';
import { readZ } from './linkRead';
import { LinkZipper } from './zip';

describe('the link compressor', () => {
  it('compresses on the main thread where no worker can start, and the link opens the same trace', async () => {
    // Node has no Worker: the fallback path.
    expect(typeof (globalThis as { Worker?: unknown }).Worker).toBe('undefined');
    const trace = Array.from({ length: 300 }, (_, i) => `alloc 0x${(i + 1).toString(16)}000 0x1 0xffffc90000000000 0xffffe8ffffffffff`).join('\n') + '\n';
    const z = await new LinkZipper().compress(trace);
    expect(z).toMatch(/^[A-Za-z0-9+\-$]+$/);
    const back = expandHash(`${zPrefix(z)}&step=7`);
    expect(back.error).toBeNull();
    expect(parseHash(back.hash ?? '').link).toEqual({ trace, step: 7 });
  });

  it('gives a link the link reader opens back into its trace, and that says so for text that does not decompress', async () => {
    const trace = Array.from({ length: 2000 }, (_, i) => `alloc 0x${(i + 1).toString(16)}000 0x1 0xffffc90000000000 0xffffe8ffffffffff`).join('\n');
    const z = await new LinkZipper().compress(trace);
    expect(readZ(z, 20_000)).toEqual({ kind: 'small', ops: 2000, text: trace });
    expect(readZ('%%%not lz-string%%%', 20_000).kind).toBe('refused');
  });

  it('sends a long #z= text to the worker, with its step as written; a short one opens at once', () => {
    const long = 'A'.repeat(ZLINK_WORKER + 1);
    expect(bigZLink(`#z=${long}&step=12&frame=3`)).toEqual({ z: long, step: '12' });
    expect(bigZLink(`#z=${long}`)).toEqual({ z: long, step: 'end' });
    expect(bigZLink(`#z=${'A'.repeat(ZLINK_WORKER)}&step=1`)).toBeNull();
    expect(bigZLink(`#trace=${long}&step=1`)).toBeNull();
  });
});
