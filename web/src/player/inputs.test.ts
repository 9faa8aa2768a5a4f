import { describe, expect, it } from 'vitest';
import { allocLine, coreMessage, freeLine, parseAmount } from './inputs';

describe('form input', () => {
  it('reads numbers as callers write them', () => {
    expect(parseAmount('4096', 'size')).toBe(4096n);
    expect(parseAmount(' 0x1000 ', 'size')).toBe(4096n);
    expect(parseAmount('4K', 'size')).toBe(4096n);
    expect(parseAmount('2 MiB', 'size')).toBe(2n << 20n);
    expect(() => parseAmount('', 'size')).toThrow(/size: enter a number/);
    expect(() => parseAmount('four', 'size')).toThrow(/"four" is not a number/);
    expect(() => parseAmount('0x10000000000000000', 'vend')).toThrow(/64 bits/);
  });

  it('makes the alloc line, as vmalloc() would', () => {
    const f = { size: '4K', align: '1', vstart: '0xffffc90000000000', vend: '0xffffe8ffffffffff', vmalloc: true };
    expect(allocLine(f).line).toBe('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
    expect(allocLine({ ...f, size: '5000' }).line.split(' ')[1]).toBe('0x3000');
    expect(allocLine({ ...f, vmalloc: false }).line.split(' ')[1]).toBe('0x1000');
    expect(() => allocLine({ ...f, size: '0' })).toThrow(/size: must be more than 0/);
    expect(() => allocLine({ ...f, vstart: '0xffffe8ffffffffff', vend: '0x1000' })).toThrow(/window is empty/);
    expect(freeLine('0xffffc90000002000', 'vfree')).toBe('vfree 0xffffc90000002000');
    expect(coreMessage('line 14: alloc align 0x3 is not a power of two')).toBe('alloc align 0x3 is not a power of two');
  });
});
