// The embedding API's messages: only well-formed ones of ours become commands; the rest, whatever
// their shape, are ignored without throwing.
import { describe, expect, it } from 'vitest';
import { embedFlag, parseMessage } from './embed';

describe('embed', () => {
  it('reads &embed=1 from the hash or the query', () => {
    expect(embedFlag('#lesson=maple&stop=2&embed=1', '')).toBe(true);
    expect(embedFlag('#trace=x&embed=0', '')).toBe(false);
    expect(embedFlag('', '?embed=1')).toBe(true);
    expect(embedFlag('#lesson=maple', '')).toBe(false);
  });

  it('turns the four messages into commands', () => {
    expect(parseMessage({ type: 'vmapviz:go', op: 3, step: 2 })).toEqual({ type: 'go', op: 3, step: 2 });
    expect(parseMessage({ type: 'vmapviz:go', op: 0 })).toEqual({ type: 'go', op: 0, step: -1 });
    expect(parseMessage({ type: 'vmapviz:stop', lesson: 'free-tree', stop: 3 })).toEqual({ type: 'stop', lesson: 'free-tree', stop: 3 });
    expect(parseMessage({ type: 'vmapviz:play' })).toEqual({ type: 'play' });
    expect(parseMessage({ type: 'vmapviz:pause', extra: 1 })).toEqual({ type: 'pause' });
  });

  it('ignores anything else, and never throws', () => {
    const bad: unknown[] = [
      null,
      undefined,
      'vmapviz:play',
      42,
      [],
      ['vmapviz:play'],
      {},
      { type: 'vmapviz:where', op: 1, step: 0 },
      { type: 'vmapviz:go' },
      { type: 'vmapviz:go', op: -1, step: 0 },
      { type: 'vmapviz:go', op: 1.5, step: 0 },
      { type: 'vmapviz:go', op: '3', step: 0 },
      { type: 'vmapviz:go', op: 1e12, step: 0 },
      { type: 'vmapviz:go', op: 1, step: -2 },
      { type: 'vmapviz:go', op: Number.NaN, step: 0 },
      { type: 'vmapviz:go', op: Infinity, step: 0 },
      { type: 'vmapviz:stop', lesson: 'free-tree' },
      { type: 'vmapviz:stop', lesson: '<script>', stop: 1 },
      { type: 'vmapviz:stop', lesson: 'x'.repeat(65), stop: 1 },
      { type: 'vmapviz:stop', lesson: 'maple', stop: 0 },
      { type: 'vmapviz:stop', lesson: 'maple', stop: 100000 },
      { type: 'VMAPVIZ:PLAY' },
      { type: { toString: () => 'vmapviz:play' } },
    ];
    for (const b of bad) expect(parseMessage(b), JSON.stringify(b) ?? String(b)).toBeNull();
    // A getter that throws is not ours either.
    const hostile = Object.defineProperty({}, 'type', {
      get() {
        throw new Error('boom');
      },
    });
    expect(parseMessage(hostile)).toBeNull();
  });
});
