// `npm run live [-- ARGS]`: build what is missing (the wasm packages, dist/, the release binary
// target/release/vmap-live), then run vmap-live with ARGS. Following this machine needs root
// (`sudo npm run live`); `npm run live -- --live-from DIR --speed 10` plays a recorded bundle.
// Ctrl-C reaches vmap-live itself (the terminal's process group), which then finishes the
// session's bundle and puts tracefs back; SIGTERM and SIGHUP sent here are passed on.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, childEnv, fail, mustRun, newestMtime, say } from './lib.mjs';
import { buildWasm } from './wasm.mjs';

const PACKAGES = ['pkg', 'pkg-workbench'].map((d) => join(ROOT, 'web', 'src', d, 'vmapviz_wasm_bg.wasm'));

export async function live(args) {
  // Built when missing only: vmap-live serves the page as it is built.
  if (!PACKAGES.every(existsSync)) await buildWasm();
  const index = join(ROOT, 'dist', 'index.html');
  if (!existsSync(index) || statSync(index).mtimeMs < newestMtime(['web', 'vite.config.ts', 'package.json'])) {
    say('app: vite build → dist/');
    await mustRun('the app build', 'vite', ['build']);
  }
  // Cargo builds it when missing or older than its sources, and says so in a second otherwise.
  await mustRun('the vmap-live build', 'cargo', ['build', '--release', '-p', 'vmapviz-live']);
  const child = spawn(join(ROOT, 'target', 'release', 'vmap-live'), ['--dist', join(ROOT, 'dist'), ...args], {
    cwd: process.cwd(),
    env: childEnv(),
    stdio: 'inherit',
  });
  process.on('SIGINT', () => {});
  for (const sig of ['SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  live(process.argv.slice(2)).catch(fail);
}
