// Loads the WebAssembly core once and opens sessions on it.
import init, { Loader, MapleView, Vmapviz, debugTrap, eras, isMapleTrace, version } from './pkg/vmapviz_wasm.js';

export { debugTrap };
import { Session } from './bridge';
import { MapleSession } from './maple/bridge';
import type { Slices } from './player/opening';

let ready: Promise<string> | null = null;

/** The eras the core models, as its JSON (`Array<EraInfo>`, parsed by web/src/eras.ts where used). */
export function eraJson(): string {
  return eras();
}

/** Initialise the wasm module (once); resolves to the core's version. */
export function initCore(): Promise<string> {
  ready ??= init().then(() => version());
  return ready;
}

type CaptureCore = typeof import('./pkg-workbench/vmapviz_wasm.js');
let capture: CaptureCore | null = null;
let captureReady: Promise<void> | null = null;

/**
 * Whether a trace follows a real kernel's capture (core/src/follow.rs: `place`, `hold`, ...).
 * Those lines replay in the workbench's build of the core, which has the capture replay; the
 * first screen's build leaves it out (its weight).
 */
export function isCaptureTrace(text: string): boolean {
  return /^[ \t]*(defer-drain|shrink|place|lazy|pooled|hold|release|unpool|purge-rest)\b/m.test(text);
}

/** Load the core that replays captures (the workbench's build; once). */
export function loadCaptureCore(): Promise<void> {
  captureReady ??= import('./pkg-workbench/vmapviz_wasm.js').then(async (m) => {
    await m.default();
    capture = m;
  });
  return captureReady;
}

/** A promise to await before `loadTrace(text)` can open it, or null when it can now. */
export function coreFor(text: string): Promise<void> | null {
  return capture || !isCaptureTrace(text) ? null : loadCaptureCore();
}

function captureCore(): CaptureCore {
  if (!capture) throw new Error('this trace follows a kernel capture (place, hold, ... lines): its core is still loading; try again in a moment');
  return capture;
}

/** Replay a whole trace; throws an Error `line N: ...` when it is invalid. */
export function loadTrace(text: string): Session {
  // A `profile maple-tree` trace opens on the core's maple tree (web/src/maple/bridge.ts).
  if (isMapleTrace(text)) return new MapleSession(MapleView.load(text));
  if (isCaptureTrace(text)) return new Session(captureCore().Vmapviz.load(text));
  return new Session(Vmapviz.load(text));
}

/** An empty session of a profile ('' for the default, linux-5.2). */
export function emptySession(profile = ''): Session {
  return new Session(new Vmapviz(profile));
}

/** Open a trace a slice at a time (see web/src/player/opening.ts); throws on a size over the limit. */
export function beginTrace(text: string): Slices {
  // A maple-tree trace is replayed at once (20,000 operations take a few milliseconds).
  if (isMapleTrace(text)) {
    let s: Session | null = null;
    return {
      advance: () => {
        s ??= loadTrace(text);
        return [2, 1, 1];
      },
      finish: () => s ?? loadTrace(text),
      free: () => s?.dispose(),
    };
  }
  const op = isCaptureTrace(text) ? new (captureCore().Loader)(text) : new Loader(text);
  return {
    advance: (n) => op.advance(n),
    finish: () => {
      const s = new Session(op.finish());
      op.free();
      return s;
    },
    free: () => op.free(),
  };
}
