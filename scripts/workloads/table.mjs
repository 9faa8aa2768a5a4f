// The corpus table: each capture bundle replayed by vmap-replay --import capture --report json,
// one Markdown row per bundle (allocations, equal, explained by kind, unexplained, final state,
// purges).
//
//   node scripts/workloads/table.mjs [--bin PATH] BUNDLE_DIR...
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';

const args = process.argv.slice(2);
let bin = 'target/release/vmap-replay';
if (args[0] === '--bin') {
  bin = args[1];
  args.splice(0, 2);
}
if (!args.length) {
  console.error('usage: node scripts/workloads/table.mjs [--bin PATH] BUNDLE_DIR...');
  process.exit(2);
}

// Explained allocations by the unknown of the start state they rest on.
const kinds = (r) => {
  const shape = r.search_path ?? 0;
  const held = (r.explained_held ?? 0) + (r.explained_blocks ?? 0) + (r.resolved_held_pieces ?? 0);
  const lengths = r.explained_pool_lengths ?? 0;
  const rest = r.explained - shape - held - lengths; // pool entries and busy areas' nodes
  return [
    rest && `${rest} pool/node`,
    shape && `${shape} tree shape`,
    held && `${held} held`,
    lengths && `${lengths} pool length`,
  ]
    .filter(Boolean)
    .join(', ');
};

// Of the explained allocations, those after an unexplained one (read on from the model
// steered to the kernel's address there).
const after = (r) => (r.explained_after_miss ? `; ${r.explained_after_miss} of them after a miss` : '');

console.log('| capture | allocations | equal | explained (by unknown) | unexplained | final busy | purges equal |');
console.log('|---|---:|---:|---|---:|---|---:|');
for (const dir of args) {
  let r;
  try {
    r = JSON.parse(execFileSync(bin, ['--import', 'capture', '--report', 'json', dir], { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 28 }));
  } catch (e) {
    console.log(`| ${basename(dir)} | — | — | — | — | replay failed: ${String(e.message).split('\n')[0]} | — |`);
    continue;
  }
  const fin = r.final_busy_equal === true ? 'equal' : r.final_busy_equal === false ? '**differs**' : 'no after file';
  const unexpl = r.unexplained ? `**${r.unexplained}**` : '0';
  console.log(
    `| ${basename(dir)} | ${r.allocations} | ${r.equal} | ${r.explained}${r.explained ? ` (${kinds(r)}${after(r)})` : ''} | ${unexpl} | ${fin} | ${r.purges_equal} of ${r.purges} |`,
  );
}
