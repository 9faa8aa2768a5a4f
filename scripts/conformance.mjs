// The shared conformance folders replayed by the `vmap-replay` a user builds (`cargo build
// --release`: fat LTO, no test features), byte for byte against the kernel's own output.
// The library's tests replay them too, with the invariants checked after every operation; this
// is the binary as shipped.
//
//   node scripts/conformance.mjs [--bin PATH]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, green, red, say } from './lib.mjs';

/** Each folder with the `vmap-replay` arguments its traces need and the least count of vectors. */
const FOLDERS = [
  { dir: 'conformance', args: [], least: 28 },
  { dir: 'conformance-nodes', args: [], least: 11 },
  { dir: 'conformance-maple', args: ['--profile', 'maple-tree'], least: 15 },
];

/** The first line where `got` and `want` differ, 1-based. */
function firstDifference(got, want) {
  const [g, w] = [got.split('\n'), want.split('\n')];
  const at = g.findIndex((l, i) => l !== w[i]);
  return (at < 0 ? g.length : at) + 1;
}

export function replayConformance(bin = join(ROOT, 'target', 'release', 'vmap-replay')) {
  if (!existsSync(bin)) {
    console.error(red(`no ${bin}: build it with cargo build --release -p vmapviz-core`));
    return 1;
  }
  let failed = 0;
  for (const f of FOLDERS) {
    const dir = join(ROOT, '..', 'shared', f.dir);
    const traces = readdirSync(dir)
      .filter((n) => n.endsWith('.trace'))
      .sort();
    if (traces.length < f.least) {
      console.error(red(`${f.dir}: ${traces.length} vectors, expected at least ${f.least}`));
      failed++;
      continue;
    }
    for (const t of traces) {
      const path = join(dir, t);
      const want = readFileSync(path.replace(/\.trace$/, '.expected'), 'utf8');
      const r = spawnSync(bin, [...f.args, path], { encoding: 'utf8', maxBuffer: 1 << 30 });
      if (r.status !== 0 || r.stdout !== want) {
        failed++;
        const why = r.status !== 0 ? `exit ${r.status}: ${r.stderr.slice(0, 300)}` : `differs at output line ${firstDifference(r.stdout, want)}`;
        console.error(red(`${f.dir}/${t}: ${why}`));
      }
    }
    say(`${f.dir}: ${traces.length} vectors replayed by ${bin.replace(ROOT + '/', '')}`);
  }
  if (!failed) say(green('every conformance vector matches the kernel byte for byte'));
  return failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--bin');
  process.exitCode = replayConformance(i > 0 ? process.argv[i + 1] : undefined);
}
