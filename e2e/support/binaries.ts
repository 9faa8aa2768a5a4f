// The release binaries the end-to-end tests run (vmap-replay, vmap-live), built as the users'
// build and `npm test`'s "vmap-replay as shipped" step build them: one package set, so one
// feature set of the shared dependencies. Built with another set (`-p vmapviz-core` alone),
// cargo rebuilds the core and its dependencies, minutes on a busy machine, and the next build
// with the first set does it again.
import { execFileSync } from 'node:child_process';

const SHIPPED_BUILD = ['build', '--release', '-p', 'vmapviz-live', '-p', 'vmapviz-core', '--bin', 'vmap-live', '--bin', 'vmap-replay'];

/** Up to date in a second when `npm test` or an earlier test built them. */
export function buildShippedBinaries(): void {
  execFileSync('cargo', SHIPPED_BUILD, { stdio: 'inherit' });
}
