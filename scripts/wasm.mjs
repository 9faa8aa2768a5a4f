// Builds the WebAssembly facade (core/wasm) twice with wasm-pack (release, wasm-opt from the npm
// package binaryen; 128-bit SIMD on, see .cargo/config.toml):
//   web/src/pkg           the page's first screen: sessions, states, frames (no default features)
//   web/src/pkg-workbench the workbench and its worker: everything (feature `workbench`)
// The first is what the page loads on open; the second comes with the workbench on first use.
// Each is skipped when its output is newer than every Rust source; `--force` rebuilds anyway.
//
//   node scripts/wasm.mjs [--force]
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SetupError, fail, green, mustRun, newestMtime, say } from './lib.mjs';

const BUILDS = [
  { dir: 'pkg', what: 'the view build', cargoArgs: ['--no-default-features'] },
  { dir: 'pkg-workbench', what: 'the workbench build', cargoArgs: [] },
];
// What the wasm is built from (core/live, the vmap-live server, is not).
const SOURCES = ['core/src', 'core/wasm', 'core/build.rs', 'core/Cargo.toml', 'Cargo.toml', 'Cargo.lock', '.cargo'];
const FILES = ['vmapviz_wasm_bg.wasm', 'vmapviz_wasm.js', 'vmapviz_wasm.d.ts'];

const outputs = (dir) => FILES.map((f) => join(ROOT, 'web', 'src', dir, f));

function upToDate(dir) {
  const files = outputs(dir);
  if (!files.every(existsSync)) return false;
  const built = Math.min(...files.map((f) => statSync(f).mtimeMs));
  return built > newestMtime(SOURCES);
}

export async function buildWasm({ force = false } = {}) {
  for (const b of BUILDS) {
    if (!force && upToDate(b.dir)) {
      say(`wasm: ${b.what} ${green('up to date')} (web/src/${b.dir} is newer than core/)`);
      continue;
    }
    say(`wasm: ${b.what}: wasm-pack build core/wasm --release into web/src/${b.dir} (the first build also compiles wasm-bindgen-cli)`);
    await mustRun(`the wasm build (${b.what})`, 'wasm-pack', [
      'build',
      'core/wasm',
      '--target',
      'web',
      '--out-dir',
      `../../web/src/${b.dir}`,
      '--release',
      '--',
      ...b.cargoArgs,
    ]);
    if (!outputs(b.dir).every(existsSync)) throw new SetupError(`wasm-pack finished but web/src/${b.dir} is incomplete`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildWasm({ force: process.argv.includes('--force') }).catch(fail);
}
