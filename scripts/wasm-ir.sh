#!/usr/bin/env bash
# wasm against native in instructions: how many x86 instructions one replay executes
# per operation as V8 compiles our wasm, beside the native binary's count on the same trace.
# Deterministic (valgrind's callgrind counts the instructions that V8's generated code runs),
# where ns/op on a shared 2-core machine moves by tens of percent from run to run.
#
#   scripts/wasm-ir.sh --pkg DIR [--bin BIN] [--traces "a b"] [--profile NAME]
#
# DIR  a `--target nodejs` build with the bench feature (BenchReplay):
#        wasm-pack build core/wasm --target nodejs --out-dir /tmp/pkg-node --release -- \
#            --no-default-features --features bench
# BIN  the native binary (default target/release/vmap-replay), counted as bench-perf.sh
#      --callgrind counts it: inside `vmap_replay::bench` only.
#
# Node parses the trace (in wasm), then replays it once, and in a second process twice, each
# under callgrind; the difference of the two totals is one replay, parse and compilation
# excluded. Node runs with `--no-liftoff --no-wasm-tier-up --single-threaded`: every function is
# compiled by TurboFan, the optimising tier that runs a hot loop in Chromium too, on its first
# call and on the main thread, so both processes compile exactly the same code. (Node's V8 is
# older than Chromium's: the counts describe V8's code generation, not one browser's.)
#
# Prints per trace: wasm Ir/op, native Ir/op, their ratio. About 2 minutes per trace.
#
# `--by-function N`: also where V8's instructions go, the N wasm functions that run
# the most per operation. Node prints the code it generates (`--print-wasm-code`: each
# function's name and the address of every instruction) and callgrind counts per instruction
# (`--dump-instr=yes`); the two processes' difference per function is one replay's. Names come
# from the wasm's name section when it has one (a build kept with `wasm-bindgen --keep-debug`
# and `wasm-opt -g`), else `wasm-function[index]`. Release builds strip it: for names, build
# with `CARGO_PROFILE_RELEASE_STRIP=none` and run wasm-bindgen and wasm-opt by hand with those
# flags.
# `--kinds`: the same replay's instructions by kind, V8's beside the native
# binary's: frame-slot traffic (a register spilled and reloaded, or a value kept in the frame),
# `lea` (address arithmetic: wasm has no base + index * scale addressing of its own, so V8
# computes `slab + handle * 8` before each access), register moves, unconditional jumps, V8's
# stack checks at loop heads, other memory accesses, branches and the rest. V8's from its
# listing (as `--by-function`), the native binary's from `objdump -d` of the instructions
# callgrind counted.
# Run scripts/bench-perf.sh first: it decompresses the traces into target/perf/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pkg="" bin="$root/target/release/vmap-replay" profile="" traces="fixed_s44 full_fit_s45 long_busy_s43 mixed_s42" byfn=0 kinds=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pkg) pkg=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --traces) traces=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --by-function) byfn=$2; shift 2 ;;
    --kinds) kinds=1; shift ;;
    -h|--help) sed -n 2,40p "$0"; exit 0 ;;
    *) echo "wasm-ir.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$pkg" ] || { echo "wasm-ir.sh: --pkg DIR is required (a --target nodejs build with --features bench)" >&2; exit 2; }
