import { describe, expect, it } from 'vitest';
import { formatHash, parseHash, resolveStep } from './permalink';

describe('permalinks', () => {
  const trace = '# two allocs\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\nfree 0xffffc90000000000\n';

  it('round-trips a trace and a step', () => {
    for (const step of [0, 2, 'end'] as const) {
      expect(parseHash(formatHash({ trace, step }))).toEqual({ link: { trace, step }, error: null });
    }
  });

  it('encodes so the link survives Markdown and slides (no spaces, #, & or newlines)', () => {
    const h = formatHash({ trace, step: 1 });
    expect(h.startsWith('#trace=')).toBe(true);
    expect(h.slice(1)).not.toMatch(/[\s#]/);
    expect(h.match(/&/g)).toHaveLength(1);
  });

  it('treats an absent step as the end and no trace as no link', () => {
    expect(parseHash(`#trace=${encodeURIComponent('dump')}`).link).toEqual({ trace: 'dump', step: 'end' });
    expect(parseHash('')).toEqual({ link: null, error: null });
    expect(parseHash('#')).toEqual({ link: null, error: null });
    expect(parseHash('#step=3')).toEqual({ link: null, error: null });
  });

  it('reports a bad step and falls back to the end', () => {
    const r = parseHash('#trace=dump&step=soon');
    expect(r.link).toEqual({ trace: 'dump', step: 'end' });
    expect(r.error).toMatch(/step=soon/);
  });

  it('quotes at most 40 characters of a bad step or key, however long the link', () => {
    const r = parseHash(`#trace=dump&step=${'x'.repeat(1_000_000)}`);
    expect(r.link).toEqual({ trace: 'dump', step: 'end' });
    expect(r.error!.length).toBeLessThan(120);
    expect(r.error).toContain('1,000,000 characters');
    const k = parseHash(`#${'k'.repeat(500_000)}=%E0%A4%A`);
    expect(k.error!.length).toBeLessThan(120);
  });

  it('reports broken URI encoding', () => {
    const r = parseHash('#trace=%E0%A4%A');
    expect(r.link).toBeNull();
    expect(r.error).toMatch(/URI/);
  });

  it('resolves and clamps steps', () => {
    expect(resolveStep('end', 7)).toBe(7);
    expect(resolveStep(3, 7)).toBe(3);
    expect(resolveStep(70, 7)).toBe(7);
  });
});
