// Installs what the build needs and is missing, one progress line per step:
// npm packages, the Rust toolchain's wasm32 target (and clippy/rustfmt for the checks),
// wasm-pack, and (for the end-to-end tests) Debian's Chromium.
//
//   node scripts/setup.mjs [--checks] [--chromium]
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SetupError, bold, capture, fail, green, mustRun, say, warn, works } from './lib.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WASM_TARGET = 'wasm32-unknown-unknown';
export const WASI_TARGET = 'wasm32-wasip1';
const ok = (s) => `${s}: ${green('ok')}`;

function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    throw new SetupError(`Node ${process.versions.node} is too old: vmapviz needs Node 20.19 or newer`);
  }
  say(ok(`Node ${process.versions.node}`));
}

/** A fingerprint of the declared packages; node_modules is current when it holds the same one. */
function npmFingerprint() {
  const h = createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) {
    const p = join(ROOT, f);
    h.update(existsSync(p) ? readFileSync(p) : '');
  }
  return h.digest('hex');
}

async function npmPackages() {
  const modules = join(ROOT, 'node_modules');
  const stamp = join(modules, '.vmapviz-setup-stamp');
  const want = npmFingerprint();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) {
    say(ok('npm packages (node_modules up to date)'));
    return;
  }
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const fresh = !existsSync(modules) && existsSync(join(ROOT, 'package-lock.json'));
  const args = fresh ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  say(`installing npm packages (npm ${args[0]})`);
  await mustRun('npm package installation', npm[0], [...npm[1], ...args]);
  writeFileSync(stamp, want);
}

async function rust({ checks }) {
  if (!works('cargo')) {
    if (works('rustup')) {
      say('no default Rust toolchain: installing stable with rustup');
      await mustRun('installing the Rust toolchain', 'rustup', ['toolchain', 'install', 'stable', '--profile', 'minimal']);
      await mustRun('selecting the Rust toolchain', 'rustup', ['default', 'stable']);
    } else {
      throw new SetupError(
        'cargo was not found. Install Rust with rustup (https://rustup.rs), e.g.\n' +
          "  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal\n" +
          'then run this command again.',
      );
    }
  }
  say(ok(capture('cargo', ['--version'])?.trim() ?? 'cargo'));

  const hasRustup = works('rustup');
  const targets = hasRustup ? (capture('rustup', ['target', 'list', '--installed']) ?? '') : '';
  // The checks also run the core's tests on WASI (scripts/test-wasi.mjs).
  for (const target of checks ? [WASM_TARGET, WASI_TARGET] : [WASM_TARGET]) {
    if (targets.split(/\s+/).includes(target)) {
      say(ok(`Rust target ${target}`));
    } else if (hasRustup) {
      say(`adding the Rust target ${target}`);
      await mustRun(`rustup target add ${target}`, 'rustup', ['target', 'add', target]);
    } else {
      warn(`rustup not found: cannot check that the ${target} target is installed`);
    }
  }

  if (checks) {
    const missing = [];
    if (!works('cargo', ['fmt', '--version'])) missing.push('rustfmt');
    if (!works('cargo', ['clippy', '--version'])) missing.push('clippy');
    if (missing.length === 0) {
      say(ok('rustfmt and clippy'));
    } else if (hasRustup) {
      say(`adding the Rust components ${missing.join(', ')}`);
      await mustRun('rustup component add', 'rustup', ['component', 'add', ...missing]);
    } else {
      throw new SetupError(`the Rust components ${missing.join(', ')} are missing and rustup is not available`);
    }
  }

  if (works('wasm-pack')) {
    say(ok(capture('wasm-pack', ['--version'])?.trim() ?? 'wasm-pack'));
  } else {
    say('installing wasm-pack with `cargo install wasm-pack --locked` (a few minutes, once)');
    await mustRun('installing wasm-pack', 'cargo', ['install', 'wasm-pack', '--locked']);
  }
  if (works('wasm-opt')) {
    say(ok(`wasm-opt (${capture('wasm-opt', ['--version'])?.trim()}, npm package binaryen)`));
  } else {
    warn('wasm-opt (npm package binaryen) does not run: the wasm will not be optimised');
  }
}

/**
 * Find Debian's Chromium, installing it with apt-get when root; throws a SetupError otherwise.
 * `out`: where its lines go (`npm test` holds them for the browser step, which this runs beside).
 */
export async function chromium({ out } = {}) {
  const note = out ? (text) => out.write(`${bold('==>')} ${text}\n`) : say;
  if (existsSync(CHROMIUM)) {
    note(ok(`Chromium at ${CHROMIUM}`));
    return;
  }
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && !process.env.CHROMIUM_PATH && works('apt-get', ['--version'])) {
    note("installing Debian's Chromium (apt-get install -y chromium)");
    await mustRun('apt-get update', 'apt-get', ['update'], { out });
    await mustRun('installing Chromium', 'apt-get', ['install', '-y', 'chromium'], {
      out,
      env: { DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (existsSync(CHROMIUM)) return;
  }
  throw new SetupError(
    `Chromium was not found at ${CHROMIUM}. The end-to-end tests use Debian's Chromium:\n` +
      '  sudo apt-get install -y chromium\n' +
      'or point CHROMIUM_PATH at a Chromium or Chrome binary.',
  );
}

/** Run the set-up steps; `checks` adds rustfmt/clippy, `withChromium` the browser. */
export async function setup({ checks = false, withChromium = false } = {}) {
  say('set-up: checking the tools vmapviz needs');
  checkNode();
  await npmPackages();
  await rust({ checks });
  if (withChromium) await chromium();
  say(green('set-up done'));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  setup({ checks: args.includes('--checks'), withChromium: args.includes('--chromium') }).catch(fail);
}
