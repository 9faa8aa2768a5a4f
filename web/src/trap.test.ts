// Which errors mean the wasm instance is broken (web/src/trap.ts): a trap, or a call into an
// instance a trap left mid-borrow; nothing else restarts the core.
import { describe, expect, it } from 'vitest';
import { isTrap, recoverFromTrap } from './trap';

describe('isTrap', () => {
  it('is true for a WebAssembly trap and for the borrow errors a trap leaves behind', () => {
    expect(isTrap(new WebAssembly.RuntimeError('unreachable'))).toBe(true);
    expect(isTrap(new Error('attempted to take ownership of Rust value while it was borrowed'))).toBe(true);
    expect(isTrap(new Error('recursive use of an object detected which would lead to unsafe aliasing in rust'))).toBe(true);
  });
  it('is false for the core\'s own refusals and for anything else', () => {
    expect(isTrap(new Error('line 3: unknown command `allok`'))).toBe(false);
    expect(isTrap('unreachable')).toBe(false);
    expect(isTrap(null)).toBe(false);
    expect(recoverFromTrap(new Error('line 1: bad size'))).toBe(false);
  });
});
