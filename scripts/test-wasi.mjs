// The core's tests on wasm32-wasip1, run by Node's WASI (scripts/wasi-run.mjs): there, as in the
// page, an arena handle is its object's address (`area::Arena`, absolute handles) and `usize` is
// 32 bits, where natively a handle is a word offset and `usize` 64 bits. So this run takes the
// tests that those two differences can fail and the native run cannot, the library's unit tests
// and the test binary core/tests/wasi/ (natively, `cargo test` runs it too):
//   --lib        raw_tests::relocate replays every conformance vector through copies of the
//                allocator moved before every operation (handles that outlive a move)
//   conformance  every vector of ../shared byte for byte (every era's paths on 32-bit usize)
//   capture      the capture replay's trials: models cloned, a trial adopted or dropped
//   import       64-bit sizes and addresses of the import paths parsed where usize is 32 bits
//   maple_rfc    the maple-rfc era's own structures (maple nodes, bump overlay) on 32 bits
// The other integration tests (core/tests/suite/) run the same allocator paths on other inputs:
// natively only.
// Tests that spawn vmap-replay are ignored there.
//
// WASI preview 1 has no threads, so each binary runs its tests one at a time: the two binaries
// run side by side, each in its own Node (their output shown whole, one after the other).
//
//   node scripts/test-wasi.mjs
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ROOT, childEnv, run } from './lib.mjs';
import { WASI_TARGET } from './setup.mjs';

const TESTS = ['wasi'];

/** Build the test binaries; resolves to their files (empty when the build failed). */
function build() {
  const args = ['test', '--profile', 'checked-wasi', '-p', 'vmapviz-core', '--target', WASI_TARGET, '--lib', ...TESTS.flatMap((t) => ['--test', t])];
  console.log(`$ cargo ${args.join(' ')} --no-run`);
  return new Promise((res) => {
    const exes = [];
    let rest = '';
    const take = (line) => {
      try {
        const m = JSON.parse(line);
        if (m.reason === 'compiler-artifact' && m.profile?.test && m.executable) exes.push(m.executable);
      } catch {
        // not a message of cargo's
      }
    };
    const child = spawn('cargo', [...args, '--no-run', '--message-format=json-render-diagnostics'], {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop();
      lines.forEach(take);
    });
    child.on('error', () => res([]));
    child.on('close', (code) => {
      take(rest);
      res(code === 0 ? exes : []);
    });
  });
}

export async function testWasi() {
  const exes = await build();
  if (!exes.length) return 1;
  const runner = join(ROOT, 'scripts', 'wasi-run.mjs');
  const runs = exes.map((exe) => {
    const chunks = [];
    const out = { write: (b) => chunks.push(b) };
    return { exe, chunks, code: run('node', [runner, exe, '--test-threads=1'], { out }) };
  });
  let failed = 0;
  for (const r of runs) {
    const code = await r.code;
    for (const b of r.chunks) process.stdout.write(b);
    if (code !== 0) {
      console.log(`${r.exe}: exit ${code}`);
      failed++;
    }
  }
  return failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await testWasi();
}
