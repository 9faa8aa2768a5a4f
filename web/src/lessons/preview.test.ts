// The presenter's previews: the picture shown and the next one, as embedded lesson links.
import { describe, expect, it } from 'vitest';
import type { Lesson } from './model';
import { previewLinks } from './preview';

const lesson = (id: string, stops: number): Lesson => ({
  id,
  title: id,
  summary: '',
  minutes: 1,
  traces: {},
  stops: Array.from({ length: stops }, () => ({ title: 't', trace: 'x', at: { op: 0, frame: 0 }, text: 'x', claim: { kind: 'fit' }, look: [] })),
});
const a = lesson('a', 2);
const b = lesson('b', 1);
const all = [a, b];
// Operation 3 has 4 micro-steps.
const count = (op: number) => (op === 3 ? 4 : 0);

describe('presenter previews', () => {
  it('inside an operation: this micro-step, then the next one', () => {
    expect(previewLinks(all, a, 0, { op: 3, frame: 1 }, count)).toEqual({
      now: '#lesson=a&stop=1&step=3&frame=1&embed=1',
      next: '#lesson=a&stop=1&step=3&frame=2&embed=1',
    });
    // Between operations: the operation's first micro-step is next.
    expect(previewLinks(all, a, 0, { op: 3, frame: -1 }, count).next).toBe('#lesson=a&stop=1&step=3&frame=0&embed=1');
  });

  it('at an operation\'s last micro-step: the next stop, then the next lesson, then none', () => {
    expect(previewLinks(all, a, 0, { op: 3, frame: 3 }, count).next).toBe('#lesson=a&stop=2&embed=1');
    expect(previewLinks(all, a, 1, { op: 3, frame: 3 }, count).next).toBe('#lesson=b&stop=1&embed=1');
    expect(previewLinks(all, b, 0, { op: 3, frame: 3 }, count).next).toBe(null);
    // A lesson outside the course (a practice) ends at its last stop.
    expect(previewLinks(all, lesson('practice-land-1', 1), 0, { op: 3, frame: 3 }, count).next).toBe(null);
  });
});
