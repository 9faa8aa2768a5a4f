import { describe, expect, it } from 'vitest';
import { parseHash } from '../permalink';
import { parsePlayerLink } from '../player/link';
import { compressedUrl, compressHash, expandHash } from './zlink';

const TRACE = 'profile linux-6.9\ncpus 2\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n# a comment & = ?\n';

describe('compressed permalinks', () => {
  it('round-trip a trace and a step through #z=', () => {
    const z = compressHash(TRACE, 2);
    expect(z.startsWith('#z=')).toBe(true);
    expect(z).toMatch(/^#z=[A-Za-z0-9+\-$_]*&step=2$/);
    const back = expandHash(z);
    expect(back.error).toBeNull();
    expect(parseHash(back.hash ?? '').link).toEqual({ trace: TRACE, step: 2 });
    expect(parseHash(expandHash(compressHash(TRACE, 'end')).hash ?? '').link?.step).toBe('end');
  });

  it('is much shorter than the plain link for a long trace', () => {
    const long = Array.from({ length: 400 }, () => 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff').join('\n');
    expect(compressHash(long, 'end').length * 10).toBeLessThan(encodeURIComponent(long).length);
  });

  it('leaves other hashes alone and reports a damaged one', () => {
    expect(expandHash('#trace=alloc&step=1')).toEqual({ hash: null, error: null });
    expect(expandHash('')).toEqual({ hash: null, error: null });
    expect(expandHash('#z=%%%not-lz').error).toMatch(/damaged/);
  });

  it('builds a URL on the page address without its old hash', () => {
    expect(compressedUrl('http://x/vmapviz/#trace=a', 'purge\n', 0)).toMatch(/^http:\/\/x\/vmapviz\/#z=.+&step=0$/);
  });

  it('keeps the micro-step and lecture mode, which the player reads from the same hash', () => {
    const url = compressedUrl('http://x/#trace=a', 'purge\npurge\n', 8, { frame: 6, lecture: true });
    expect(url).toMatch(/&step=8&frame=6&lecture=1$/);
    const hash = url.slice(url.indexOf('#'));
    expect(parsePlayerLink(hash)).toEqual({ frame: 6, lecture: true });
    expect(compressedUrl('http://x/', 'purge\n', 1, { frame: -1 })).toMatch(/&step=1$/);
  });
});
