// Opening a capture bundle as the page does, in Node over the workbench's wasm build
// (web/src/pkg-workbench, built by `node scripts/wasm.mjs`):
//   worker   what the replay worker does before the page can show it: the capture's replay
//            (every pass), then, for a bundle of at most LARGE_OPS operations, its operations
//            as bytes for the main view (`Loader.ops()`);
//   main     the main view opening them: stepped into its session (`Loader.from_bytes`);
//   large    what the worker does for a bundle past LARGE_OPS: the capture's replay, then its
//            operations stepped into the session it keeps (chunks of 25,000, as the page).
// A build from before `Loader.ops` (the worker printed the operations as text, the main view
// parsed and replayed it: `Vmapviz.load`), or from before `Loader.capture` (`import_capture`:
// the text parsed and replayed in the worker whatever its size), is timed the way it was used.
//
//   node scripts/bench-capture-open.mjs [--runs N] [--dir BUNDLE] [--pkg DIR]
//
// Prints milliseconds, best of N (default 5), and the median and worst of each run's sum;
// BUNDLE defaults to ../shared/captures/linux-6.18-mixed.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { option, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const RUNS = Math.max(1, Number(opt('--runs', 5)) || 1);
const DIR = resolve(opt('--dir', join(ROOT, '../shared/captures/linux-6.18-mixed')));
const CHUNK = 25_000;

const pkg = resolve(opt('--pkg', join(ROOT, 'web/src/pkg-workbench')));
const m = await import(join(pkg, 'vmapviz_wasm.js'));
m.initSync({ module: readFileSync(join(pkg, 'vmapviz_wasm_bg.wasm')) });

// The parts in the order the facade takes them, each plain or gzipped.
const PARTS = ['vmallocinfo.before', 'trace.txt', 'vmallocinfo.after', 'cpus.txt', 'uname.txt'];
const found = PARTS.map((p) => [p, `${p}.gz`].find((n) => existsSync(join(DIR, n))));
const names = found.map((n) => n ?? '').join('\n');
const bytes = found.map((n) => (n ? new Uint8Array(readFileSync(join(DIR, n))) : undefined));
const args7 = () => [names, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], ''];
const api =
  typeof m.Loader.capture !== 'function' ? 'import_capture' : typeof m.Loader.from_bytes === 'function' ? 'Loader.ops' : 'Loader.capture';

/** Replay all (`advance` to done; a build from before it: `step` to the total). */
function step(loader) {
  if (loader.advance) while (loader.advance(CHUNK)[0] !== 2);
  else while (loader.done() < loader.total()) loader.step(CHUNK);
}

/** The worker's part: [ms, what it hands the main view (bytes or text)]. */
function worker(large) {
  const t0 = performance.now();
  let loader;
  let handed = null;
  if (api !== 'import_capture') {
    loader = m.Loader.capture(...args7());
    if (!large) {
      handed = api === 'Loader.ops' ? loader.ops() : loader.text();
      loader.free();
      return [performance.now() - t0, handed];
    }
  } else {
    const r = m.import_capture(...args7());
    handed = r.text;
    r.free();
    loader = m.Loader.parse ? m.Loader.parse(handed) : new m.Loader(handed);
  }
  step(loader);
  if (large) loader.finish().free();
  // `finish` leaves the loader empty since `advance` (before, it consumed it).
  if (!large || loader.advance) loader.free();
  return [performance.now() - t0, handed];
}

/** The main view's part: the session it shows. */
function main(handed) {
  if (api !== 'Loader.ops') return m.Vmapviz.load(handed);
  const l = m.Loader.from_bytes(handed);
  step(l);
  const s = l.finish();
  if (l.advance) l.free();
  return s;
}

let best = { worker: Infinity, main: Infinity, large: Infinity };
const sums = [];
let ops = 0;
let size = 0;
for (let r = 0; r < RUNS; r++) {
  const [w, handed] = worker(false);
  size = handed.length;
  const t0 = performance.now();
  const s = main(handed);
  const mv = performance.now() - t0;
  ops = s.len();
  s.free();
  const [large] = worker(true);
  best = { worker: Math.min(best.worker, w), main: Math.min(best.main, mv), large: Math.min(best.large, large) };
  sums.push(w + mv);
}
const f = (x) => x.toFixed(1);
sums.sort((a, b) => a - b);
const median = sums[sums.length >> 1];
console.log(
  `${DIR.split('/').pop()} (${api}, ${ops} operations, ${size} ${api === 'Loader.ops' ? 'bytes' : 'characters'} handed over): ` +
    `worker ${f(best.worker)} ms + main view ${f(best.main)} ms = ${f(best.worker + best.main)} ms (the sum per run: median ${f(median)}, worst ${f(sums[sums.length - 1])}); ` +
    `kept in the worker ${f(best.large)} ms (best of ${RUNS})`,
);
