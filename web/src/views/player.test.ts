import { describe, expect, it } from 'vitest';
import { summarizeOutput } from './player';

describe('summarizeOutput', () => {
  it('keeps one-line outputs and counts listings', () => {
    expect(summarizeOutput('alloc -> 0x1000\n')).toBe('alloc -> 0x1000');
    expect(summarizeOutput('')).toBe('');
    expect(summarizeOutput('end\n')).toBe('printed an empty listing');
    expect(summarizeOutput('node 0x1 0x2 0x1 B depth=0\nnode 0x3 0x4 0x1 R depth=1\nend\n')).toBe(
      'printed 2 free-tree nodes',
    );
    expect(summarizeOutput('busy 0x1 0x2\nbusy 0x2 0x3 lazy\nlazy 0x5 0x6\nend\n')).toBe(
      'printed 2 busy areas, 1 lazy block',
    );
  });
  it('tells vmap node headers, maple nodes and bump chunks from free-tree nodes', () => {
    expect(summarizeOutput('node 0\nbusy 0x1 0x2\nnode 1\nbusy 0x3 0x4\nend\n')).toBe('printed 2 vmap nodes, 2 busy areas');
    expect(
      summarizeOutput('dump height=1 nodes=1\nnode 0 leaf min=0x0 max=0xffffffffffffffff end=1 | 0:0x0:E 1:0xffffffffffffffff:N\nenddump\n'),
    ).toBe('printed 1 maple node');
    expect(summarizeOutput('dump height=0 nodes=0\nroot NULL\nenddump\n')).toBe('printed an empty listing');
    expect(summarizeOutput('node 0\nbusy 0x1 0x2\nchunk 0x1 0x2 bump=0x1 pages=0 cpu=0 current\nbump 0x1 0x2\nend\n')).toBe(
      'printed 1 vmap node, 1 busy area, 1 bump chunk, 1 area in a chunk',
    );
  });
});
