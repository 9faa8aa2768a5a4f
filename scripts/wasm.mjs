// Builds the WebAssembly facade (core/wasm) into web/src/pkg with wasm-pack (release, wasm-opt
// from the npm package binaryen). Skipped when the output is newer than every Rust source;
// `--force` rebuilds anyway.
//
//   node scripts/wasm.mjs [--force]
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SetupError, fail, green, mustRun, newestMtime, say } from './lib.mjs';

export const PKG = join(ROOT, 'web', 'src', 'pkg');
const OUTPUTS = ['vmapviz_wasm_bg.wasm', 'vmapviz_wasm.js', 'vmapviz_wasm.d.ts'].map((f) => join(PKG, f));
const SOURCES = ['core', 'Cargo.toml', 'Cargo.lock'];

export function wasmUpToDate() {
  if (!OUTPUTS.every(existsSync)) return false;
  const built = Math.min(...OUTPUTS.map((f) => statSync(f).mtimeMs));
  return built > newestMtime(SOURCES);
}

export async function buildWasm({ force = false } = {}) {
  if (!force && wasmUpToDate()) {
    say(`wasm: ${green('up to date')} (web/src/pkg is newer than core/)`);
    return;
  }
  say('wasm: wasm-pack build core/wasm --release (the first build also compiles wasm-bindgen-cli)');
  await mustRun('the wasm build', 'wasm-pack', [
    'build',
    'core/wasm',
    '--target',
    'web',
    '--out-dir',
    '../../web/src/pkg',
    '--release',
  ]);
  if (!OUTPUTS.every(existsSync)) throw new SetupError('wasm-pack finished but web/src/pkg is incomplete');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildWasm({ force: process.argv.includes('--force') }).catch(fail);
}
