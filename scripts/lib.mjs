// Shared helpers of the set-up, build, test and start scripts. Node built-ins only: these
// scripts run before `npm install` has put anything in node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (s) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
export const bold = paint('1');
export const green = paint('32');
export const red = paint('31');
export const yellow = paint('33');
export const dim = paint('2');

/** A progress line of the set-up or of a check: `==> text`. */
export function say(text) {
  console.log(`${bold('==>')} ${text}`);
}

export function warn(text) {
  console.log(`${yellow('warning:')} ${text}`);
}

/** A set-up error the user can act on; `fail()` prints it and exits. */
export class SetupError extends Error {}

export function fail(err) {
  if (err instanceof SetupError) {
    console.error(`${red('error:')} ${err.message}`);
  } else {
    console.error(err);
  }
  process.exit(1);
}

/** The environment every child gets: cargo's and node_modules' bin folders on PATH. */
export function childEnv(extra = {}) {
  const cargoBin = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin');
  const localBin = join(ROOT, 'node_modules', '.bin');
  const parts = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const p of [cargoBin, localBin]) {
    if (!parts.includes(p)) parts.unshift(p);
  }
  return { ...process.env, PATH: parts.join(delimiter), ...extra };
}

/** Whether `cmd args` runs and exits 0 (output swallowed). */
export function works(cmd, args = ['--version']) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: childEnv(), stdio: 'ignore' });
  return r.status === 0;
}

/** Output of `cmd args`, or null when it does not run. */
export function capture(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: childEnv(), encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

/**
 * Run a command; resolves to its exit code (127 when it cannot start). Its output is inherited,
 * or, with `opts.out` (an object with `write(chunk)`), both of its streams go there. With
 * `opts.nice` (1-19) it runs at that lower CPU priority, where `nice` exists.
 */
export function run(cmd, args, opts = {}) {
  return new Promise((res) => {
    const out = opts.out;
    const line = dim(`$ ${[cmd, ...args].join(' ')}`);
    if (out) out.write(`${line}\n`);
    else console.log(line);
    if (opts.nice && process.platform !== 'win32' && works('nice', ['true'])) {
      [cmd, args] = ['nice', ['-n', String(opts.nice), cmd, ...args]];
    }
    const child = spawn(cmd, args, { cwd: ROOT, env: childEnv(opts.env), stdio: out ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (out) {
      child.stdout.on('data', (b) => out.write(b));
      child.stderr.on('data', (b) => out.write(b));
    }
    child.on('error', (e) => {
      const msg = `${red('error:')} cannot run ${cmd}: ${e.message}`;
      if (out) out.write(`${msg}\n`);
      else console.error(msg);
      res(127);
    });
    child.on('close', (code, signal) => res(code ?? (signal ? 128 : 1)));
  });
}

/** Run a command and throw a SetupError when it fails. */
export async function mustRun(what, cmd, args, opts) {
  const code = await run(cmd, args, opts);
  if (code !== 0) throw new SetupError(`${what} failed (\`${[cmd, ...args].join(' ')}\` exited with ${code})`);
}

/** Newest modification time (ms) of the files under `paths`, skipping build folders. */
export function newestMtime(paths) {
  let newest = 0;
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) {
        if (name === 'target' || name === 'node_modules' || name.startsWith('.')) continue;
        walk(join(p, name));
      }
    } else {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const p of paths) walk(resolve(ROOT, p));
  return newest;
}

export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** A `--name VALUE` option of the command line (`dflt` when absent), for the bench scripts. */
export function option(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
}

/** A free TCP port on 127.0.0.1 (for preview servers). */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/** Wait until `url` answers 200 (a server starting), at most `ms`. */
export async function waitFor(url, ms = 30_000) {
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() - t0 > ms) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * For the page benchmarks: build (unless `build` is false), serve dist/ (or `outDir`) with
 * `vite preview` on a free port and launch Chromium. `close()` ends both.
 */
export async function servePage({ build = true, outDir } = {}) {
  if (build) {
    say('build: node scripts/build.mjs');
    await mustRun('the build', 'node', ['scripts/build.mjs']);
  }
  const { chromium } = await import('@playwright/test');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const dir = outDir ? ['--outDir', outDir] : [];
  const server = spawn(join(ROOT, 'node_modules/.bin/vite'), ['preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort', ...dir], {
    cwd: ROOT,
    env: childEnv(),
    stdio: 'ignore',
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const close = async () => {
    await browser.close();
    server.kill();
  };
  try {
    await waitFor(url);
  } catch (e) {
    await close();
    throw e;
  }
  return { url, browser, close };
}

/**
 * Run in a page (`page.evaluate(watchFrames)`): record the longest gap between animation frames
 * from now on in `window.__gap`, until `window.__stop` is set.
 */
export function watchFrames() {
  const w = window;
  w.__gap = 0;
  w.__stop = false;
  let last = performance.now();
  const tick = (t) => {
    w.__gap = Math.max(w.__gap, t - last);
    last = t;
    if (!w.__stop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
