// `npm test`: set up what is missing (Chromium included), then run every check in sequence,
// keep going after a failure, and end with one line `N passed, N failed`.
import { bold, fail, freePort, green, red, run, say, seconds, SetupError } from './lib.mjs';
import { chromium, setup } from './setup.mjs';
import { testWasi } from './test-wasi.mjs';
import { buildWasm } from './wasm.mjs';
import { replayConformance } from './conformance.mjs';

const cmd = (bin, ...args) => () => run(bin, args);

/** The checks, in order. `needs` names earlier steps whose failure makes this one pointless. */
function steps(ports) {
  return [
    { name: 'cargo fmt --all --check', go: cmd('cargo', 'fmt', '--all', '--check') },
    {
      // Both builds of the facade: with the workbench (the workspace default) and without (the view's).
      name: 'cargo clippy --all-targets -- -D warnings',
      go: async () =>
        (await run('cargo', ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings'])) ||
        run('cargo', ['clippy', '-p', 'vmapviz-wasm', '--no-default-features', '--all-targets', '--', '-D', 'warnings']),
    },
    {
      // The binaries as a user builds them (fat LTO, no test features), and the shared conformance
      // folders replayed by that vmap-replay byte for byte.
      name: 'vmap-replay as shipped: the conformance folders',
      go: async () =>
        (await run('cargo', ['build', '--release', '-p', 'vmapviz-core', '--bin', 'vmap-replay'])) || replayConformance(),
    },
    {
      // Every test of the workspace once, optimised, with the debug assertions that check the
      // allocator's shortcuts against the kernel's rule at every step, and overflow checks
      // (Cargo.toml's `checked` profile).
      name: 'cargo test --workspace --profile checked',
      go: cmd('cargo', 'test', '--workspace', '--profile', 'checked'),
    },
    // The core as the page runs it, where an arena handle is an address (scripts/test-wasi.mjs).
    { name: 'cargo test -p vmapviz-core on wasm32-wasip1 (Node WASI)', go: testWasi },
    {
      name: 'wasm build (wasm-pack, release)',
      go: () =>
        buildWasm().then(
          () => 0,
          (e) => (console.error(red(String(e.message ?? e))), 1),
        ),
    },
    { name: 'tsc --noEmit', go: cmd('tsc', '--noEmit'), needs: ['wasm build (wasm-pack, release)'] },
    { name: 'vitest (unit tests of web/)', go: cmd('vitest', 'run') },
    { name: 'vite build (dist/)', go: cmd('vite', 'build'), needs: ['wasm build (wasm-pack, release)'] },
    {
      name: 'playwright (end-to-end, Chromium)',
      go: () =>
        run('playwright', ['test'], {
          env: { E2E_PORT: String(ports[0]), E2E_SUBPATH_PORT: String(ports[1]), CI: process.env.CI ?? '1' },
        }),
      needs: ['vite build (dist/)'],
      browser: true,
    },
  ];
}

async function main() {
  const t0 = Date.now();
  const list = steps([await freePort(), await freePort()]);
  try {
    await setup({ checks: true });
  } catch (e) {
    console.error(`${red('error:')} ${e instanceof SetupError ? e.message : e}`);
    console.log(`set-up failed: no check could run`);
    console.log(`0 passed, ${list.length} failed`);
    process.exit(1);
  }
  // Without a browser every other check still runs; only the end-to-end step fails.
  let noBrowser = null;
  try {
    await chromium();
  } catch (e) {
    noBrowser = e instanceof SetupError ? e.message : String(e);
    console.error(`${red('error:')} ${noBrowser}`);
  }

  const results = new Map();
  list.forEach((s, i) => {
    s.label = `[${i + 1}/${list.length}] ${s.name}`;
  });
  for (const s of list) {
    console.log('');
    say(bold(s.label));
    const blocked = (s.needs ?? []).filter((n) => results.get(n) === false);
    if (s.browser && noBrowser) blocked.push('finding Chromium');
    const t = Date.now();
    let ok;
    if (blocked.length) {
      console.log(red(`skipped: ${blocked.join(', ')} failed`));
      ok = false;
    } else {
      ok = (await s.go()) === 0;
    }
    results.set(s.name, ok);
    say(`${s.label}: ${ok ? green('passed') : red('FAILED')} (${seconds(Date.now() - t)})`);
  }

  const passed = [...results.values()].filter(Boolean).length;
  const failed = list.length - passed;
  console.log('');
  for (const s of list) console.log(`  ${results.get(s.name) ? green('pass') : red('FAIL')}  ${s.name}`);
  console.log(`total time ${seconds(Date.now() - t0)}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch(fail);
