// Issue 17, wasm against native on the same timed loop: `BenchReplay` (core/wasm/src/bench.rs,
// feature `bench`) replays a parsed perf trace in Node exactly as `vmap-replay --bench` does
// natively (parse untimed; every operation but the prints, output formatted, no observer), and
// the native binary runs alternately with it, so that a change in the machine's load hits both.
//
//   wasm-pack build core/wasm --target nodejs --out-dir /tmp/pkg-bench --release -- \
//       --no-default-features --features bench
//   node scripts/bench-wasm.mjs --pkg /tmp/pkg-bench [--bin target/release/vmap-replay] \
//       [--runs N] [--traces "fixed_s44 mixed_s42"] [--profile NAME]
//
// Prints, per trace, the best ns/op of N runs in wasm and natively and their ratio. Run
// scripts/bench-perf.sh first: it decompresses the traces into target/perf/.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { option, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const RUNS = Math.max(1, Number(opt('--runs', 5)) || 1);
const TRACES = opt('--traces', 'fixed_s44 full_fit_s45 long_busy_s43 mixed_s42').split(/\s+/).filter(Boolean);
const PROFILE = opt('--profile', '');
const BIN = resolve(opt('--bin', join(ROOT, 'target/release/vmap-replay')));
const PKG = opt('--pkg', '');
if (!PKG) throw new Error('--pkg DIR is required (a wasm-pack --target nodejs build with --features bench)');
const m = createRequire(import.meta.url)(join(resolve(PKG), 'vmapviz_wasm.js'));
if (typeof m.BenchReplay !== 'function') throw new Error(`${PKG} has no BenchReplay: build it with --features bench`);

function runNative(file) {
  const a = [...(PROFILE ? ['--profile', PROFILE] : []), '--bench', file];
  const r = spawnSync(BIN, a, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const got = /ops=(\d+) ns_per_op=([0-9.]+)/.exec(r.stderr || '');
  if (r.status !== 0 || !got) throw new Error(`${BIN} on ${file}: exit ${r.status}: ${r.stderr}`);
  return { ops: Number(got[1]), ns: Number(got[2]) };
}

console.log(`wasm: ${resolve(PKG)}   native: ${BIN}   best of ${RUNS}, alternating`);
for (const t of TRACES) {
  const file = join(ROOT, 'target/perf', `${t}.trace`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run scripts/bench-perf.sh first`);
  const b = new m.BenchReplay(readFileSync(file, 'utf8'));
  const ops = b.ops();
  let bestW = Infinity;
  let bestN = Infinity;
  let outLen = -1;
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    const len = b.run(PROFILE);
    const ns = Number(process.hrtime.bigint() - t0);
    if (outLen >= 0 && len !== outLen) throw new Error(`${t}: output length changed between runs`);
    outLen = len;
    bestW = Math.min(bestW, ns / ops);
    const n = runNative(file);
    if (n.ops !== ops) throw new Error(`${t}: native counts ${n.ops} operations, wasm ${ops}`);
    bestN = Math.min(bestN, n.ns);
  }
  b.free();
  console.log(
    `${t.padEnd(16)} ops=${ops} wasm_ns_per_op=${bestW.toFixed(1)} native_ns_per_op=${bestN.toFixed(1)} ratio=${(bestW / bestN).toFixed(2)}`,
  );
}
