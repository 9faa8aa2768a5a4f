import { describe, expect, it } from 'vitest';
import { Session, errorMessage, freeNodes, parseFrames, parseState, parseSummaries, rebuildTrees, type FreeNode, type RawSession } from './bridge';

// JSON exactly as the wasm facade sends it (from a replay of two vmalloc(4096) calls).
const STATE = JSON.stringify({
  busy: [
    { id: 2, lazy: false, node: 0, va_end: '0xffffc90000002000', va_start: '0xffffc90000000000' },
    { id: 3, lazy: true, node: 0, va_end: '0xffffc90000004000', va_start: '0xffffc90000002000' },
  ],
  cpu: 0,
  cpus: 1,
  index: { kind: 'free_tree', root: 0, nodes: [
    {
      black: true,
      depth: 0,
      id: 0,
      left: 1,
      parent: null,
      right: null,
      subtree_max_size: '0xffffc8ffffffffff',
      va_end: '0xffffffffffffffff',
      va_start: '0xffffc90000004000',
    },
    {
      black: false,
      depth: 1,
      id: 1,
      left: null,
      parent: 0,
      right: null,
      subtree_max_size: '0xffffc8ffffffffff',
      va_end: '0xffffc90000000000',
      va_start: '0x1',
    },
  ] },
  lazy: [],
  lazy_max: 8192,
  lazy_nr: 2,
  nr_nodes: 1,
  pools: [],
  profile: 'linux-5.2',
  space: ['0x1', '0xffffffffffffffff'],
  zone_size: '0x1',
});

const EMPTY_STATE = JSON.stringify({
  busy: [],
  cpu: 0,
  cpus: 1,
  index: { kind: 'free_tree', root: null, nodes: [] },
  lazy: [],
  lazy_max: 8192,
  lazy_nr: 0,
  nr_nodes: 1,
  pools: [],
  profile: 'linux-5.2',
  space: ['0x1', '0xffffffffffffffff'],
  zone_size: '0x1',
});

const SUMMARY = {
  index: 0,
  line: 3,
  output: 'alloc -> 0xffffc90000000000\n',
  text: 'alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff',
  warning: null,
};

describe('parseState', () => {
  it('turns hex strings into bigints and keeps ids and links', () => {
    const s = parseState(STATE);
    expect(s.profile).toBe('linux-5.2');
    expect(s.space).toEqual([1n, 2n ** 64n - 1n]);
    expect(s.index.kind === 'free_tree' && s.index.root).toBe(0);
    expect(s.lazyNr).toBe(2);
    expect(s.lazyMax).toBe(8192);
    expect(s.zoneSize).toBe(1n);
    expect(s.initialized).toBe(true);
    expect(freeNodes(s.index)[0]).toEqual({
      id: 0,
      vaStart: 0xffffc90000004000n,
      vaEnd: 0xffffffffffffffffn,
      subtreeMaxSize: 0xffffc8ffffffffffn,
      black: true,
      parent: null,
      left: 1,
      right: null,
      depth: 0,
    });
    expect(freeNodes(s.index)[1].black).toBe(false);
    expect(s.busy.map((b) => [b.id, b.lazy, b.vaStart])).toEqual([
      [2, false, 0xffffc90000000000n],
      [3, true, 0xffffc90000002000n],
    ]);
  });

  it('sees the state before the first operation as not initialised', () => {
    const s = parseState(EMPTY_STATE);
    expect(s.initialized).toBe(false);
    expect(s.index.kind === 'free_tree' && s.index.root).toBeNull();
    // An explicit flag from the core wins.
    expect(parseState(EMPTY_STATE.replace('{', '{"initialized":true,')).initialized).toBe(true);
  });

  it('rejects malformed JSON values', () => {
    expect(() => parseState('{}')).toThrow();
    expect(() => parseState(STATE.replace('"0x1"', '"one"'))).toThrow(/not an unsigned integer/);
  });
});

describe('parseSummaries and parseFrames', () => {
  it('parses summaries', () => {
    expect(parseSummaries(JSON.stringify([SUMMARY]))).toEqual([SUMMARY]);
    expect(parseSummaries(JSON.stringify([{ ...SUMMARY, warning: 'w' }]))[0].warning).toBe('w');
  });

  it('parses frames with events and tree snapshots', () => {
    const json = `{"index":0,"line":3,"text":"free 0x1000","output":"free 0x1000 ok\\n","warning":null,
      "before":${STATE},"after":${STATE},
      "frames":[{"event":{"kind":"merge_start","va_start":"0x1000","va_end":"0x2000","prev":null,"next":0},"tree":0}],
      "index_deltas":[{"kind":"free_tree","root":0,"set":[],"del":[]}]}`;
    const f = parseFrames(json);
    expect(f).not.toBeNull();
    expect(f?.frames[0].event.kind).toBe('merge_start');
    expect(f?.frames[0].event.va_start).toBe('0x1000');
    expect(freeNodes(f!.trees[0])[1].vaStart).toBe(1n);
    expect(freeNodes(f!.after.index)).toHaveLength(2);
    expect(parseFrames('null')).toBeNull();
  });
});

