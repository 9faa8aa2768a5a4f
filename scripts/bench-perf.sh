#!/usr/bin/env bash
# The core against the kernel's C: the four 10^6-operation traces of ../shared/perf, replayed by
# `vmap-replay --bench` (the timed loop only: parse first, then replay with output formatting).
#
#   scripts/bench-perf.sh [--runs N] [--callgrind] [--check] [--save-outputs] [--traces "a b"] [BIN ...]
#
#   BIN             vmap-replay binaries to compare (default: target/release/vmap-replay, built first).
#                   With several, runs alternate between them (run 1 of each, run 2 of each, ...),
#                   so a change in the machine's load hits every build alike.
#   --runs N        best of N per trace and binary (default 5)
#   --callgrind     also count instructions per operation under valgrind's callgrind, collecting
#                   only inside the timed function (`--toggle-collect=vmap_replay::bench`): parsing,
#                   start-up and the final write are not counted. Deterministic, unlike ns/op.
#   --check         compare each binary's full stdout on each trace with target/perf/TRACE.before.out
#   --save-outputs  write target/perf/TRACE.before.out with the first binary (the reference outputs)
#   --traces LIST   a subset (names without .trace), e.g. "fixed_s44 mixed_s42"
#   --profile NAME  replay under another profile (the traces name none: linux-5.2 by default)
#
# The traces are decompressed once into target/perf/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
perf_src="$root/../shared/perf"
dir="$root/target/perf"
runs=5
callgrind=0
check=0
save=0
traces="fixed_s44 full_fit_s45 long_busy_s43 mixed_s42"
bins=()
prof=()
psuf=""

while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    --check) check=1; shift ;;
    --save-outputs) save=1; shift ;;
    --traces) traces="$2"; shift 2 ;;
    --profile) prof=(--profile "$2"); psuf=".$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    --*) echo "bench-perf: unknown option $1" >&2; exit 2 ;;
    *) bins+=("$1"); shift ;;
  esac
done

if [ ${#bins[@]} -eq 0 ]; then
  (cd "$root" && cargo build --release -q -p vmapviz-core --bin vmap-replay)
  bins=("$root/target/release/vmap-replay")
fi
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "bench-perf: $b is not an executable" >&2; exit 2; }
done

mkdir -p "$dir"
for t in $traces; do
  if [ ! -s "$dir/$t.trace" ]; then
    xz -dc "$perf_src/$t.trace.xz" > "$dir/$t.trace.tmp" && mv "$dir/$t.trace.tmp" "$dir/$t.trace"
  fi
done

if [ "$save" = 1 ]; then
  for t in $traces; do
    "${bins[0]}" ${prof[@]+"${prof[@]}"} "$dir/$t.trace" > "$dir/$t$psuf.before.out"
    echo "saved $dir/$t$psuf.before.out ($(wc -l < "$dir/$t$psuf.before.out") lines) from ${bins[0]}"
  done
fi

if [ "$check" = 1 ]; then
  bad=0
  for b in "${bins[@]}"; do
    for t in $traces; do
      ref="$dir/$t$psuf.before.out"
      [ -s "$ref" ] || { echo "bench-perf: no $ref (run with --save-outputs on the reference build)" >&2; exit 2; }
      if "$b" ${prof[@]+"${prof[@]}"} "$dir/$t.trace" | cmp -s - "$ref"; then
        echo "output identical: $t ($b)"
      else
        echo "OUTPUT DIFFERS: $t ($b)"
        bad=1
      fi
    done
  done
  [ "$bad" = 0 ] || exit 1
fi

# best[bin index, trace] in ns/op
declare -A best
for ((r = 1; r <= runs; r++)); do
  for i in "${!bins[@]}"; do
    for t in $traces; do
      line=$("${bins[$i]}" ${prof[@]+"${prof[@]}"} --bench "$dir/$t.trace" 2>&1 >/dev/null | grep -o 'ns_per_op=[0-9.]*' | cut -d= -f2)
      [ -n "$line" ] || { echo "bench-perf: ${bins[$i]} printed no ns_per_op on $t" >&2; exit 1; }
      cur="${best[$i,$t]:-}"
      if [ -z "$cur" ] || awk -v a="$line" -v b="$cur" 'BEGIN { exit !(a < b) }'; then
        best[$i,$t]=$line
      fi
    done
  done
done

printf '%-16s' "ns/op (best of $runs)"
for t in $traces; do printf '%15s' "$t"; done
echo
for i in "${!bins[@]}"; do
  printf '%-16s' "bin $i"
  for t in $traces; do printf '%15s' "${best[$i,$t]}"; done
  echo "   ${bins[$i]}"
done

if [ "$callgrind" = 1 ]; then
  command -v valgrind > /dev/null || { echo "bench-perf: valgrind not found (apt-get install -y valgrind)" >&2; exit 2; }
  printf '%-16s' "instr/op"
  for t in $traces; do printf '%15s' "$t"; done
  echo
  for i in "${!bins[@]}"; do
    printf '%-16s' "bin $i"
    for t in $traces; do
      out="$dir/callgrind.$i.$t$psuf.out"
      err=$(valgrind --tool=callgrind --toggle-collect='vmap_replay::bench' --callgrind-out-file="$out" \
        "${bins[$i]}" ${prof[@]+"${prof[@]}"} --bench "$dir/$t.trace" 2>&1 >/dev/null)
      ops=$(printf '%s\n' "$err" | grep -o 'ops=[0-9]*' | head -1 | cut -d= -f2)
      ir=$(grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}')
      if [ -z "$ops" ] || [ -z "$ir" ] || [ "$ir" = 0 ]; then
        echo "bench-perf: callgrind collected nothing on $t (is vmap_replay::bench inlined?)" >&2
        exit 1
      fi
      printf '%15s' "$(awk -v a="$ir" -v b="$ops" 'BEGIN { printf "%.0f", a / b }')"
    done
    echo "   ${bins[$i]}"
  done
fi
