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
});