pkg=$(cd "$pkg" && pwd)
[ -f "$pkg/vmapviz_wasm.js" ] || { echo "wasm-ir.sh: $pkg has no vmapviz_wasm.js" >&2; exit 2; }
[ -x "$bin" ] || { echo "wasm-ir.sh: $bin is not an executable" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "wasm-ir.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/run.cjs" <<'EOF'
// node run.cjs PKG TRACE K PROFILE: parse, then K replays.
const [pkg, trace, k, profile] = process.argv.slice(2);
const m = require(`${pkg}/vmapviz_wasm.js`);
const b = new m.BenchReplay(require('node:fs').readFileSync(trace, 'utf8'));
let len = 0;
for (let i = 0; i < Number(k); i++) len += b.run(profile ?? '');
console.log(`ops=${b.ops()} len=${len}`);
EOF

# The N functions of V8's code that ran the most between two runs: node attr.cjs N OPS CG1 CODE1
# CG2 CODE2 (callgrind's per-instruction counts, `--print-wasm-code`'s listing of the same run).
cat > "$tmp/attr.cjs" <<'EOF'
const fs = require('node:fs');
const [n, ops, cg1, code1, cg2, code2] = process.argv.slice(2);
// Instructions per address: callgrind's `--dump-instr=yes` lines are `ADDR COST...`, with ADDR
// absolute (0x...), relative to the last one (+N, -N) or the same (*); a `calls=` line's next
// line is the call's inclusive cost, not the instruction's own.
function counts(file) {
  const cost = new Map();
  let last = 0, skip = false, costAt = 1;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('positions:')) costAt = line.split(/\s+/).length - 1;
    if (line.startsWith('calls=')) { skip = true; continue; }
    const f = line.split(' ');
    if (!/^(0x[0-9a-f]+|[+-][0-9]+|\*)$/.test(f[0])) continue;
    const a = f[0] === '*' ? last : f[0].startsWith('0x') ? parseInt(f[0], 16) : last + Number(f[0]);
    last = a;
    if (skip) { skip = false; continue; }
    if (f.length > costAt) cost.set(a, (cost.get(a) ?? 0) + Number(f[costAt]));
  }
  return cost;
}
// Per function of the listing: the sum over its instructions' addresses.
function perFunction(cgFile, codeFile) {
  const cost = counts(cgFile), total = new Map();
  let name = null;
  for (const line of fs.readFileSync(codeFile, 'utf8').split('\n')) {
    if (line.startsWith('name: ')) { name = line.slice(6).trim(); continue; }
    const m = /^0x([0-9a-f]+)\s/.exec(line);
    if (m && name) total.set(name, (total.get(name) ?? 0) + (cost.get(parseInt(m[1], 16)) ?? 0));
  }
  return total;
}
// The kind of one x86 instruction, from V8's listing (`REX.W movq r8,[rbp-0x98]`) or objdump's
// Intel syntax (`mov rax,QWORD PTR [rsp+0x18]`).
function kind(text) {
  const t = text.replace(/^REX\.W /, '').replace(/ PTR /g, ' ').trim();
  const [op, ...rest] = t.split(/\s+/);
  const args = rest.join(' ');
  const m = op.replace(/^(mov|lea|cmp|add|sub|and|or|xor|test)[bwlq]$/, '$1');
  if (m === 'cmp' && /^rsp,/.test(args)) return 'stack check';
  if (/\[(rbp-|rsp[+\]])/.test(args) || m === 'push' || m === 'pop') return 'frame slot';
  if (m === 'lea') return 'lea';
  if (m === 'mov' && /^[a-z0-9]+,[a-z0-9]+$/.test(args) && !/,(0x)?[0-9]/.test(args)) return 'register move';
  if (m === 'jmp') return 'jump';
  if (/^j/.test(m)) return 'branch';
  if (args.includes('[')) return 'other memory';
  return 'other';
}
const KINDS = ['frame slot', 'lea', 'register move', 'jump', 'stack check', 'other memory', 'branch', 'other'];
// Per kind: a listing's instructions (`re` takes the address and the text of a line: V8's
// `--print-wasm-code` or objdump's) weighted by a callgrind file's counts.
const V8_LINE = /^0x([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+(.*)$/, OBJDUMP_LINE = /^\s*([0-9a-f]+):\s+(.*)$/;
function kinds(cgFile, listing, re) {
  const cost = counts(cgFile), out = new Map();
  for (const line of fs.readFileSync(listing, 'utf8').split('\n')) {
    const m = re.exec(line);
    const c = m ? cost.get(parseInt(m[1], 16)) ?? 0 : 0;
    if (c) out.set(kind(m[2]), (out.get(kind(m[2])) ?? 0) + c);
  }
  return out;
}
if (n === 'range') {
  // node attr.cjs range CG: the lowest and highest address counted, for objdump.
  const cost = counts(process.argv[3]);
  const as = [...cost.keys()];
  console.log(`${Math.min(...as)} ${Math.max(...as) + 16}`);
} else if (n === 'kinds') {
  // node attr.cjs kinds OPS CG1 CODE1 CG2 CODE2 NATIVE_CG NATIVE_DIS
  const [, , , , , , ncg, ndis] = process.argv.slice(2);
  const a = kinds(cg1, code1, V8_LINE), b = kinds(cg2, code2, V8_LINE), nat = kinds(ncg, ndis, OBJDUMP_LINE);
  console.log(`  ${'kind'.padEnd(14)} ${'V8 Ir/op'.padStart(9)} ${'native'.padStart(9)} ${'V8 - native'.padStart(12)}`);
  for (const k of KINDS) {
    const w = ((b.get(k) ?? 0) - (a.get(k) ?? 0)) / Number(ops), x = (nat.get(k) ?? 0) / Number(ops);
    console.log(`  ${k.padEnd(14)} ${w.toFixed(1).padStart(9)} ${x.toFixed(1).padStart(9)} ${(w - x).toFixed(1).padStart(12)}`);
  }
} else {
  const a = perFunction(cg1, code1), b = perFunction(cg2, code2);
  const rows = [...b].map(([k, v]) => [(v - (a.get(k) ?? 0)) / Number(ops), k]).sort((x, y) => y[0] - x[0]);
  for (const [v, k] of rows.slice(0, Number(n))) console.log(`  ${v.toFixed(1).padStart(8)} Ir/op  ${k.slice(0, 100)}`);
}
EOF

# Total instructions of a command under callgrind (all of it, or inside FN only).
ir() {
  local out="$tmp/cg.out" fn=$1; shift
  local opts=(--tool=callgrind --callgrind-out-file="$out")
  if [ "$byfn" != 0 ] || [ "$kinds" = 1 ]; then opts+=(--dump-instr=yes); fi
  [ -n "$fn" ] && opts+=(--toggle-collect="$fn")
  valgrind "${opts[@]}" --smc-check=all-non-file "$@" >"$tmp/stdout" 2>"$tmp/stderr" || {
    echo "wasm-ir.sh: failed: $*" >&2; tail -5 "$tmp/stderr" >&2; exit 1; }
  grep -m1 'Collected' "$tmp/stderr" | awk '{gsub(",", "", $NF); print $NF}'
}

node_flags=(--no-liftoff --no-wasm-tier-up --single-threaded)
if [ "$byfn" != 0 ] || [ "$kinds" = 1 ]; then node_flags+=(--print-wasm-code); fi
listing() { [ "$byfn" != 0 ] || [ "$kinds" = 1 ]; }
prof=()
[ -n "$profile" ] && prof=(--profile "$profile")
printf '%-16s %12s %12s %8s\n' trace "wasm Ir/op" "native Ir/op" ratio
for t in $traces; do
  f="$root/target/perf/$t.trace"
  [ -s "$f" ] || { echo "wasm-ir.sh: $f is missing: run scripts/bench-perf.sh first" >&2; exit 1; }
  ops=$(grep -cE '^(alloc|free|vfree|purge)\b' "$f")
  one=$(ir "" node "${node_flags[@]}" "$tmp/run.cjs" "$pkg" "$f" 1 "$profile")
  len1=$(sed -n 's/^ops=.* len=//p' "$tmp/stdout")
  if listing; then mv "$tmp/cg.out" "$tmp/cg1.out"; mv "$tmp/stdout" "$tmp/code1.txt"; fi
  two=$(ir "" node "${node_flags[@]}" "$tmp/run.cjs" "$pkg" "$f" 2 "$profile")
  len2=$(sed -n 's/^ops=.* len=//p' "$tmp/stdout")
  if listing; then mv "$tmp/cg.out" "$tmp/cg2.out"; mv "$tmp/stdout" "$tmp/code2.txt"; fi
  # Both replays wrote the whole output: twice the bytes of one.
  [ -n "$len1" ] && [ "$len2" = $((2 * len1)) ] || {
    echo "wasm-ir.sh: $t: one replay wrote ${len1:-nothing} bytes, two wrote ${len2:-nothing}" >&2; exit 1; }
  native=$(ir 'vmap_replay::bench' "$bin" "${prof[@]}" --bench "$f")
  awk -v t="$t" -v a="$one" -v b="$two" -v n="$native" -v o="$ops" \
    'BEGIN { w = (b - a) / o; x = n / o; printf "%-16s %12.1f %12.1f %8.2f\n", t, w, x, w / x }'
  if [ "$byfn" != 0 ]; then
    node "$tmp/attr.cjs" "$byfn" "$ops" "$tmp/cg1.out" "$tmp/code1.txt" "$tmp/cg2.out" "$tmp/code2.txt"
  fi
  if [ "$kinds" = 1 ]; then
    read -r lo hi < <(node "$tmp/attr.cjs" range "$tmp/cg.out")
    objdump -d --no-show-raw-insn -M intel --start-address="$lo" --stop-address="$hi" "$bin" > "$tmp/native.dis"
    node "$tmp/attr.cjs" kinds "$ops" "$tmp/cg1.out" "$tmp/code1.txt" "$tmp/cg2.out" "$tmp/code2.txt" "$tmp/cg.out" "$tmp/native.dis"
  fi
done
