import { describe, expect, it } from 'vitest';
import { findEvent, isOfKind, KINDS, type AnyEvent, type EventSource } from './events';
import { at } from './timeline';

const ev = (kind: string, f: Record<string, unknown> = {}): AnyEvent => ({ kind, ...f });

// Three operations: op 0 has a rotation at frame 2, op 1 none, op 2 rotations at frames 0 and 3.
const OPS: AnyEvent[][] = [
  [ev('search_start'), ev('fit', { fit: 'NE' }), ev('rotate'), ev('propagate')],
  [ev('erase'), ev('merge', { merge: 'both' })],
  [ev('rotate'), ev('recolor'), ev('link'), ev('rotate')],
];
const src: EventSource = { length: OPS.length, events: (k) => OPS[k] ?? [] };

describe('event kinds', () => {
  it('are named from the contract tags, an allocator-wrapped maple event and a bare one alike', () => {
    expect(isOfKind(ev('rotate'), 'rotate')).toBe(true);
    expect(isOfKind(ev('recolor'), 'rotate')).toBe(false);
    expect(isOfKind(ev('purge_start'), 'purge')).toBe(true);
    expect(isOfKind(ev('purge_area'), 'purge')).toBe(false);
    expect(isOfKind(ev('maple', { event: ev('split') }), 'split')).toBe(true);
    expect(isOfKind(ev('split'), 'split')).toBe(true);
    expect(isOfKind(ev('maple', { event: ev('gap_update', { stop: true }) }), 'gap_stop')).toBe(true);
    expect(isOfKind(ev('gap_update', { stop: false }), 'gap_stop')).toBe(false);
    // A wrapped maple event is never an allocator kind.
    expect(isOfKind(ev('maple', { event: ev('visit') }), 'fit')).toBe(false);
    expect(new Set(KINDS.map((k) => k.kind)).size).toBe(KINDS.length);
  });

  it('forward: from a step, from inside an operation, across operations, none left', () => {
    expect(findEvent(src, at(0), 'rotate', 1)).toEqual({ pos: at(0, 2) });
    expect(findEvent(src, at(0, 2), 'rotate', 1)).toEqual({ pos: at(2, 0) });
    expect(findEvent(src, at(2, 0), 'rotate', 1)).toEqual({ pos: at(2, 3) });
    expect(findEvent(src, at(2, 3), 'rotate', 1)).toEqual({ pos: null, scanned: 1, complete: true });
    expect(findEvent(src, at(3), 'rotate', 1).pos).toBeNull();
  });

  it('back: from inside an operation, from a step (the operation before it), none left', () => {
    expect(findEvent(src, at(2, 3), 'rotate', -1)).toEqual({ pos: at(2, 0) });
    expect(findEvent(src, at(2, 0), 'rotate', -1)).toEqual({ pos: at(0, 2) });
    expect(findEvent(src, at(3), 'rotate', -1)).toEqual({ pos: at(2, 3) });
    expect(findEvent(src, at(2), 'merge', -1)).toEqual({ pos: at(1, 1) });
    expect(findEvent(src, at(0, 2), 'rotate', -1).pos).toBeNull();
    expect(findEvent(src, at(0), 'rotate', -1).pos).toBeNull();
  });

  it('stops after maxOps operations and says so', () => {
    expect(findEvent(src, at(1), 'rotate', 1, 1)).toEqual({ pos: null, scanned: 1, complete: false });
    // Out of time after the first operation read: it says how many it read.
    expect(findEvent(src, at(1), 'rotate', 1, 100, () => true)).toEqual({ pos: null, scanned: 1, complete: false });
  });
});