describe('rebuildTrees', () => {
  // C(2) < B(1) < A(0): a left chain under A, as before a right rotation at A.
  const node = (id: number, parent: number | null, left: number | null, right: number | null, depth: number): FreeNode => ({
    id,
    vaStart: BigInt(id * 0x1000),
    vaEnd: BigInt(id * 0x1000 + 0x800),
    subtreeMaxSize: 0x800n,
    black: true,
    parent,
    left,
    right,
    depth,
  });
  const wire = (n: FreeNode) => ({
    id: n.id,
    va_start: `0x${n.vaStart.toString(16)}`,
    va_end: `0x${n.vaEnd.toString(16)}`,
    subtree_max_size: `0x${n.subtreeMaxSize.toString(16)}`,
    black: n.black,
    parent: n.parent,
    left: n.left,
    right: n.right,
    depth: 99, // ignored: depths are counted from the root
  });
  const base = [node(0, null, 1, null, 0), node(1, 0, 2, null, 1), node(2, 1, null, null, 2)];

  it('applies a rotation: new root, pre-order, depths recounted, unchanged nodes shared', () => {
    const rotated = [node(1, null, 2, 0, 0), node(0, 1, null, null, 1)];
    const [t] = rebuildTrees(base, [{ root: 1, set: rotated.map(wire), del: [] }]);
    expect(t.map((n) => [n.id, n.depth, n.parent])).toEqual([
      [1, 0, null],
      [2, 1, 1],
      [0, 1, 1],
    ]);
    expect(t[1]).toEqual({ ...base[2], depth: 1 });
  });

  it('chains deltas, removes nodes and keeps untouched objects', () => {
    const [same, erased, empty] = rebuildTrees(base, [
      { root: 0, set: [], del: [] },
      { root: 0, set: [wire(node(1, 0, null, null, 1))], del: [2] },
      { root: null, set: [], del: [0, 1] },
    ]);
    expect(same).toEqual(base);
    expect(same[2]).toBe(base[2]);
    expect(erased.map((n) => n.id)).toEqual([0, 1]);
    expect(erased[0]).toBe(base[0]);
    expect(empty).toEqual([]);
  });

  it('rejects deltas that do not make a tree', () => {
    expect(() => rebuildTrees(base, [{ root: 5, set: [], del: [] }])).toThrow(/node 5 is missing/);
    expect(() => rebuildTrees(base, [{ root: 0, set: [], del: [2] }])).toThrow(/missing/);
    expect(() => rebuildTrees(base, [{ root: 1, set: [], del: [] }])).toThrow(/not reachable/);
    expect(() => rebuildTrees(base, [{ root: 0, set: [wire(node(2, 1, 0, null, 2))], del: [] }])).toThrow(/repeated/);
  });
});

/** A fake of the wasm class: one state, a trace that grows with push. */
class FakeRaw implements RawSession {
  lines: string[] = ['alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff'];
  freed = false;
  asked: number[] = [];
  len() {
    return this.lines.length;
  }
  state(k: number) {
    this.asked.push(k);
    return k === 0 ? EMPTY_STATE : STATE;
  }
  frames() {
    return 'null';
  }
  marks(from: number, to: number) {
    // Op k: a split when k is even, a rotation when k is a multiple of 3, a merge never.
    return Uint8Array.from(this.lines.slice(from, to).map((_, i) => ((from + i) % 2 === 0 ? 1 : 0) | ((from + i) % 3 === 0 ? 4 : 0)));
  }
  summaries(from: number, to: number) {
    return JSON.stringify(this.lines.slice(from, to).map((text, index) => ({ ...SUMMARY, index, text })));
  }
  push(line: string): string {
    if (line.startsWith('bogus')) throw new Error('line 1: unknown command `bogus`');
    this.lines.push(line);
    return JSON.stringify({ ...SUMMARY, index: this.lines.length - 1, text: line });
  }  push_checked(line: string): string {
    if (line.startsWith('bogus')) throw new Error('line 1: unknown command `bogus`');
    this.lines.push(line);
    return JSON.stringify({ ...SUMMARY, index: this.lines.length - 1, text: line });
  }
  truncate(k: number) {
    this.lines.length = k;
  }
  trace_text() {
    return this.lines.join('\n');
  }
  output() {
    return '';
  }
  check() {
    return undefined;
  }
  free() {
    this.freed = true;
  }
}

describe('Session', () => {
  it('wraps the raw session with typed results and clamped steps', () => {
    const raw = new FakeRaw();
    const s = new Session(raw);
    expect(s.length).toBe(1);
    expect(s.state(0).initialized).toBe(false);
    expect(freeNodes(s.state(99).index)).toHaveLength(2);
    expect(raw.asked).toEqual([0, 1]);
    expect(s.summaries()).toHaveLength(1);
    expect(s.check()).toBeNull();
    expect(s.frames(0)).toBeNull();
  });

  it('reads the core\'s mark bits as sets of kinds', () => {
    const raw = new FakeRaw();
    raw.lines.push('a', 'b', 'c');
    const s = new Session(raw);
    expect(s.marks().map((m) => [...m].sort())).toEqual([['rotate', 'split'], [], ['split'], ['rotate']]);
    expect(s.marks(2, 3)).toEqual([new Set(['split'])]);
  });

  it('push appends or throws the core message; dispose frees the wasm object', () => {
    const raw = new FakeRaw();
    const s = new Session(raw);
    expect(s.push('free 0xffffc90000000000').index).toBe(1);
    expect(s.length).toBe(2);
    let message = '';
    try {
      s.push('bogus 1');
    } catch (e) {
      message = errorMessage(e);
    }
    expect(message).toBe('line 1: unknown command `bogus`');
    expect(s.length).toBe(2);
    s.truncate(1);
    expect(s.traceText()).toBe(raw.lines[0]);
    s.dispose();
    expect(raw.freed).toBe(true);
  });
});
