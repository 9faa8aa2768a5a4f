import { describe, expect, it } from 'vitest';
import type { Session, State } from '../bridge';
import { Mirror, type AppApi } from './context';

/** An app with a session that counts the states asked of it. */
function fakeApp() {
  const asked: number[] = [];
  const session = { state: (k: number) => (asked.push(k), { profile: `p${k}` } as unknown as State), length: 3 } as unknown as Session;
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
  return { app: app as typeof app & AppApi, asked };
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
});
