// Cargo's runner for wasm32-wasip1 test binaries (scripts/test-wasi.mjs): runs one under Node's
// WASI with the whole file system visible, so that tests find ../shared by its absolute path.
//
//   node scripts/wasi-run.mjs TEST.wasm [libtest arguments]
//
// The binary runs in a child process with `--single-threaded-gc`, which reports its exit code and
// is then killed: Node 20 crashed (SIGSEGV, once SIGABRT) at the end of some long test binaries,
// after their summary, every time with V8's concurrent GC threads (the capture tests), and for one
// binary (the imports') even without them. Such a crash after libtest
// printed `test result: ok.` (and before the binary returned, so with no exit code reported) counts
// as that result, with a line that says so; every other crash fails.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';

if (process.argv[2] === '--child') {
  const [file, ...args] = process.argv.slice(3);
  const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: process.env, preopens: { '/': '/' }, returnOnExit: true });
  const instance = await WebAssembly.instantiate(await WebAssembly.compile(readFileSync(file)), wasi.getImportObject());
  const code = wasi.start(instance);
  process.send({ code }, () => process.kill(process.pid, 'SIGKILL'));
} else {
  // stdout passes through; its tail is kept, for a child that crashed after libtest's summary
  // (read at the end: a pipe may cut the summary line in two).
  let code = null;
  let tail = '';
  const child = fork(fileURLToPath(import.meta.url), ['--child', ...process.argv.slice(2)], {
    stdio: ['inherit', 'pipe', 'inherit', 'ipc'],
    execArgv: ['--single-threaded-gc', '--no-warnings'],
  });
  child.stdout.on('data', (d) => {
    process.stdout.write(d);
    tail = (tail + String(d)).slice(-8192);
  });
  child.on('message', (m) => (code = m.code));
  child.on('close', (_, signal) => {
    const summary = (tail.match(/^test result: .*$/gm) ?? ['']).at(-1);
    if (code === null && signal !== null && summary.startsWith('test result: ok.')) {
      console.error(`wasi-run: Node crashed (${signal}) after the binary printed its summary (see the header); its result stands`);
      code = 0;
    }
    // No report and no summary: the binary itself crashed (a trap, out of memory).
    process.exit(code ?? 1);
  });
}
