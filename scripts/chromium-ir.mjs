// wasm in the page's own engine, counted: how many x86 instructions Chromium's
// renderer executes per operation while `BenchReplay` replays a perf trace. Deterministic to
// about 0.2 %, where a timed run on this shared 2-core machine moves by several percent, and
// it is Chromium's V8 (the engine the page runs), not Node's older one (scripts/wasm-ir.sh),
// whose code differs: the null gap (`NULL_GAP`, core/src/area.rs) saved 4.6 % of full_fit_s45's
// instructions here and about 1 % there.
//
//   wasm-pack build core/wasm --target web --out-dir /tmp/pkg-web --release -- \
//       --no-default-features --features bench
//   node scripts/chromium-ir.mjs --pkg /tmp/pkg-web[,/tmp/pkg-web2...] [--traces "full_fit_s45 mixed_s42"] [--runs N]
//
// Chromium starts its renderers under valgrind (`--renderer-cmd-prefix`) with callgrind's
// instrumentation off, so that the page loads at valgrind's uninstrumented speed. The page
// parses the trace and replays it once untimed (V8 compiles the module up front:
// `--no-liftoff --no-wasm-tier-up`, flags for this count only). Then, per measurement, the
// script zeroes the page renderer's counters (`callgrind_control -z`), has the page replay the
// trace once, and dumps them (`-d`), `--runs N` times (default 3): the least and the most
// instructions per operation of those replays. The renderer's other threads count too (a GC, a
// compositor frame): the least is the replay's own, the most shows how much else ran. The
// page's call into the replay is a few thousand instructions, nothing per operation. About 30 s
// per build and trace. Needs valgrind (apt) and /usr/bin/chromium (or CHROMIUM_PATH). Run
// scripts/bench-perf.sh first: it decompresses the traces.
import { chromium } from '@playwright/test';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { option, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
if (args.includes('-h') || args.includes('--help')) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(0, 22).join('\n'));
  process.exit(0);
}
const PKGS = option(args, '--pkg', '').split(',').filter(Boolean);
const TRACES = option(args, '--traces', 'full_fit_s45').split(/\s+/).filter(Boolean);
const RUNS = Number(option(args, '--runs', '3'));
if (!PKGS.length) {
  console.error('chromium-ir: --pkg DIR[,DIR...] is required (a --target web build with --features bench)');
  process.exit(2);
}
for (const t of TRACES) {
  if (!existsSync(join(ROOT, 'target/perf', `${t}.trace`))) {
    console.error(`chromium-ir: target/perf/${t}.trace is missing: run scripts/bench-perf.sh first`);
    process.exit(1);
  }
}

/** One build in its own browser, whose renderers run under callgrind; returns Ir/op per trace. */
async function count(pkgDir) {
  const pkg = resolve(pkgDir);
  if (!existsSync(join(pkg, 'vmapviz_wasm_bg.wasm'))) throw new Error(`${pkgDir} has no vmapviz_wasm_bg.wasm`);
  const out = mkdtempSync(join(tmpdir(), 'chromium-ir-'));
  const types = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const server = createServer((req, res) => {
    const name = basename(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const path = name.endsWith('.trace') ? join(ROOT, 'target/perf', name) : join(pkg, name);
    if (!name) return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>ir</title>');
    if (!existsSync(path)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': types[path.slice(path.lastIndexOf('.'))] ?? 'text/plain' });
    res.end(readFileSync(path));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const prefix = `valgrind --tool=callgrind --instr-atstart=no --smc-check=all-non-file --callgrind-out-file=${out}/cg.%p`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    timeout: 600_000,
    args: ['--no-sandbox', '--disable-gpu', `--renderer-cmd-prefix=${prefix}`, '--js-flags=--no-liftoff --no-wasm-tier-up'],
  });
  const rows = [];
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(1_800_000);
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.evaluate(async () => {
      const m = await import('/vmapviz_wasm.js');
      await m.default();
      if (typeof m.BenchReplay !== 'function') throw new Error('this build has no BenchReplay: build it with --features bench');
      window.__m = m;
    });
    // Every renderer runs under callgrind; the page's is the one whose count the replay moves.
    const pids = execFileSync('pgrep', ['-f', 'valgrind.*type=renderer'], { encoding: 'utf8' }).trim().split(/\s+/);
    const control = (flag) => {
      for (const pid of pids) execFileSync('callgrind_control', [flag, pid], { stdio: 'ignore' });
    };
    // The largest total of the last dump of each renderer.
    const dumped = () => {
      let most = 0;
      for (const pid of pids) {
        const last = readdirSync(out)
          .filter((f) => f.startsWith(`cg.${pid}.`))
          .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
          .pop();
        if (!last) continue;
        const text = readFileSync(join(out, last), 'utf8');
        most = Math.max(most, Number((/^(?:totals|summary): (\d+)/m.exec(text) ?? [0, 0])[1]));
      }
      return most;
    };
    control('--instr=on');
    for (const t of TRACES) {
      const ops = await page.evaluate(async (name) => {
        window.__b?.free();
        window.__b = new window.__m.BenchReplay(await (await fetch(`/${name}.trace`)).text());
        window.__b.run('');
        return window.__b.ops();
      }, t);
      const replays = async (k) => {
        control('-z');
        await page.evaluate((k) => {
          for (let i = 0; i < k; i++) window.__b.run('');
        }, k);
        control('-d');
        return dumped();
      };
      const counts = [];
      for (let i = 0; i < RUNS; i++) counts.push((await replays(1)) / ops);
      rows.push({ t, ops, least: Math.min(...counts), most: Math.max(...counts) });
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(out, { recursive: true, force: true });
  }
  return rows;
}

console.log(`Chromium's renderer under callgrind: x86 instructions per operation of one replay, ${RUNS} replays`);
console.log(`${'trace'.padEnd(16)} ${'least'.padStart(8)} ${'most'.padStart(8)}  build`);
for (const p of PKGS) {
  for (const r of await count(p)) {
    const f = (x) => x.toFixed(1).padStart(8);
    console.log(`${r.t.padEnd(16)} ${f(r.least)} ${f(r.most)}  ${basename(resolve(p))}`);
  }
}
