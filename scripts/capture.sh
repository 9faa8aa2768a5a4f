#!/usr/bin/env bash
# Capture this machine's vmalloc allocator for `vmap-replay --import capture DIR`: a bundle of
#   vmallocinfo.before.gz  /proc/vmallocinfo before the workload (real addresses: kptr_restrict=1)
#   trace.txt.gz           the ftrace `vmalloc` events during it (alloc_vmap_area,
#                          free_vmap_area_noflush, purge_vmap_area_lazy), and the vmap node
#                          shrinker's runs (vmscan mm_shrink_slab_start, filtered to it)
#   vmallocinfo.after.gz   /proc/vmallocinfo after it
#   cpus.txt               the possible CPUs, then the online ones (cpulists)
#   uname.txt              uname -r
#
# usage: sudo scripts/capture.sh [-o DIR] [-b KB_PER_CPU] [-k] [-s SEC] [-- CMD [ARG...]]
#   -o DIR   where to write the bundle (default: capture-<kernel>-<date>)
#   -b KB    ring buffer per CPU in KiB (default 65536); a capture that lost events says so
#   -k       keep the vmap pools as they are (default: drain them first, see below)
#   -s SEC   after the workload, trace SEC more seconds (default 1): frees the kernel defers
#            (a task's stack after RCU, vfree_atomic's work) land in the trace, not after it
#   CMD      the workload; without it, capture until Ctrl-C
#
# Before the before file is read, `echo 2 > /proc/sys/vm/drop_caches` runs the shrinkers. Since
# 6.10 ("mm: vmalloc: add a shrinker to drain vmap pools") one of them is the vmap node shrinker,
# whose scan does a full decay of every node's pools: their areas go back to the free tree. The
# pools are what vmallocinfo cannot show, so after the drain the before file is the whole state
# but for one unknown, the node each busy area goes back to. Lazy areas stay (no purge is done).
# The drain runs with the events on, and a marker after it says so: the replay then knows that
# no pool holds an entry from before the capture.
#
# It runs as root, mounts tracefs if needed, records into a trace instance of its own (the
# global buffer is left alone), and puts kptr_restrict back as it found it. The "before" file is
# read with the events on (a marker in the trace says when the read ended); the "after" file is
# read just after they are switched off (SEC seconds after the workload): an allocation or a
# free in that gap is in it but not in the trace (the replay makes such frees: the file shows
# them lazy).
set -euo pipefail

out=""
kb=65536
drain=1
settle=1
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out="$2"; shift 2 ;;
	-b) kb="$2"; shift 2 ;;
	-k) drain=0; shift ;;
	-s) settle="$2"; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "capture.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "capture.sh: run it as root (sudo $0 ...)" >&2; exit 1; }
case "$kb" in ''|*[!0-9]*) echo "capture.sh: -b takes a number of KiB" >&2; exit 2 ;; esac
case "$settle" in ''|*[!0-9]*) echo "capture.sh: -s takes a number of seconds" >&2; exit 2 ;; esac
[ -n "$out" ] || out="capture-$(uname -r)-$(date +%Y%m%d-%H%M%S)"

T=/sys/kernel/tracing
if [ ! -e "$T/events" ]; then
	mount -t tracefs nodev "$T" 2>/dev/null || true
fi
if [ ! -e "$T/events" ] && [ -e /sys/kernel/debug/tracing/events ]; then
	T=/sys/kernel/debug/tracing
fi
[ -e "$T/events" ] || { echo "capture.sh: no tracefs (mount -t tracefs nodev /sys/kernel/tracing failed)" >&2; exit 1; }
[ -e "$T/events/vmalloc/enable" ] || {
	echo "capture.sh: this kernel has no vmalloc trace events (they came in 6.3: trace/events/vmalloc.h)" >&2
	exit 1
}

mkdir -p "$out"
inst="$T/instances/vmapviz-capture.$$"
shrink=events/vmscan/mm_shrink_slab_start
kptr=$(cat /proc/sys/kernel/kptr_restrict)
cleanup() {
	if [ -d "$inst" ]; then
		echo 0 > "$inst/tracing_on" 2>/dev/null || true
		echo 0 > "$inst/events/vmalloc/enable" 2>/dev/null || true
		echo 0 > "$inst/$shrink/enable" 2>/dev/null || true
		rmdir "$inst" 2>/dev/null || true
	fi
	echo "$kptr" > /proc/sys/kernel/kptr_restrict
}
trap cleanup EXIT
mkdir "$inst"
echo 0 > "$inst/tracing_on"
echo "$kb" > "$inst/buffer_size_kb"
echo 1 > "$inst/events/vmalloc/enable"

uname -r > "$out/uname.txt"
{ cat /sys/devices/system/cpu/possible; cat /sys/devices/system/cpu/online; } > "$out/cpus.txt"

# kptr_restrict=1: root reads the real addresses (0 would too; 2 hides them).
echo 1 > /proc/sys/kernel/kptr_restrict
# The vmap node shrinker (6.10 on) gives back every pool whole, which no vmalloc event traces;
# its runs are in the vmscan events, here only its own (a filter on its scan function; all
# shrinkers' if the filter is refused: the replay reads the vmap node's).
scan=$(awk '$3 == "vmap_node_shrink_scan" { print $1; exit }' /proc/kallsyms)
if [ -n "$scan" ] && [ -e "$inst/$shrink/enable" ]; then
	echo "shrink == 0x$scan" > "$inst/$shrink/filter" 2>/dev/null || true
	echo 1 > "$inst/$shrink/enable"
fi
# The events are on while the before file is read, and a marker says when it was read to its
# end: an allocation or a free during the read is then in the trace, and the replay leaves out
# those the file already shows (a node's list printed after them).
echo 1 > "$inst/tracing_on"
# Drain the pools (the vmap node shrinker's full decay, traced where they held entries) just
# before the before file is read.
if [ "$drain" = 1 ]; then
	echo 2 > /proc/sys/vm/drop_caches
	echo "vmapviz: pools drained" > "$inst/trace_marker"
fi
cat /proc/vmallocinfo > "$out/vmallocinfo.before"
echo "vmapviz: vmallocinfo.before read" > "$inst/trace_marker"
gzip -f "$out/vmallocinfo.before"

status=0
if [ $# -gt 0 ]; then
	echo "capture.sh: tracing while $* runs" >&2
	"$@" || status=$?
else
	echo "capture.sh: tracing; press Ctrl-C to stop" >&2
	stop=""
	trap 'stop=1' INT
	while [ -z "$stop" ]; do sleep 1; done
	trap - INT
fi

sleep "$settle"
echo 0 > "$inst/tracing_on"
cat /proc/vmallocinfo | gzip > "$out/vmallocinfo.after.gz"
echo "$kptr" > /proc/sys/kernel/kptr_restrict
echo 0 > "$inst/events/vmalloc/enable"
echo 0 > "$inst/$shrink/enable" 2>/dev/null || true
cat "$inst/trace" | gzip > "$out/trace.txt.gz"

lost=0
for s in "$inst"/per_cpu/cpu*/stats; do
	n=$(awk '/^overrun:/ {print $2}' "$s")
	lost=$((lost + ${n:-0}))
done
events=$(zcat "$out/trace.txt.gz" | grep -c -v '^#' || true)
echo "capture.sh: $events events in $out" >&2
if [ "$lost" -gt 0 ]; then
	echo "capture.sh: the ring buffer lost $lost events: capture again with a larger -b (now $kb KiB per CPU)" >&2
	status=3
fi
[ "$status" = 0 ] || echo "capture.sh: exit status $status" >&2
exit "$status"
