// A typed answer (the keyboard's way to answer a click question): what each kind of question
// takes, and bad text refused with what is wrong, quoting a bounded part of it.
import { describe, expect, it } from 'vitest';
import { parsePick } from './question';

describe('typed answers', () => {
  it('an address in hex for "where will it land"', () => {
    expect(parsePick('land', ' 0x20000 ')).toEqual({ ask: 'land', addr: 0x20000n });
    expect(parsePick('land', '0xFFFFC90000000000')).toEqual({ ask: 'land', addr: 0xffffc90000000000n });
    expect(parsePick('land', '131072')).toEqual({ error: '"131072" is not an address: type it in hex, as 0x… (at most 16 digits)' });
    expect(parsePick('land', '0x12345678901234567')).toHaveProperty('error');
  });

  it('a node\'s number for "which node next"', () => {
    expect(parsePick('visit', '7')).toEqual({ ask: 'visit', node: 7 });
    expect(parsePick('visit', '#12')).toEqual({ ask: 'visit', node: 12 });
    expect(parsePick('visit', '7 8')).toHaveProperty('error');
    expect(parsePick('visit', 'seven')).toEqual({ error: '"seven" is not a node\'s number: type one number, as #N or N' });
    expect(parsePick('visit', '')).toHaveProperty('error');
  });

  it('a node and a slot for "which slot", in either wording', () => {
    expect(parsePick('slot', '2 10')).toEqual({ ask: 'slot', node: 2, slot: 10 });
    expect(parsePick('slot', '#2, 10')).toEqual({ ask: 'slot', node: 2, slot: 10 });
    expect(parsePick('slot', '#2 slot 10')).toEqual({ ask: 'slot', node: 2, slot: 10 });
    // The feedback's own wording, slot first.
    expect(parsePick('slot', 'slot 10 of #2')).toEqual({ ask: 'slot', node: 2, slot: 10 });
    expect(parsePick('slot', '2')).toHaveProperty('error');
    expect(parsePick('slot', 'tools 2 10')).toHaveProperty('error');
  });

  it('a long bad answer is quoted in part', () => {
    const r = parsePick('visit', 'x'.repeat(500));
    expect('error' in r && r.error.length < 120).toBe(true);
    expect('error' in r && r.error).toContain(`"${'x'.repeat(24)}…"`);
  });

  it('a store type by its kernel name', () => {
    expect(parsePick('store', 'wr_exact_fit')).toEqual({ ask: 'store', store: 'wr_exact_fit' });
    expect(parsePick('store', 'wr_nope')).toHaveProperty('error');
  });
});
