// `npm test`: set up what is missing (Chromium included), then run every check, keep going after
// a failure, and end with one line `N passed, N failed`.
//
// No check keeps both cores busy alone (fat-LTO links, single-threaded codegen, one test binary
// at a time, the browser tests' waits), so the checks run in two lanes at once:
//   build lane  the release binaries and the conformance folders, the wasm build, tsc, vitest,
//               vite build, then the end-to-end tests: the page's path, at normal priority;
//   Rust lane   fmt, clippy, the workspace's tests, the WASI run, at a lower CPU priority
//               (nice 10: a tenth of the CPU where both lanes want it all), so that they take
//               mostly what the build lane leaves idle and the browser tests run nearly as on a
//               machine of their own. Not 19: the Rust tests that bound a run's time (a hang
//               found in 5 s, cli.rs, fuzz.rs) must not starve.
// Each lane builds in its own cargo profile folders (target/release and
// target/wasm32-unknown-unknown; target/debug, target/checked and target/wasm32-wasip1), so
// neither waits for the other's lock. A step's output is held while an earlier step is still
// printing, then shown whole in the order of the list, with the step's own time.
import { bold, fail, freePort, green, red, run, say, seconds, SetupError } from './lib.mjs';
import { chromium, setup } from './setup.mjs';

/** How a step runs its commands: where their output goes, at what priority. */
const opt = (io) => ({ out: io.out, nice: io.nice });
const cmd =
  (bin, ...args) =>
  (io) =>
    run(bin, args, opt(io));
const node = (script, ...args) => cmd('node', script, ...args);

const WASM = 'wasm build (wasm-pack, release)';
const VITE = 'vite build (dist/)';

/**
 * The checks, in the order they are reported. `lane` runs its steps one after another; `needs`
 * names earlier steps whose failure makes this one pointless.
 */
function steps(ports) {
  return [
    { name: 'cargo fmt --all --check', lane: 'rust', go: cmd('cargo', 'fmt', '--all', '--check') },
    {
      // Both builds of the facade: with the workbench (the workspace default) and without (the view's).
      name: 'cargo clippy --all-targets -- -D warnings',
      lane: 'rust',
      go: async (io) =>
        (await run('cargo', ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings'], opt(io))) ||
        run('cargo', ['clippy', '-p', 'vmapviz-wasm', '--no-default-features', '--all-targets', '--', '-D', 'warnings'], opt(io)),
    },
    {
      // The binaries as a user builds them (fat LTO, no test features), and the shared conformance
      // folders replayed by that vmap-replay byte for byte. vmap-live is built here too, with the
      // same features, for e2e/live.spec.ts (which builds it when it is missing).
      name: 'vmap-replay as shipped: the conformance folders',
      lane: 'build',
      go: async (io) =>
        (await run('cargo', ['build', '--release', '-p', 'vmapviz-live', '-p', 'vmapviz-core', '--bin', 'vmap-live', '--bin', 'vmap-replay'], opt(io))) ||
        run('node', ['scripts/conformance.mjs'], opt(io)),
    },
    {
      // Every test of the workspace once, optimised, with the debug assertions that check the
      // allocator's shortcuts against the kernel's rule at every step, and overflow checks
      // (Cargo.toml's `checked` profile).
      name: 'cargo test --workspace --profile checked',
      lane: 'rust',
      go: cmd('cargo', 'test', '--workspace', '--profile', 'checked'),
    },
    // The core as the page runs it, where an arena handle is an address (scripts/test-wasi.mjs).
    { name: 'cargo test -p vmapviz-core on wasm32-wasip1 (Node WASI)', lane: 'rust', go: node('scripts/test-wasi.mjs') },
    { name: WASM, lane: 'build', go: node('scripts/wasm.mjs') },
    { name: 'tsc --noEmit', lane: 'build', go: cmd('tsc', '--noEmit'), needs: [WASM] },
    { name: 'vitest (unit tests of web/)', lane: 'build', go: cmd('vitest', 'run') },
    { name: VITE, lane: 'build', go: cmd('vite', 'build'), needs: [WASM] },
    {
      name: 'playwright (end-to-end, Chromium)',
      lane: 'build',
      go: (io) =>
        run('playwright', ['test'], {
          out: io.out,
          env: { E2E_PORT: String(ports[0]), E2E_SUBPATH_PORT: String(ports[1]), CI: process.env.CI ?? '1' },
        }),
      needs: [VITE],
      browser: true,
    },
  ];
}

/** Where a step's output goes: held until the step's turn to print, then straight through. */
class Output {
  chunks = [];
  live = false;
  write(b) {
    if (this.live) process.stdout.write(b);
    else this.chunks.push(b);
  }
  show() {
    this.live = true;
    for (const b of this.chunks) process.stdout.write(b);
    this.chunks = [];
  }
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
  // Chromium is looked for (and installed with apt-get when missing) beside the checks, not
  // before them: a download and an unpack leave the CPU to the builds. Its lines are shown with
  // the end-to-end step, the one that waits for it. Without a browser every other check still
  // runs; only the end-to-end step fails.
  const browserOut = new Output();
  const browser = chromium({ out: browserOut }).then(
    () => null,
    (e) => (e instanceof SetupError ? e.message : String(e)),
  );

  // Colours for a terminal, as the children would give them writing to it.
  if (process.stdout.isTTY && !process.env.NO_COLOR) {
    process.env.CARGO_TERM_COLOR ??= 'always';
    process.env.FORCE_COLOR ??= '1';
  }

  const byName = new Map(list.map((s) => [s.name, s]));
  const lastOfLane = new Map();
  list.forEach((s, i) => {
    s.label = `[${i + 1}/${list.length}] ${s.name}`;
    s.out = new Output();
    const before = [lastOfLane.get(s.lane), ...(s.needs ?? [])].filter(Boolean);
    if (s.lane === 'rust') s.nice = 10;
    lastOfLane.set(s.lane, s);
    s.done = (async () => {
      for (const b of before) await (typeof b === 'string' ? byName.get(b) : b).done;
      const blocked = (s.needs ?? []).filter((n) => !byName.get(n).ok);
      if (s.browser) {
        const noBrowser = await browser;
        for (const b of browserOut.chunks) s.out.write(b);
        if (noBrowser) {
          s.out.write(`${red('error:')} ${noBrowser}\n`);
          blocked.push('finding Chromium');
        }
      }
      const t = Date.now();
      if (blocked.length) {
        s.out.write(`${red(`skipped: ${blocked.join(', ')} failed`)}\n`);
        s.ok = false;
      } else {
        try {
          s.ok = (await s.go(s)) === 0;
        } catch (e) {
          s.out.write(`${red('error:')} ${e?.message ?? e}\n`);
          s.ok = false;
        }
      }
      s.ms = Date.now() - t;
    })();
  });

  for (const s of list) {
    console.log('');
    say(bold(s.label));
    s.out.show();
    await s.done;
    say(`${s.label}: ${s.ok ? green('passed') : red('FAILED')} (${seconds(s.ms)})`);
  }

  const passed = list.filter((s) => s.ok).length;
  const failed = list.length - passed;
  console.log('');
  for (const s of list) console.log(`  ${s.ok ? green('pass') : red('FAIL')}  ${s.name}`);
  console.log(`total time ${seconds(Date.now() - t0)}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch(fail);
