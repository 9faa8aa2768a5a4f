/// <reference types="vitest/config" />
import { createReadStream, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const OUT_DIR = resolve(import.meta.dirname, 'dist');
/** What is worth compressing, and the type each is served with. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json',
};

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/**
 * dist/ carries a `.br` and a `.gz` beside every text and wasm file (static hosts that look for
 * them send them as they are), so the page arrives compressed: the wasm is 651 KB, 167 KB as brotli.
 */
function precompress(): Plugin {
  return {
    name: 'vmapviz-precompress',
    apply: 'build',
    closeBundle() {
      for (const f of files(OUT_DIR)) {
        if (!(extname(f) in TYPES)) continue;
        const body = readFileSync(f);
        if (body.length < 1024) continue;
        const br = brotliCompressSync(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        });
        writeFileSync(`${f}.br`, br);
        writeFileSync(`${f}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

/**
 * `vite preview` (and so `npm start`) sends a file's `.br` or `.gz` when the browser accepts it;
 * anything else falls through to Vite's own static server.
 */
function compressedPreview(): Plugin {
  return {
    name: 'vmapviz-compressed-preview',
    configurePreviewServer(server) {
      const base = server.config.base.startsWith('/') ? server.config.base : '/';
      server.middlewares.use((req, res, next) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') return next();
        let path: string;
        try {
          path = decodeURIComponent((req.url ?? '/').split(/[?#]/)[0]);
        } catch {
          return next();
        }
        if (!path.startsWith(base)) return next();
        path = path.slice(base.length);
        if (path === '' || path.endsWith('/')) path += 'index.html';
        const file = normalize(join(OUT_DIR, path));
        const type = TYPES[extname(file)];
        if (!type || !file.startsWith(OUT_DIR) || !existsSync(file)) return next();
        const accept = String(req.headers['accept-encoding'] ?? '');
        const enc = /\bbr\b/.test(accept) && existsSync(`${file}.br`) ? 'br' : /\bgzip\b/.test(accept) && existsSync(`${file}.gz`) ? 'gzip' : null;
        if (!enc) return next();
        const body = `${file}.${enc === 'br' ? 'br' : 'gz'}`;
        res.setHeader('Content-Type', type);
        res.setHeader('Content-Encoding', enc);
        res.setHeader('Content-Length', String(statSync(body).size));
        res.setHeader('Vary', 'Accept-Encoding');
        res.setHeader('Cache-Control', 'no-cache');
        if (req.method === 'HEAD') return res.end();
        createReadStream(body).pipe(res);
      });
    },
  };
}

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
  plugins: [
    benchmarks(),
    // The offline copy (web/src/offline.ts): Workbox precaches every file the page can ask for,
    // the workbench's chunk, workers and wasm included, so a hall without Wi-Fi still has the
    // whole tool after one visit. No web manifest (not an installable app), no inline script
    // (the strict CSP of index.html): the page registers the worker from its own bundle.
    VitePWA({
      registerType: 'prompt',
      injectRegister: false,
      manifest: false,
      workbox: {
        globPatterns: ['**/*.{html,js,css,wasm,md}'],
        // The workbench's wasm build is about 0.9 MB; Workbox's default cap is 2 MiB.
        maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
        cleanupOutdatedCaches: true,
        // Links carry their trace after '#', which never reaches the worker: any navigation
        // gets the cached page.
        navigateFallback: 'index.html',
      },
    }),
    precompress(),
    compressedPreview(),
  ],
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every browser of the es2022 target preloads modules itself: no polyfill (with two pages it
    // became a chunk of its own on the first open).
    modulePreload: { polyfill: false },
    // The page, and the presenter view a lesson opens in a second window (web/src/presenter/).
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, 'web/index.html'),
        presenter: resolve(import.meta.dirname, 'web/presenter.html'),
      },
    },
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
