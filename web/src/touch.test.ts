import { afterEach, describe, expect, it, vi } from 'vitest';
import { swipeStep, zoomFilter } from './touch';

const p = (x: number, y: number) => ({ x, y });

describe('swipeStep', () => {
  it('a short swipe left is a micro-step forward, right one back', () => {
    expect(swipeStep([p(300, 400)], [p(200, 410)], 1, 200, 390)).toBe('next');
    expect(swipeStep([p(100, 400)], [p(200, 390)], 1, 200, 390)).toBe('prev');
  });
  it('a swipe over half the width, or with two fingers, is a whole operation', () => {
    expect(swipeStep([p(370, 400)], [p(170, 400)], 1, 300, 390)).toBe('next-op');
    expect(swipeStep([p(20, 400)], [p(220, 400)], 1, 300, 390)).toBe('prev-op');
    expect(swipeStep([p(300, 400), p(300, 500)], [p(220, 400), p(220, 500)], 2, 200, 390)).toBe('next-op');
    expect(swipeStep([p(100, 400), p(100, 500)], [p(180, 400), p(180, 500)], 2, 200, 390)).toBe('prev-op');
  });
  it('a tap, a scroll, a slow drag and a pinch step nothing', () => {
    expect(swipeStep([p(200, 400)], [p(202, 401)], 1, 80, 390)).toBeNull();
    expect(swipeStep([p(200, 600)], [p(140, 300)], 1, 300, 390)).toBeNull();
    expect(swipeStep([p(300, 400)], [p(200, 400)], 1, 1500, 390)).toBeNull();
    expect(swipeStep([p(150, 400), p(250, 400)], [p(60, 400), p(340, 400)], 2, 300, 390)).toBeNull();
    expect(swipeStep([], [], 0, 100, 390)).toBeNull();
  });
});

describe('zoomFilter', () => {
  afterEach(() => vi.unstubAllGlobals());
  const touch = (n: number) => ({ type: 'touchstart', touches: { length: n } }) as unknown as Event;
  const narrow = (on: boolean) => vi.stubGlobal('matchMedia', (q: string) => ({ matches: on && q === '(max-width: 480px)' }));
  it('on a phone, one finger is the page\'s (scroll, swipe) and two the tree\'s', () => {
    narrow(true);
    expect(zoomFilter(touch(1))).toBe(false);
    expect(zoomFilter(touch(2))).toBe(true);
  });
  it('on a wider screen, as d3-zoom\'s own filter: one finger pans, a right button or a ctrl-drag does not', () => {
    narrow(false);
    expect(zoomFilter(touch(1))).toBe(true);
    expect(zoomFilter({ type: 'mousedown', button: 0 } as unknown as Event)).toBe(true);
    expect(zoomFilter({ type: 'mousedown', button: 2 } as unknown as Event)).toBe(false);
    expect(zoomFilter({ type: 'mousedown', button: 0, ctrlKey: true } as unknown as Event)).toBe(false);
    expect(zoomFilter({ type: 'wheel', button: 0, ctrlKey: true } as unknown as Event)).toBe(true);
  });
});
