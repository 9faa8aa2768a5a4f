// The core's `Loader` as both builds have it (the first screen's and the workbench's): one
// stepping protocol, `advance(n)` -> `[phase, done, total]` then `finish()`. A text is parsed
// a line a call at `advance(1)` (phase 0, bytes), then replayed an operation a call (phase 1),
// then done (phase 2, `[2, ops, ops]`); a bad line or an operation the kernel crashes on throws
// `line N: ...` and nothing is kept.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as first from '../pkg/vmapviz_wasm.js';
import * as bench from '../pkg-workbench/vmapviz_wasm.js';

beforeAll(() => {
  first.initSync({ module: readFileSync(new URL('../pkg/vmapviz_wasm_bg.wasm', import.meta.url)) });
  bench.initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

const ALLOC = 'alloc 0x2000 0x1 0x10000 0x100000';
// Four lines, three operations (the comment is none).
const LINES = ['# two allocations and a free', ALLOC, ALLOC, 'free 0x10000'];
const TEXT = LINES.map((l) => `${l}\n`).join('');

/** Where each line ends in the text (ASCII: a character a byte), line breaks included. */
function ends(): number[] {
  let at = 0;
  return LINES.map((l) => (at += l.length + 1));
}

for (const [name, m] of [
  ['first screen', first],
  ['workbench', bench],
] as const) {
  describe(`the ${name} build's Loader`, () => {
    it('parses a line, then replays an operation, a call at a time, and gives the session', () => {
      const l = new m.Loader(TEXT);
      const seen: number[][] = [];
      while (seen.at(-1)?.[0] !== 2) seen.push(Array.from(l.advance(1)));
      expect(seen).toEqual([
        ...ends().map((e) => [0, e, TEXT.length]),
        // The call that ends the parse replays nothing.
        [1, 0, 3],
        [1, 1, 3],
        [1, 2, 3],
        [2, 3, 3],
      ]);
      const s = l.finish();
      expect(s.len()).toBe(3);
      expect(s.output()).toBe('alloc -> 0x10000\nalloc -> 0x12000\nfree 0x10000 ok\n');
      // Finished: the loader holds nothing more.
      expect(() => l.advance(1)).toThrow('nothing to open');
      expect(() => l.finish()).toThrow('nothing to open');
      l.free();
      s.free();
    });

    it('throws `line N: ...` on a bad line and keeps nothing', () => {
      const l = new m.Loader(`${ALLOC}\nalloc 0x2000\n${ALLOC}\n`);
      expect(() => l.advance(100)).toThrow(/^line 2: `alloc` takes 4 arguments/);
      expect(() => l.advance(100)).toThrow('nothing to open');
      l.free();
    });

    it('throws `line N: ...` on an operation the kernel crashes on (5.2 BUG_ON) and keeps nothing', () => {
      const l = new m.Loader(`${ALLOC}\n# size 0\nalloc 0 0x1 0x10000 0x100000\n${ALLOC}\n`);
      expect(Array.from(l.advance(100))).toEqual([1, 0, 3]);
      expect(() => l.advance(100)).toThrow(/^line 3: /);
      expect(() => l.finish()).toThrow('nothing to open');
      l.free();
    });

    it('gives no session before the replay is done, and keeps nothing', () => {
      const l = new m.Loader(TEXT);
      expect(Array.from(l.advance(100))).toEqual([1, 0, 3]);
      expect(Array.from(l.advance(1))).toEqual([1, 1, 3]);
      expect(() => l.finish()).toThrow('only 1 of 3 operations are replayed');
      expect(() => l.advance(1)).toThrow('nothing to open');
      l.free();
    });
  });
}

describe("the workbench's Loader", () => {
  it('parses a text at once (`parse`): its operations counted, then stepped as any other', () => {
    const l = bench.Loader.parse(`profile linux-6.9\ncpus 2\n${TEXT}`);
    expect(l.total()).toBe(5);
    expect(l.acting()).toBe(3);
    expect(Array.from(l.advance(4))).toEqual([1, 4, 5]);
    expect(Array.from(l.advance(4))).toEqual([2, 5, 5]);
    const s = l.finish();
    expect(s.len()).toBe(5);
    l.free();
    s.free();
  });

  it('refuses a bad line at `parse`', () => {
    expect(() => bench.Loader.parse(`${ALLOC}\n${ALLOC}\nfrob\n`)).toThrow(/^line 3: /);
  });
});
