#!/usr/bin/env bash
# Capture the workload corpus: every class of vmw.py with seeds 1, 2 and 3, pools drained, and
# each class once more with seed 4 and the pools kept (-k). Run as root; writes OUT/CLASS-sN
# and OUT/CLASS-k4 (default OUT: corpus-<kernel>).
#   usage: sudo scripts/workloads/corpus.sh [OUT] [CLASS...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-corpus-$(uname -r)}"; shift || true
classes=("$@")
[ ${#classes[@]} -gt 0 ] || classes=(forks maps progs mixed netns large idle)
mkdir -p "$out"
for c in "${classes[@]}"; do
	for s in 1 2 3; do
		"$here/../capture.sh" -o "$out/$c-s$s" -s 2 -- python3 "$here/vmw.py" "$c" "$s"
	done
	"$here/../capture.sh" -k -o "$out/$c-k4" -s 2 -- python3 "$here/vmw.py" "$c" 4
done
