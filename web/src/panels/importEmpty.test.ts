import { describe, expect, it } from 'vitest';
import { nothingToImport } from './limits';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('nothingToImport', () => {
  it('refuses an empty, blank or comment-only file', () => {
    expect(nothingToImport(bytes(''))).toBe('is empty');
    expect(nothingToImport(bytes(' \n\t\r\n\n'))).toBe('is empty');
    expect(nothingToImport(bytes('\ufeff\n'))).toBe('is empty');
    expect(nothingToImport(bytes('# a trace\n  # indented comment\n\n#alloc 0x2000 0x1 0x1 0x9000\n'))).toBe('holds only comments');
    expect(nothingToImport(bytes('\ufeff# tracer: nop\r\n#\r\n'))).toBe('holds only comments');
  });

  it('accepts anything with a line that is neither blank nor a comment', () => {
    expect(nothingToImport(bytes('purge'))).toBeNull();
    expect(nothingToImport(bytes('# head\n\nalloc 0x2000 0x1 0x1000 0x9000\n'))).toBeNull();
    expect(nothingToImport(bytes('{"ops": []}'))).toBeNull();
    expect(nothingToImport(bytes('0xffffc90000000000-0xffffc90000002000    8192 foo+0x1/0x2 pages=1 vmalloc\n'))).toBeNull();
    // A '#' after the start of a line is content.
    expect(nothingToImport(bytes('x # y\n'))).toBeNull();
  });
});
