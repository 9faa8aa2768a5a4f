// Full-fit traces of other seeds and hole sizes than ../shared/perf/full_fit_s45, for the
// comparison against the kernel's own C (BENCHMARKS.md, "The core against the kernel's C"). The shape:
//   a busy area of 0x2000 at VMALLOC_START, then J junk pairs: a hole of H bytes, then a busy
//   area of 0x2000 (the holes are freed: each is bounded by busy areas, so nothing merges);
//   then churn: `alloc H` (the lowest hole: a full fit) or, at random (seeded), `free` of one
//   of the areas so placed, keeping at least K of them live; then everything is freed.
// With KEEP 0 the churn frees each area right after its alloc, as full_fit_s45 does (the
// same lowest hole every time; the seed then changes nothing). 10^6 alloc/free lines in all,
// at `align 1` in the vmalloc window, in the trace language of ../shared/conformance/README.md.
// Every address is the one the kernel's code returns (the lowest free hole), so a faithful
// replay prints no `unknown` and no `FAIL`.
//
//   node scripts/gen-full-fit.mjs SEED HOLE JUNK KEEP > T.trace
//   e.g. node scripts/gen-full-fit.mjs 3 0x5000 4096 512 > ff_s3_h5.trace
const [seed, hole, junk, keep] = process.argv.slice(2).map(Number);
if (![seed, hole, junk, keep].every(Number.isSafeInteger) || hole <= 0 || hole % 0x1000 || junk <= 0 || keep < 0) {
  console.error('usage: node scripts/gen-full-fit.mjs SEED HOLE JUNK KEEP (HOLE a page multiple, JUNK > 0)');
  process.exit(2);
}
const OPS = 1_000_000;
const BUSY = 0x2000n;
const VS = 0xffffc90000000000n;
const VE = 0xffffe8ffffffffffn;
const H = BigInt(hole);
const hex = (n) => `0x${n.toString(16)}`;
// mulberry32: a small seeded generator, so that a seed names one trace everywhere.
let s = seed >>> 0;
const rand = () => {
  s = (s + 0x6d2b79f5) >>> 0;
  let t = s;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const out = [`# gen-full-fit seed=${seed} hole=${hex(H)} junk=${junk} keep=${keep}`, 'init 0x1 0xffffffffffffffff'];
const alloc = () => out.push(`alloc ${hex(H)} 0x1 ${hex(VS)} ${hex(VE)}`);
const holes = [];
// A first busy area at VMALLOC_START, as full_fit_s45 has: else the lowest hole touches the
// free block below the window, and its churn is a right-edge clip and a merge, not a full fit.
out.push(`alloc ${hex(BUSY)} 0x1 ${hex(VS)} ${hex(VE)}`);
const busy = [VS];
let addr = VS + BUSY;
for (let i = 0; i < junk; i++) {
  alloc();
  holes.push(addr);
  addr += H;
  out.push(`alloc ${hex(BUSY)} 0x1 ${hex(VS)} ${hex(VE)}`);
  busy.push(addr);
  addr += BUSY;
}
for (const h of holes) out.push(`free ${hex(h)}`);
// The free holes in address order: the allocator takes the lowest.
const free = holes.slice();
const live = [];
let ops = 3 * junk + 1;
while (ops < OPS - live.length - junk) {
  if (keep === 0 ? !live.length : live.length <= keep || rand() < 0.5) {
    if (!free.length) break;
    alloc();
    live.push(free.shift());
  } else {
    const [a] = live.splice(Math.floor(rand() * live.length), 1);
    out.push(`free ${hex(a)}`);
    let i = free.findIndex((f) => f > a);
    if (i < 0) i = free.length;
    free.splice(i, 0, a);
  }
  ops++;
}
for (const a of live) out.push(`free ${hex(a)}`);
for (const b of busy) out.push(`free ${hex(b)}`);
process.stdout.write(out.join('\n') + '\n');
