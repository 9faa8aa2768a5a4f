// Spans of the page's own work on the performance timeline (`vmapviz:NAME`), recorded while a
// link opens (up to its first drawing with every view loaded), so a trace of the page (or a test
// reading `performance.getEntriesByType('measure')`) shows where opening goes.

let timing = false;

/** Start (true) or stop recording spans. */
export function setTiming(on: boolean): void {
  timing = on;
}

export function span<T>(name: string, f: () => T): T {
  if (!timing) return f();
  const t0 = performance.now();
  try {
    return f();
  } finally {
    performance.measure(`vmapviz:${name}`, { start: t0, end: performance.now() });
  }
}
