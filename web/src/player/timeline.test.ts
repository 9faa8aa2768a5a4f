import { describe, expect, it } from 'vitest';
import { at, clampPos, linkParts, nextFrame, nextOp, prevFrame, prevOp, scrubValue, type Pos } from './timeline';

// Three operations with 2, 0 and 3 frames.
const counts = [2, 0, 3];
const count = (op: number) => counts[op] ?? 0;

describe('timeline', () => {
  it('walks every step and micro-step forward and back the same way', () => {
    const fwd: Pos[] = [at(0)];
    for (let p: Pos | null = at(0); (p = nextFrame(p, 3, count)); ) fwd.push(p);
    expect(fwd).toEqual([at(0), at(0, 0), at(0, 1), at(1), at(2), at(2, 0), at(2, 1), at(2, 2), at(3)]);
    const back: Pos[] = [at(3)];
    for (let p: Pos | null = at(3); (p = prevFrame(p, count)); ) back.push(p);
    expect(back.reverse()).toEqual(fwd);
  });

  it('jumps by operation', () => {
    expect(nextOp(at(0, 1), 3)).toEqual(at(1));
    expect(nextOp(at(3), 3)).toBeNull();
    expect(prevOp(at(2, 1))).toEqual(at(2));
    expect(prevOp(at(2))).toEqual(at(1));
    expect(prevOp(at(0))).toBeNull();
  });

  it('clamps, scrubs and links', () => {
    expect(clampPos(at(9, 4), 3, count)).toEqual(at(3));
    expect(clampPos(at(2, 9), 3, count)).toEqual(at(2, 2));
    expect(clampPos(at(1, 0), 3, count)).toEqual(at(1));
    expect(scrubValue(at(2, 1), 3)).toBe(2.5);
    expect(linkParts(at(3), 3)).toEqual({ step: 'end', frame: null });
    expect(linkParts(at(2, 1), 3)).toEqual({ step: 2, frame: 1 });
  });
});
