// Live mode's reading of the feed: lines kept and replaced as `trace` events say, and a trace the
// page's core refuses shown up to the refused line, with the reason.
import { describe, expect, it } from 'vitest';
import type { Session } from '../bridge';
import { applyTrace, Followed, openFollowed, reportText } from './feed';

describe('live feed', () => {
  it('keeps the first `from` lines and appends the rest', () => {
    let l = applyTrace([], { from: 0, lines: 'profile linux-6.18\ncpus 2' });
    expect(l).toEqual(['profile linux-6.18', 'cpus 2']);
    l = applyTrace(l, { from: 2, lines: 'alloc 0x2000 0x1 0x0 0x10000' });
    expect(l).toEqual(['profile linux-6.18', 'cpus 2', 'alloc 0x2000 0x1 0x0 0x10000']);
    l = applyTrace(l, { from: 1, lines: 'cpus 4' });
    expect(l).toEqual(['profile linux-6.18', 'cpus 4']);
    expect(applyTrace(l, { from: 1, lines: '' })).toEqual(['profile linux-6.18']);
    // A `from` past the end keeps what there is.
    expect(applyTrace(['a'], { from: 5, lines: 'b' })).toEqual(['a', 'b']);
  });

  it('extends the session shown while the trace only grows, and opens it again after a start-over', () => {
    const f = new Followed();
    f.receive({ from: 0, lines: 'a\nb' });
    // Nothing shown yet: the whole trace.
    expect(f.plan()).toEqual({ kind: 'reload', lines: ['a', 'b'] });
    f.holds(2);
    expect(f.plan()).toEqual({ kind: 'none' });
    // The feed's `from` is the page's length: the new lines only.
    f.receive({ from: 2, lines: 'c' });
    f.receive({ from: 3, lines: 'd\ne' });
    expect(f.plan()).toEqual({ kind: 'extend', lines: ['c', 'd', 'e'] });
    f.holds(5);
    // Lines past the session's replaced before the round: still only new lines for it.
    f.receive({ from: 5, lines: 'x' });
    f.receive({ from: 5, lines: 'f\ng' });
    expect(f.plan()).toEqual({ kind: 'extend', lines: ['f', 'g'] });
    f.holds(7);
    // A start-over replaced a line the session holds: the whole trace again.
    f.receive({ from: 4, lines: 'E\nf\ng\nh' });
    expect(f.plan()).toEqual({ kind: 'reload', lines: ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h'] });
    f.holds(8);
    // Replaced and put back the same between two rounds: still a replacement.
    f.receive({ from: 1, lines: 'b\nc\nd\nE\nf\ng\nh\ni' });
    expect(f.plan().kind).toBe('reload');
    f.holds(9);
    // Shorter than what the session holds: the whole trace again.
    f.receive({ from: 9, lines: '' });
    f.lines = f.lines.slice(0, 3);
    expect(f.plan().kind).toBe('reload');
  });

  it('a replacement that comes while a round runs is seen by the next one', () => {
    const f = new Followed();
    f.receive({ from: 0, lines: 'a\nb\nc' });
    const p = f.plan();
    expect(p.kind).toBe('reload');
    // Came while the trace opened (the opening awaits the core).
    f.receive({ from: 1, lines: 'B\nc' });
    f.holds(3);
    expect(f.plan().kind).toBe('reload');
    f.holds(3);
    // A refused line: the session holds fewer lines than the trace; the next round adds from there.
    f.receive({ from: 3, lines: 'd\ne' });
    f.holds(3);
    expect(f.plan()).toEqual({ kind: 'extend', lines: ['d', 'e'] });
    f.holds(4);
    f.drop();
    expect(f.plan()).toEqual({ kind: 'reload', lines: ['a', 'B', 'c', 'd', 'e'] });
  });

  it('words the report line', () => {
    const f = { events: 8637, allocations: 4311, equal: 4295, explained: 16, unexplained: 0, summary: '', ops: 1, replay_ms: 1, ended: true, full: false };
    expect(reportText(f)).toBe('8637 events: 4311 allocations, 4295 equal, 16 explained, 0 unexplained');
  });

  const fake = (n: number) => ({ length: n }) as unknown as Session;
  const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

  it('opens the whole trace when the core takes it', async () => {
    const loaded: string[] = [];
    const r = await openFollowed(['a', 'b'], { coreFor: () => null, loadTrace: (t) => (loaded.push(t), fake(2)), errorMessage });
    expect(loaded).toEqual(['a\nb\n']);
    expect(r.problem).toBe('');
    expect(r.session.length).toBe(2);
  });

  it('opens up to a refused line and says which and why', async () => {
    const loaded: string[] = [];
    let waited = false;
    const r = await openFollowed(['a', 'b', 'c', 'd'], {
      coreFor: () => Promise.resolve().then(() => void (waited = true)),
      loadTrace: (t) => {
        loaded.push(t);
        if (t.includes('c')) throw new Error('line 3: `c` refused: not free');
        return fake(t.split('\n').length - 1);
      },
      errorMessage,
    });
    expect(waited).toBe(true);
    expect(loaded).toEqual(['a\nb\nc\nd\n', 'a\nb\n']);
    expect(r.session.length).toBe(2);
    expect(r.problem).toBe('Shown up to line 2 of the followed trace: the model refuses line 3: `c` refused: not free');
  });

  it('throws what names no line, or the first line', async () => {
    const d = (msg: string) => ({ coreFor: () => null, loadTrace: () => { throw new Error(msg); }, errorMessage });
    await expect(openFollowed(['a'], d('wasm trap'))).rejects.toThrow('wasm trap');
    await expect(openFollowed(['a'], d('line 1: bad'))).rejects.toThrow('line 1: bad');
  });
});
