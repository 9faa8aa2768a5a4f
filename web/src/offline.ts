// Offline after the first visit (a lecture hall's Wi-Fi): a service worker made by Workbox (through
// vite-plugin-pwa, vite.config.ts) keeps the page, both wasm builds, every bundle and the lesson
// traces. It is registered once the page is ready, so it never competes with the first open. A new
// deployment installs beside the running one and waits: the page offers to reload into it, and
// nothing changes under a lecturer's feet until they accept.
import { registerSW } from 'virtual:pwa-register';
import { el } from './views/common';

/** Register the service worker (production builds only) and wire the update prompt. */
export function registerOffline(host: HTMLElement): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const update = registerSW({
    immediate: true,
    onNeedRefresh: () => held(host, () => void update(true)),
    onOfflineReady: () => {
      document.body.dataset.offlineReady = 'true';
    },
    onRegisterError: (e: unknown) => console.warn('vmapviz: offline copy not installed:', e),
  });
}

/**
 * Never on a projected screen: in lecture mode the prompt waits (a presenter view says a new
 * version is ready) and shows once lecture mode ends.
 */
function held(host: HTMLElement, reload: () => void): void {
  const body = document.body;
  if (!body.classList.contains('lecture')) return prompt(host, reload);
  body.dataset.updateWaiting = 'true';
  window.dispatchEvent(new Event('vmapviz:presenter-state'));
  const watch = new MutationObserver(() => {
    if (body.classList.contains('lecture')) return;
    watch.disconnect();
    prompt(host, reload);
  });
  watch.observe(body, { attributes: true, attributeFilter: ['class'] });
}

/** The update prompt: a toast with Reload and Later (one at a time). */
function prompt(host: HTMLElement, reload: () => void): void {
  if (host.querySelector('[data-testid="update-prompt"]')) return;
  const root = host.appendChild(el('div', 'undo-toast update-prompt'));
  root.setAttribute('role', 'status');
  root.dataset.testid = 'update-prompt';
  root.appendChild(el('span', 'undo-text', 'A new version of vmapviz is ready.'));
  const go = root.appendChild(el('button', 'btn btn-small primary', 'Reload'));
  go.type = 'button';
  go.addEventListener('click', () => {
    go.disabled = true;
    reload();
  });
  const later = root.appendChild(el('button', 'btn btn-small', 'Later'));
  later.type = 'button';
  later.title = 'Keep this version until the next visit';
  later.addEventListener('click', () => root.remove());
}
