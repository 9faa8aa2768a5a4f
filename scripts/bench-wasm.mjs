// wasm against native on the same timed loop: `BenchReplay` (core/wasm/src/bench.rs,
// feature `bench`) replays a parsed perf trace in Node exactly as `vmap-replay --bench` does
// natively (parse untimed; every operation but the prints, output formatted, no observer), and
// the native binary runs alternately with it, so that a change in the machine's load hits both.
//
//   wasm-pack build core/wasm --target nodejs --out-dir /tmp/pkg-bench --release -- \
//       --no-default-features --features bench
//   node scripts/bench-wasm.mjs --pkg /tmp/pkg-bench [--bin target/release/vmap-replay] \
//       [--runs N] [--traces "fixed_s44 mixed_s42"] [--profile NAME] [--pin CPU]
//
// In Chromium instead of Node (`--browser`; the page's engine, often a newer V8 than Node's),
// from a `--target web` build, served from a local port and timed in the page:
//
//   wasm-pack build core/wasm --target web --out-dir /tmp/pkg-web --release -- \
//       --no-default-features --features bench
//   node scripts/bench-wasm.mjs --browser --pkg /tmp/pkg-web [...as above]
//
// `JSFLAGS="..."` in the environment passes V8 flags to Chromium (`--js-flags`), for
// experiments such as `--no-wasm-stack-checks`; never for the figures in BENCHMARKS.md.
//
// Prints, per trace, the best ns/op of N runs in wasm and natively and their ratio (`ratio`);
// then `paired`, the median over the rounds of each wasm run over the native run right after
// it (a burst of load on the shared machine slows both halves of a round, so it moves a
// round's ratio less than it moves one side's best); and `native_spread`, the native side's
// slowest run over its fastest: how much the machine itself moved under that trace; and
// `wasm_spread`, the same for the wasm side (a best far above the other runs' with a
// small `wasm_spread` means the page was slow for the whole trace, not one run). Run
// scripts/bench-perf.sh first: it decompresses the traces into target/perf/.
//
// Several builds at once (`--pkg A,B,...`): each loads in its own page (or module), and the
// runs alternate between all of them and the native binary, so that two wasm builds can be
// compared on the same machine state; one line per build and trace.
//
// `--warmup N` (default 1): before a trace's timed rounds, N untimed runs of each build and of the
// native binary. A page's first trace otherwise shares its pinned core with V8's background
// compiles of the functions it has just made hot (fixed_s44, first in the page: best of 30 at
// 105-141 ns/op in wasm in four runs with no warm-up, 99.7 in the one with it).
//
// `--pin CPU` (opt-in; a CPU list as `taskset -c` takes it, e.g. `1`): runs the native binary
// under `taskset -c CPU` and launches Chromium the same way (through a wrapper that execs
// `taskset -c CPU chromium`, so its renderer and GPU processes inherit the mask), so that both
// sides run on the same core. In Node (no `--browser`) the wasm runs in this process: start
// it under `taskset -c CPU node ...` to pin that side too. On the shared 2-core machine
// both sides pinned to CPU 1 passed the 1.3x goal in 4 of 5 runs
// of five, unpinned 2 of 5.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { option, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const RUNS = Math.max(1, Number(opt('--runs', 5)) || 1);
const WARMUP = Math.max(0, Number(opt('--warmup', 1)) || 0);
const TRACES = opt('--traces', 'fixed_s44 full_fit_s45 long_busy_s43 mixed_s42').split(/\s+/).filter(Boolean);
const PROFILE = opt('--profile', '');
const BIN = resolve(opt('--bin', join(ROOT, 'target/release/vmap-replay')));
const PKGS = opt('--pkg', '').split(',').filter(Boolean);
const BROWSER = args.includes('--browser');
const PIN = opt('--pin', '');
if (!PKGS.length) throw new Error('--pkg DIR is required (a wasm-pack build with --features bench)');
if (args.includes('--pin') && !/^[0-9]+([,-][0-9]+)*$/.test(PIN)) {
  throw new Error(`--pin takes a CPU list as taskset -c does (e.g. 1 or 0,1), not ${JSON.stringify(PIN)}`);
}

/** Node: the `--target nodejs` build, loaded here. */
function nodeEngine(PKG) {
  const m = createRequire(import.meta.url)(join(resolve(PKG), 'vmapviz_wasm.js'));
  if (typeof m.BenchReplay !== 'function') throw new Error(`${PKG} has no BenchReplay: build it with --features bench`);
  return {
    name: `Node ${process.version}`,
    async load(file) {
      const b = new m.BenchReplay(readFileSync(file, 'utf8'));
      return { ops: b.ops(), run: async () => timed(() => b.run(PROFILE)), free: async () => b.free() };
    },
    async close() {},
  };
}

function timed(f) {
  const t0 = process.hrtime.bigint();
  const len = f();
  return { ns: Number(process.hrtime.bigint() - t0), len };
}

