// For the Vitest tests: the core's registry as the page's build of the core reports it, read
// under Node (the page reads it in web/src/wasm.ts).
import { readFileSync } from 'node:fs';
import { parseEras, type Era } from './eras';
import * as page from './pkg/vmapviz_wasm.js';

let eras: Era[] | null = null;

export function coreEras(): Era[] {
  if (!eras) {
    page.initSync({ module: readFileSync(new URL('./pkg/vmapviz_wasm_bg.wasm', import.meta.url)) });
    eras = parseEras(page.eras());
  }
  return eras;
}
