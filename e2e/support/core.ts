// The core itself, in the test process: the wasm builds the page loads (web/src/pkg,
// web/src/pkg-workbench), initialised from their files, so a test can compare what the page
// draws with what the core returns without going through the page's own code.
import { readFileSync } from 'node:fs';
import * as view from '../../web/src/pkg/vmapviz_wasm.js';
import * as bench from '../../web/src/pkg-workbench/vmapviz_wasm.js';

let ready = false;

function init(): void {
  if (ready) return;
  view.initSync({ module: readFileSync(new URL('../../web/src/pkg/vmapviz_wasm_bg.wasm', import.meta.url)) });
  bench.initSync({ module: readFileSync(new URL('../../web/src/pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
  ready = true;
}

/** The page build's facade (sessions, states, frames). */
export function viewCore(): typeof view {
  init();
  return view;
}

/** The workbench build's facade (sweeps, contention, counters). */
export function benchCore(): typeof bench {
  init();
  return bench;
}

/** One step event of a frame, as the core sends it. */
export interface CoreEvent {
  kind: string;
  tree?: string;
  event?: { kind: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** The events of operation `k` of `trace` replayed by the core (empty when it has none). */
export function coreEvents(trace: string, k: number): CoreEvent[] {
  const s = viewCore().Vmapviz.load(trace);
  try {
    const f = JSON.parse(s.frames(k)) as { frames?: { event: CoreEvent }[] } | null;
    return (f?.frames ?? []).map((x) => x.event);
  } finally {
    s.free();
  }
}
