#!/usr/bin/env bash
# Measures heddle test -shard without contention between shards: for each
# n given, it runs the n shards of one exploration one after the other on
# this machine (each alone, as on n machines), merges them, and prints
# what heddle merge measured (runs, wall and processor time per shard,
# setup, idle from imbalance, processes, runs made twice) and the cluster
# speedup this projects: one process's processor time over the slowest
# shard's, were the n shards started together on n machines like this
# one. Processor time (user and system, of heddle and its children) is
# used because a machine shared with other work inflates wall time; the
# wall-time projection is printed too.
#
#	cd examples && ../deploy/bench-shards.sh "8 32 128" -strategy random -budget 10000 -keep-going ./...
#
# HEDDLE is the heddle command (default: heddle). Results go to
# ${BENCH_DIR:-/tmp/heddle-bench-shards}.
set -euo pipefail
ns=$1
shift
heddle=${HEDDLE:-heddle}
dir=${BENCH_DIR:-/tmp/heddle-bench-shards}
rm -rf "$dir"
mkdir -p "$dir"
"$heddle" test -o "$dir/warm" "$@" >/dev/null 2>&1 || true # build caches warm
calc() { awk "BEGIN { print $1 }"; }
TIMEFORMAT='%3R %3U %3S'
t=$({ time "$heddle" test -o "$dir/one" "$@" >"$dir/one.out" 2>&1 || true; } 2>&1)
one=$(echo "$t" | awk '{ print $1 }')
onecpu=$(echo "$t" | awk '{ print $2 + $3 }')
printf 'one process: %.2fs wall, %.2fs processor\n' "$one" "$onecpu"
for n in $ns; do
	for ((i = 0; i < n; i++)); do
		"$heddle" test -shard "$i/$n" -result "$dir/n$n/shard-$i.json" -o "$dir/n$n/s" "$@" >"$dir/n$n.out" 2>&1 || [ $? -le 1 ]
	done
	"$heddle" merge -o "$dir/n$n/merged" "$dir"/n$n/shard-*.json >"$dir/n$n.merge" || true
	"$heddle" merge -json -o "$dir/n$n/merged" "$dir"/n$n/shard-*.json >"$dir/n$n.json" || true
	field() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$dir/n$n.json"; }
	max=$(field seconds_max)
	cpumax=$(field cpu_seconds_max)
	cpusetup=$(field setup_cpu_seconds_mean)
	echo "n=$n: $(tail -2 "$dir/n$n.merge" | head -1)"
	echo "n=$n: $(tail -1 "$dir/n$n.merge")"
	printf 'n=%d: projected speedup on %d machines: %.1fx (one process %.2fs / slowest shard %.2fs, processor time); without the setup every shard repeats: %.1fx; in wall time on this machine: %.1fx\n' \
		"$n" "$n" "$(calc "$onecpu / $cpumax")" "$onecpu" "$cpumax" "$(calc "$onecpu / ($cpumax - $cpusetup)")" "$(calc "$one / $max")"
done
