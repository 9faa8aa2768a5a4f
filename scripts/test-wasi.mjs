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
//   node scripts/test-wasi.mjs
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ROOT, run } from './lib.mjs';
import { WASI_TARGET } from './setup.mjs';

const TESTS = ['wasi'];

export function testWasi() {
  const runner = `node ${join(ROOT, 'scripts', 'wasi-run.mjs')}`;
  const args = ['test', '--profile', 'checked', '-p', 'vmapviz-core', '--target', WASI_TARGET, '--lib', ...TESTS.flatMap((t) => ['--test', t])];
  // One thread: WASI preview 1 has none to give.
  return run('cargo', [...args, '--', '--test-threads=1'], { env: { CARGO_TARGET_WASM32_WASIP1_RUNNER: runner } });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await testWasi();
}