/** Chromium: the `--target web` build and the trace served from a local port, timed in a page. */
async function browserEngine(PKG, browser) {
  const pkg = resolve(PKG);
  if (!existsSync(join(pkg, 'vmapviz_wasm_bg.wasm'))) throw new Error(`${PKG} has no vmapviz_wasm_bg.wasm`);
  const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.trace': 'text/plain' };
  const server = createServer((req, res) => {
    const name = basename(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const path = name.endsWith('.trace') ? join(ROOT, 'target/perf', name) : join(pkg, name || 'index.html');
    if (name === '' || name === 'index.html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title>');
    } else if (existsSync(path)) {
      res.writeHead(200, { 'content-type': types[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream' });
      res.end(readFileSync(path));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const page = await browser.newPage();
  await page.goto(url);
  await page.evaluate(async () => {
    const m = await import('/vmapviz_wasm.js');
    await m.default();
    if (typeof m.BenchReplay !== 'function') throw new Error('this build has no BenchReplay: build it with --features bench');
    window.__m = m;
  });
  return {
    name: `Chromium ${browser.version()}`,
    async load(file) {
      const ops = await page.evaluate(async (name) => {
        const text = await (await fetch(`/${name}`)).text();
        window.__b = new window.__m.BenchReplay(text);
        return window.__b.ops();
      }, basename(file));
      return {
        ops,
        run: () =>
          page.evaluate((profile) => {
            const t0 = performance.now();
            const len = window.__b.run(profile);
            return { ns: (performance.now() - t0) * 1e6, len };
          }, PROFILE),
        free: () => page.evaluate(() => window.__b.free()),
      };
    },
    async close() {
      await page.close();
      server.close();
    },
  };
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function runNative(file) {
  const a = [...(PROFILE ? ['--profile', PROFILE] : []), '--bench', file];
  const [cmd, argv] = PIN ? ['taskset', ['-c', PIN, BIN, ...a]] : [BIN, a];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const got = /ops=(\d+) ns_per_op=([0-9.]+)/.exec(r.stderr || '');
  if (r.status !== 0 || !got) throw new Error(`${BIN} on ${file}: exit ${r.status}: ${r.stderr}`);
  return { ops: Number(got[1]), ns: Number(got[2]) };
}

let browser = null;
if (BROWSER) {
  const { chromium } = await import('@playwright/test');
  let executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (PIN) {
    // `exec` keeps the process Playwright started, now under the CPU mask its children inherit.
    const wrapper = join(mkdtempSync(join(tmpdir(), 'bench-wasm-')), 'chromium-pinned');
    writeFileSync(wrapper, `#!/bin/sh\nexec taskset -c ${PIN} ${JSON.stringify(executablePath)} "$@"\n`);
    chmodSync(wrapper, 0o755);
    executablePath = wrapper;
  }
  const jsFlags = process.env.JSFLAGS ? [`--js-flags=${process.env.JSFLAGS}`] : [];
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', ...jsFlags] });
}
const engines = [];
for (const pkg of PKGS) engines.push(BROWSER ? await browserEngine(pkg, browser) : nodeEngine(pkg));
const pinned = PIN ? `   pinned to CPU ${PIN}${BROWSER ? '' : ' (native only)'}` : '';
console.log(
  `wasm (${engines[0].name}): ${PKGS.map((p) => resolve(p)).join(', ')}   native: ${BIN}   best of ${RUNS} after ${WARMUP} untimed, alternating${pinned}`,
);
try {
  for (const t of TRACES) {
    const file = join(ROOT, 'target/perf', `${t}.trace`);
    if (!existsSync(file)) throw new Error(`${file} is missing: run scripts/bench-perf.sh first`);
    const builds = [];
    for (const e of engines) builds.push(await e.load(file));
    const ops = builds[0].ops;
    if (builds.some((b) => b.ops !== ops)) throw new Error(`${t}: the builds count different operations`);
    // Per round: each build's ns/op, then the native run right after them.
    for (let r = 0; r < WARMUP; r++) {
      for (const b of builds) await b.run();
      runNative(file);
    }
    const wasmRuns = builds.map(() => []);
    const nativeRuns = [];
    let outLen = -1;
    for (let r = 0; r < RUNS; r++) {
      for (const [i, b] of builds.entries()) {
        const { ns, len } = await b.run();
        if (outLen >= 0 && len !== outLen) throw new Error(`${t}: output length differs between runs or builds`);
        outLen = len;
        wasmRuns[i].push(ns / ops);
      }
      const n = runNative(file);
      if (n.ops !== ops) throw new Error(`${t}: native counts ${n.ops} operations, wasm ${ops}`);
      nativeRuns.push(n.ns);
    }
    for (const b of builds) await b.free();
    const bestN = Math.min(...nativeRuns);
    // How much the machine moved under this trace: the native side's worst run over its best.
    const spread = Math.max(...nativeRuns) / bestN;
    for (const [i, ws] of wasmRuns.entries()) {
      const w = Math.min(...ws);
      const tag = PKGS.length > 1 ? `  ${basename(resolve(PKGS[i]))}` : '';
      console.log(
        `${t.padEnd(16)} ops=${ops} wasm_ns_per_op=${w.toFixed(1)} native_ns_per_op=${bestN.toFixed(1)} ratio=${(w / bestN).toFixed(2)}` +
          ` paired=${median(ws.map((x, r) => x / nativeRuns[r])).toFixed(2)} native_spread=${spread.toFixed(2)}` +
          ` wasm_spread=${(Math.max(...ws) / w).toFixed(2)}${tag}`,
      );
    }
  }
} finally {
  for (const e of engines) await e.close();
  await browser?.close();
}
