// The production build: wasm (release) → tsc --noEmit → vite build into dist/.
//
//   node scripts/build.mjs
import { pathToFileURL } from 'node:url';
import { fail, mustRun, say } from './lib.mjs';
import { buildWasm } from './wasm.mjs';

export async function buildApp() {
  await buildWasm();
  say('typecheck: tsc --noEmit');
  await mustRun('the type check', 'tsc', ['--noEmit']);
  say('app: vite build → dist/');
  await mustRun('the app build', 'vite', ['build']);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildApp().catch(fail);
}
