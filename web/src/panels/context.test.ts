import { describe, expect, it } from 'vitest';
import type { OpFrames, Session, State } from '../bridge';
import { Mirror, type AppApi } from './context';

/** An app with a session that counts the states asked of it. */
function fakeApp() {
  const asked: number[] = [];
  const framesAsked: number[] = [];
  const session = {
    state: (k: number) => (asked.push(k), { profile: `p${k}` } as unknown as State),
    frames: (k: number) => (framesAsked.push(k), { index: k } as unknown as OpFrames),
    length: 3,
  } as unknown as Session;
  const app = {
    trace: 'alloc 0x1000 0x1 0x0 0x10000\n',
    step: 1,
    sessionVersion: 7,
    core: session as Session | null,
    loaded: [] as string[],
    loadTrace(text: string) {
      if (text.includes('bogus')) throw new Error('line 2: unknown command `bogus`');
      this.loaded.push(text);
      this.trace = text;
      this.sessionVersion++;
    },
    currentTrace() {
      return this.trace;
    },
    currentStep() {
      return this.step;
    },
    onChange() {},
  };
  return { app: app as typeof app & AppApi, asked, framesAsked };
}

describe('Mirror', () => {
  it('follows the app: its session, one state per step, a new version when the app changes', () => {
    const { app, asked } = fakeApp();
    const m = new Mirror(app);
    expect(m.session()).toBe(app.core);
    const v = m.version;
    expect(m.state()?.profile).toBe('p1');
    expect(m.state()?.profile).toBe('p1');
    expect(asked).toEqual([1]);
    app.step = 2;
    expect(m.state()?.profile).toBe('p2');
    expect(m.version).toBe(v);
    app.sessionVersion++;
    expect(m.state()?.profile).toBe('p2');
    expect(asked).toEqual([1, 2, 2]);
    expect(m.version).toBe(v + 1);
  });

  it('appends a line through the app, or says why not and changes nothing', () => {
    const { app } = fakeApp();
    const m = new Mirror(app);
    expect(m.append('cpu 1')).toBeNull();
    expect(app.loaded).toEqual(['alloc 0x1000 0x1 0x0 0x10000\ncpu 1\n']);
    expect(m.append('bogus')).toBe('line 2: unknown command `bogus`');
    expect(app.trace).toBe('alloc 0x1000 0x1 0x0 0x10000\ncpu 1\n');
    app.trace = '';
    expect(m.append('purge')).toBeNull();
    expect(app.trace).toBe('purge\n');
  });

  it('looks back through the frames once per trace version', () => {
    const { app, framesAsked } = fakeApp();
    const m = new Mirror(app);
    app.step = 3;
    const odd = (f: OpFrames) => f.index % 2 === 1;
    expect(m.lastFrames(odd)).toEqual({ frames: { index: 1 }, ago: 1 });
    expect(m.lastFrames(odd)).toEqual({ frames: { index: 1 }, ago: 1 });
    expect(framesAsked).toEqual([2, 1]);
    app.sessionVersion++;
    expect(m.lastFrames((f) => f.index === 0)).toEqual({ frames: { index: 0 }, ago: 2 });
    expect(framesAsked).toEqual([2, 1, 2, 1, 0]);
  });
});
