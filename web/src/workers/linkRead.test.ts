// A link's trace is counted as the core's parser counts it (one operation per line that is
// neither blank nor a `#` comment: core/src/trace.rs `parse_line`), and the count decides where
// it opens: the player up to LARGE_OPS, the navigator beyond, a long maple-tree trace refused.
import { readFileSync } from 'node:fs';
import { compressToEncodedURIComponent } from 'lz-string';
import { beforeAll, describe, expect, it } from 'vitest';
import { initSync, Loader } from '../pkg-workbench/vmapviz_wasm.js';
import { measure } from './count';
import { LINK_LIMIT, readText, readZ } from './linkRead';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

const A = 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff';

describe('counting a trace', () => {
  it('counts operations, not blanks, comments, a byte-order mark or line endings', () => {
    // 3 operations: the blank lines (spaces, tabs, a no-break space), the comments (also
    // indented) and the CRLF endings are not operations.
    const text = `\uFEFF# a comment\r\n${A}\r\n\r\n   \t\n\u00a0\n  # indented comment\n${A}\npurge`;
    expect(measure(text)).toEqual({ ops: 3, maple: false });
    expect(Loader.parse(text).total()).toBe(3);
    expect(measure('')).toEqual({ ops: 0, maple: false });
    expect(measure('\n\n# x\n')).toEqual({ ops: 0, maple: false });
  });

  it('agrees with the core on a long mixed trace', () => {
    const lines: string[] = ['profile linux-6.9'];
    for (let i = 0; i < 5000; i++) lines.push(i % 7 === 0 ? '# note' : i % 11 === 0 ? '' : i % 2 ? A : 'vfree 0x1000');
    const text = lines.join('\n');
    expect(measure(text).ops).toBe(Loader.parse(text).total());
  });

  it('knows a maple-tree trace by its first operation only', () => {
    expect(measure('# tree\n\n  profile   maple-tree  \nstore 0 0xff 0x1\n').maple).toBe(true);
    expect(measure('profile maple-rfc\n').maple).toBe(false);
    expect(measure('profile maple-treex\n').maple).toBe(false);
    expect(measure(`${A}\nprofile maple-tree\n`).maple).toBe(false);
  });
});

describe('where a link opens', () => {
  const trace = (n: number) => `${Array.from({ length: n }, () => A).join('\n')}\n`;

  it('opens up to the limit in the player, as text', () => {
    const r = readText(trace(20), 20, true);
    expect(r).toEqual({ kind: 'small', ops: 20, text: trace(20) });
  });

  it('sends a longer trace to the navigator, as the UTF-8 bytes of the text', () => {
    const r = readZ(compressToEncodedURIComponent(trace(21)), 20);
    expect(r.kind).toBe('large');
    if (r.kind !== 'large' || !r.bytes) throw new Error('no bytes');
    expect(r.ops).toBe(21);
    expect(new TextDecoder().decode(r.bytes)).toBe(trace(21));
    // A plain link's text stays where it is (the page posts it).
    expect(readText(trace(21), 20, false)).toEqual({ kind: 'large', ops: 21, bytes: null });
  });

  it('refuses a long maple-tree trace at once, naming the limit and why', () => {
    const text = `profile maple-tree\n${'store 0 0xffffffffffffffff 0x1\nerase 0 0xffffffffffffffff\n'.repeat(15)}`;
    const r = readText(text, 20, true);
    expect(r.kind).toBe('refused');
    if (r.kind !== 'refused') return;
    expect(r.message).toContain('maple-tree trace of 31 operations');
    expect(r.message).toContain('at most 20');
    expect(r.message).toContain('vmalloc traces only');
    // The same trace within the limit opens in the player.
    expect(readText(text, 31, true).kind).toBe('small');
  });

  it('says a damaged link is damaged, and refuses a trace over 64 MiB without counting it', () => {
    expect(readZ('%%%garbage%%%', 20)).toEqual({ kind: 'refused', message: 'The compressed link (#z=) is damaged: it does not decompress.' });
    const r = readText('#'.repeat(LINK_LIMIT + 1), 20, true);
    expect(r).toEqual({ kind: 'refused', message: "The link's trace is 65 MiB; the limit is 64 MiB." });
  });
});
