// The core's tests on wasm32-wasip1, run by Node's WASI (scripts/wasi-run.mjs): there, as in the
// page, an arena handle is its object's address (`area::Arena`, absolute handles), where natively
// it is a word offset. So this is the suite that covers the representation the page runs: the
// library's tests (raw_tests::relocate replays every conformance vector through copies of the
// allocator, moved before every operation) and the integration tests of the allocator, the
// capture replay and the imports. Tests that spawn vmap-replay are ignored there.
//
//   node scripts/test-wasi.mjs
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ROOT, run } from './lib.mjs';
import { WASI_TARGET } from './setup.mjs';

const TESTS = ['conformance', 'capture', 'follow', 'import', 'workloads', 'profiles_compare', 'state_chunks', 'push_checked', 'v618', 'maple_rfc'];

export function testWasi() {
  const runner = `node ${join(ROOT, 'scripts', 'wasi-run.mjs')}`;
  const args = ['test', '--profile', 'checked', '-p', 'vmapviz-core', '--target', WASI_TARGET, '--lib', ...TESTS.flatMap((t) => ['--test', t])];
  // One thread: WASI preview 1 has none to give.
  return run('cargo', [...args, '--', '--test-threads=1'], { env: { CARGO_TARGET_WASM32_WASIP1_RUNNER: runner } });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await testWasi();
}
