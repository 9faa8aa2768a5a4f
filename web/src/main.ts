// Entry point: initialise the wasm core once, open the scenario the URL names (or the default
// one), draw it, then flag the page ready for tests and tools (`body[data-ready="true"]`).
import './style.css';
import './phone.css';
import './lessons/hall.css';
import { App } from './app';
import { errorMessage } from './bridge';
import { registerOffline } from './offline';
import { installTrapRecovery } from './trap';
import { beginTrace, coreFor, debugTrap, eraJson, initCore, loadTrace } from './wasm';
import { embedFlag, listen } from './embed';

declare global {
  interface Window {
    /** A stable hook for tests and embedding: the app and, through `app.core`, its session. */
    vmapviz?: { app: App; trap: () => void };
  }
}

async function main(): Promise<void> {
  const root = document.getElementById('app');
  if (!root) throw new Error('no #app element');
  installTrapRecovery();
  const version = await initCore();
  document.querySelector('[data-testid="core-version"]')?.replaceChildren(`core ${version}`);
  const app = new App(root, { load: loadTrace, begin: beginTrace, coreFor, eras: eraJson });
  if (embedFlag(location.hash, location.search)) app.setEmbed(true);
  // An embedding page drives the player with messages and hears where it is (docs/lecturers.md).
  const report = listen(window, {
    go: (op, step) => app.goToFrame(op, step),
    stop: (lesson, stop) => void app.openLesson(lesson, stop - 1),
    play: () => app.resume(),
    pause: () => app.pause(),
  });
  app.onFrame(() => report({ type: 'vmapviz:where', ...app.where() }));
  // `#live=1`: the feed of vmap-live (web/src/live), loaded only then.
  const live = /[#&]live=1(&|$)/.test(location.hash);
  if (live) void import('./live/live').then((m) => m.startLive(app, root, { coreFor, loadTrace, errorMessage, callers: (files) => app.showCallers(files) }));
  else app.openHash(location.hash);
  // The event's own URL, not location.hash: the page may have rewritten its link to the step
  // shown (a deferred replaceState) between the navigation and this event, which would reopen
  // the old trace.
  window.addEventListener('hashchange', (e) => app.openHash(new URL(e.newURL).hash));
  // `trap` is a test hook (e2e/trap.spec.ts): it makes the core trap as a panic would.
  window.vmapviz = { app, trap: debugTrap };
  // Swipes and taps: loaded on touch screens only.
  if (navigator.maxTouchPoints > 0 || 'ontouchstart' in window) void import('./touch').then((m) => m.installTouch(document, (a) => app.swipe(a)));
  performance.mark('vmapviz:ready');
  document.body.dataset.ready = 'true';
  // After the first open, never part of it: the offline copy (web/src/offline.ts).
  if (!live) registerOffline(document.body);
}

/**
 * Whether this engine validates a module that uses 128-bit SIMD: one function returning a
 * v128 (`i32.const 0`, `i8x16.splat`, `i8x16.popcnt`).
 */
function hasWasmSimd(): boolean {
  const probe = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7b, 3, 2, 1, 0, 10, 10, 1, 8, 0, 0x41, 0, 0xfd, 0x0f, 0xfd, 0x62, 0x0b];
  try {
    return WebAssembly.validate(new Uint8Array(probe));
  } catch {
    return false;
  }
}

main().catch((e: unknown) => {
  const banner = document.querySelector<HTMLElement>('[data-widget="load-error"]');
  if (banner) {
    banner.hidden = false;
    // The core is built with WebAssembly SIMD (.cargo/config.toml): an older engine rejects it,
    // and then that is the first thing to say (the engine's own words follow).
    banner.textContent = hasWasmSimd()
      ? `vmapviz could not start: ${errorMessage(e)}`
      : 'vmapviz could not start: this browser cannot run WebAssembly SIMD, which the core needs ' +
        `(Chrome or Edge 91+, Firefox 89+ and Safari 16.4+ can). The engine said: ${errorMessage(e)}`;
  }
  console.error(e);
});
