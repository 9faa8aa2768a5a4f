// Where the preview servers of playwright.config.ts listen (`npm test` picks free ports).
export const PORT = Number(process.env.E2E_PORT ?? 4317);
export const SUBPATH_PORT = Number(process.env.E2E_SUBPATH_PORT ?? 4318);
export const BASE_URL = `http://127.0.0.1:${PORT}/`;
/** The production build served under a sub-path, as on GitHub Pages. */
export const SUBPATH_URL = `http://127.0.0.1:${SUBPATH_PORT}/vmapviz/`;
