// The workbench's panels (web/src/panels/**) and what they are handed: a narrow `AppApi` object
// the page builds (the trace, the step, change notices, the session for read-only use), not the
// page itself. The workbench is its own chunk and wasm build, loaded on first use; until then
// its shell (panels/stub.ts) shows the heading and the tabs.
import type { Workbench } from '../panels';
import type { AppApi } from '../panels/context';
import { WorkbenchStub } from '../panels/stub';
import type { TabId } from '../panels/tabs';

/** Change notices: once per change of session or step, and once per micro-step. */
export class Listeners {
  private readonly change: (() => void)[] = [];
  /** Told of every micro-step too (compare mode following the main view). */
  private readonly frame: (() => void)[] = [];
  private notified = '';
  private notifiedFrame = '';

  onChange(cb: () => void): void {
    this.change.push(cb);
  }

  onFrame(cb: () => void): void {
    this.frame.push(cb);
  }

  /**
   * Tell the listeners, once per change of session (`version`) or step: moving between the
   * micro-steps of one operation tells only the frame listeners.
   */
  changed(version: number, op: number, frame: number): void {
    const key = `${version}:${op}`;
    const frameKey = `${key}:${frame}`;
    const call = (cbs: (() => void)[]) => {
      for (const cb of cbs) {
        try {
          cb();
        } catch (e) {
          console.error(e);
        }
      }
    };
    if (key !== this.notified) {
      this.notified = key;
      call(this.change);
    }
    if (frameKey !== this.notifiedFrame) {
      this.notifiedFrame = frameKey;
      call(this.frame);
    }
  }
}

/**
 * Mount the workbench's shell in the page's `[data-widget="workbench"]` (none: no workbench).
 * Returns what loads the workbench now, if it is not yet, on its large-trace tab.
 */
export function mountPanels(root: HTMLElement, api: AppApi): (tab?: TabId) => Promise<Workbench> | null {
  const host = root.querySelector<HTMLElement>('[data-widget="workbench"]');
  if (!host) return () => null;
  let bench: Promise<Workbench> | null = null;
  const stub = new WorkbenchStub(host, (hand) =>
    (bench = import('../panels').then((m) => m.mountWorkbench(api, root, hand)).catch((e: unknown) => {
      console.error('the workbench did not mount', e);
      throw e;
    })),
  );
  return (tab: TabId = 'large') => (stub.start({ tab, focus: false }, false), bench);
}
