/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// The app lives in web/; the static site goes to dist/ with a relative base, so the same build
// works at / and under a sub-path such as GitHub Pages' /vmapviz/.
export default defineConfig({
  root: 'web',
  base: './',
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
