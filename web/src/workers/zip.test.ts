import { describe, expect, it } from 'vitest';
import { parseHash } from '../permalink';
import { expandHash, zPrefix } from '../panels/zlink';
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
});
