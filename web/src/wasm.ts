// Loads the WebAssembly core once and opens sessions on it.
import init, { Vmapviz, version } from './pkg/vmapviz_wasm.js';
import { Session } from './bridge';

let ready: Promise<string> | null = null;

/** Initialise the wasm module (once); resolves to the core's version. */
export function initCore(): Promise<string> {
  ready ??= init().then(() => version());
  return ready;
}

/** Replay a whole trace; throws an Error `line N: ...` when it is invalid. */
export function loadTrace(text: string): Session {
  return new Session(Vmapviz.load(text));
}

/** An empty session of a profile ('' for the default, linux-5.2). */
export function emptySession(profile = ''): Session {
  return new Session(new Vmapviz(profile));
}
