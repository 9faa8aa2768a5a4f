// The page's wasm: the four perf traces of ../shared/perf replayed in Node through the
// workbench facade's `Loader` (web/src/pkg-workbench, built by `node scripts/wasm.mjs`), as
// the page's worker replays a large trace: the parse (`Loader.parse`) is not timed, the replay
// is `advance(total)` (output recorded, checkpoints taken, events off). A build from before
// `Loader.parse` (the constructor parsed, `step(n)` replayed) is timed the same way.
//
//   node scripts/bench-wasm-perf.mjs [--runs N] [--traces "fixed_s44 mixed_s42"] [--pkg DIR]
//
// --pkg DIR: another wasm-pack output (`--target web`) of the workbench build, e.g. a copy kept
// from an older commit, instead of web/src/pkg-workbench.
//
// Prints ns/op per trace, best of N (default 5). Run scripts/bench-perf.sh first: it
// decompresses the traces into target/perf/.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { option, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const RUNS = Math.max(1, Number(opt('--runs', 5)) || 1);
const TRACES = opt('--traces', 'fixed_s44 full_fit_s45 long_busy_s43 mixed_s42').split(/\s+/).filter(Boolean);

const pkg = resolve(opt('--pkg', join(ROOT, 'web/src/pkg-workbench')));
const m = await import(join(pkg, 'vmapviz_wasm.js'));
m.initSync({ module: readFileSync(join(pkg, 'vmapviz_wasm_bg.wasm')) });

for (const t of TRACES) {
  const file = join(ROOT, 'target/perf', `${t}.trace`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run scripts/bench-perf.sh first`);
  const text = readFileSync(file, 'utf8');
  const timed = text.split('\n').filter((l) => /^(alloc|free|vfree|purge)\b/.test(l)).length;
  let best = Infinity;
  for (let r = 0; r < RUNS; r++) {
    const loader = m.Loader.parse ? m.Loader.parse(text) : new m.Loader(text);
    const t0 = process.hrtime.bigint();
    if (loader.advance) loader.advance(loader.total());
    else loader.step(loader.total());
    const ns = Number(process.hrtime.bigint() - t0);
    const s = loader.finish();
    s.free();
    if (loader.advance) loader.free();
    best = Math.min(best, ns / timed);
  }
  console.log(`${t.padEnd(16)} ops=${timed} wasm_ns_per_op=${best.toFixed(1)} (best of ${RUNS})`);
}
