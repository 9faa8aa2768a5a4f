import { describe, expect, it } from 'vitest';
import { around, clampWindow, hexAxis, MIN_SPAN, panWindow, SPACE_END, windowFromTransform, xIn, zoomWindow } from './zoom';

describe('zoom window', () => {
  it('keeps windows inside the 64-bit space and at least a few pages wide', () => {
    expect(clampWindow([-5n, 10n])).toEqual([0n, MIN_SPAN]);
    expect(clampWindow([0n, SPACE_END * 2n])).toEqual([0n, SPACE_END]);
    const top = clampWindow([SPACE_END - 0x1000n, SPACE_END + 0x1000n]);
    expect(top[1]).toBe(SPACE_END);
    expect(top[1] - top[0]).toBe(MIN_SPAN);
  });

  it('zooms about a point exactly, down to pages at the top of the space', () => {
    let w: [bigint, bigint] = [0n, SPACE_END];
    for (let i = 0; i < 60; i++) w = zoomWindow(w, 2, 1);
    expect(w[1]).toBe(SPACE_END);
    expect(w[1] - w[0]).toBe(MIN_SPAN);
    const p = panWindow([0x1000n, 0x9000n], 0.5);
    expect(p).toEqual([0x5000n, 0xd000n]);
    expect(xIn([0x1000n, 0x9000n], 800, 0x5000n)).toBe(400);
    // A d3-zoom transform (k = 2 about the middle) halves the window around its centre.
    expect(windowFromTransform([0n, 0x100000n], 2, -400, 800)).toEqual([0x40000n, 0xc0000n]);
    expect(around(0x100000n, 0x110000n, 0.5)).toEqual([0xf8000n, 0x118000n]);
  });

  it('labels ticks in hex, with K/M/G/T offsets when they are close', () => {
    const a = hexAxis([0xffffc90000000000n, 0xffffc90000010000n], 800);
    expect(a.step).toBe('8K');
    expect(a.ticks[0].label).toBe('0xffffc90000000000');
    expect(a.ticks.slice(1).map((t) => t.label).filter(Boolean)).toContain('+24K');
    const whole = hexAxis([0n, SPACE_END], 1600);
    expect(whole.step).toBe('1E');
    expect(whole.ticks[0].label).toBe('0x0');
    expect(whole.ticks[2].label).toBe('+2E');
    expect(hexAxis([0n, SPACE_END], 4000, 90, 100).ticks[1].label).toBe('0x800000000000000');
  });
});
