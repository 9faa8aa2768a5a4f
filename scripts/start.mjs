// `npm start`: set up what is missing, build wasm and the app, serve the production build.
// PORT overrides the port (default 5173).
import { pathToFileURL } from 'node:url';
import { bold, fail, run, say } from './lib.mjs';
import { setup } from './setup.mjs';
import { buildApp } from './build.mjs';

export async function start() {
  await setup();
  await buildApp();
  const port = process.env.PORT ?? '5173';
  const url = `http://127.0.0.1:${port}/`;
  say(`serving vmapviz at ${bold(url)}  (Ctrl-C to stop)`);
  const code = await run('vite', ['preview', '--host', '127.0.0.1', '--port', port, '--strictPort']);
  process.exit(code);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  start().catch(fail);
}
