#!/usr/bin/env bash
# Soak: replay >= 10^7 operations under every profile, streaming a generated workload into
# `vmap-replay --check-every`, and report the time and the peak memory of each replay.
# Not part of `npm test` (it takes minutes). Usage: scripts/soak.sh [LOOPS] [CHECK_EVERY]
#   LOOPS        workload loops (default 5000000: 10^7 operations for fix_size_alloc_test)
#   CHECK_EVERY  invariant check period in operations (default 100000)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
loops=${1:-5000000}
every=${2:-100000}
cargo build --release -q -p vmapviz-core --bin vmap-replay
bin=target/release/vmap-replay
timer=/usr/bin/time
[ -x "$timer" ] || { echo "soak: /usr/bin/time is missing (apt-get install -y time)" >&2; exit 2; }
printf '%-10s %-28s %12s %10s %12s\n' profile workload operations seconds peak_rss_MB
for profile in linux-5.1 linux-5.2 linux-6.1 linux-6.9; do
  for w in fix_size_alloc_test long_busy_list_alloc_test random_size_align_alloc_test; do
    n=$loops
    # The O(N) 5.1 walk over 15,000 busy areas is slow by design: a tenth of the loops.
    if [ "$profile" = linux-5.1 ] && [ "$w" != fix_size_alloc_test ]; then n=$((loops / 10)); fi
    log=$(mktemp)
    ops=$("$bin" --workload "$w" --loops "$n" --profile "$profile" --cpus 4 --threads 1 | tee >(grep -c . > "$log.lines") |
      "$timer" -f '%e %M' -o "$log" "$bin" --check-every "$every" --profile "$profile" - | wc -l)
    read -r secs kb < "$log"
    printf '%-10s %-28s %12s %10s %12.1f\n' "$profile" "$w" "$(cat "$log.lines")" "$secs" "$(echo "$kb / 1024" | bc -l)"
    rm -f "$log" "$log.lines"
    [ "$ops" -gt 0 ]
  done
done
