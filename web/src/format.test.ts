import { describe, expect, it } from 'vitest';
import { hex, log2, parseBig, range, size } from './format';

describe('hex', () => {
  it('prints lower-case 0x hex without padding, as the core does', () => {
    expect(hex(0n)).toBe('0x0');
    expect(hex(1n)).toBe('0x1');
    expect(hex(0xffffc90000000000n)).toBe('0xffffc90000000000');
    expect(hex(2n ** 64n - 1n)).toBe('0xffffffffffffffff');
  });

  it('round-trips with parseBig', () => {
    for (const s of ['0x1', '0x2000', '0xffffc8ffffffffff', '0xfffffffffffffffe']) expect(hex(parseBig(s))).toBe(s);
  });
});

describe('parseBig', () => {
  it('reads hex strings, decimal strings and safe numbers', () => {
    expect(parseBig('0xffffffffffffffff')).toBe(2n ** 64n - 1n);
    expect(parseBig('0XFF')).toBe(255n);
    expect(parseBig('4096')).toBe(4096n);
    expect(parseBig(8192)).toBe(8192n);
    expect(parseBig(5n)).toBe(5n);
  });

  it('refuses anything else', () => {
    for (const v of ['', '0x', '-1', '1.5', 'abc', null, undefined, -1, 1.5, 2 ** 60, {}]) {
      expect(() => parseBig(v)).toThrow(TypeError);
    }
  });
});

describe('size', () => {
  it('uses binary units, exact where possible', () => {
    expect(size(0n)).toBe('0');
    expect(size(512n)).toBe('512');
    expect(size(0x1000n)).toBe('4K');
    expect(size(0x2000n)).toBe('8K');
    expect(size(0x1800n)).toBe('6K');
    expect(size(0x600n)).toBe('1.5K');
    expect(size(0x100000n)).toBe('1M');
    expect(size(0x140000n)).toBe('1.25M');
    expect(size(1n << 30n)).toBe('1G');
    expect(size(0x2000000000n)).toBe('128G');
    expect(size(1n << 40n)).toBe('1T');
    expect(size(1n << 50n)).toBe('1P');
    expect(size(1n << 60n)).toBe('1E');
  });

  it('marks rounded values with ≈', () => {
    expect(size(2n ** 64n - 2n)).toBe('≈16E'); // the boot block [1, 2^64 - 1)
    expect(size(0xffffc8ffffffffffn)).toBe('≈16E');
    expect(size(0x36fffffd3fffn)).toBe('≈55T'); // 54.9999…T
    expect(size(0x36c000000000n)).toBe('54.75T');
    expect(size(0x36e000000000n)).toBe('≈54.9T'); // 54.875: three decimals are not shown
    expect(size(0x1001n)).toBe('≈4K');
    expect(size((1n << 40n) - 1n)).toBe('≈1T'); // not "1024G"
    expect(size(0x3123n)).toBe('≈12.3K');
  });
});

describe('log2', () => {
  it('is exact for powers of two, also above 2^53', () => {
    expect(log2(1n)).toBe(0);
    expect(log2(0x1000n)).toBe(12);
    expect(log2(1n << 63n)).toBe(63);
    expect(log2(2n ** 64n - 1n)).toBeCloseTo(64, 9);
    expect(log2(0n)).toBe(0);
  });
});

describe('range', () => {
  it('prints a half-open range', () => {
    expect(range(0x1000n, 0x3000n)).toBe('[0x1000, 0x3000)');
  });
});
