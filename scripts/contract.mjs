// Rewrite web/src/contract/contract.ts, the TypeScript declarations of the JSON the wasm facade
// returns, from the Rust types (core/wasm/tests/contract.rs with VMAPVIZ_WRITE_CONTRACT=1).
// `npm test` fails while the committed file differs from what the Rust types generate.
//
//   npm run contract
import { fail, green, mustRun, say } from './lib.mjs';

try {
  await mustRun('the contract generation', 'cargo', ['test', '--release', '-p', 'vmapviz-wasm', '--test', 'contract'], {
    env: { VMAPVIZ_WRITE_CONTRACT: '1' },
  });
  say(`contract: web/src/contract/contract.ts ${green('written')}`);
} catch (e) {
  fail(e);
}
