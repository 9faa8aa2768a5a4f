/// <reference types="vitest/config" />
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';

/** BENCHMARKS.md next to the page (the charts tab links to it), in the build and the dev server. */
function benchmarks(): Plugin {
  const file = new URL('./BENCHMARKS.md', import.meta.url);
  return {
    name: 'vmapviz-benchmarks',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'BENCHMARKS.md', source: readFileSync(file, 'utf8') });
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (!req.url?.endsWith('/BENCHMARKS.md')) return next();
        res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
        res.end(readFileSync(file, 'utf8'));
      });
    },
  };
}

// The app lives in web/; the static site goes to dist/ with a relative base, so the same build
// works at / and under a sub-path such as GitHub Pages' /vmapviz/.
export default defineConfig({
  root: 'web',
  base: './',
  plugins: [benchmarks()],
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 5173 },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // Some tests replay real traces through the wasm builds: CPU-bound, slower on a loaded CI machine.
    testTimeout: 60_000,
  },
});
