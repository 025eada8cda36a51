#!/usr/bin/env bash
# Measures heddle test -shard without contention: for each n given, it runs
# the n shards of one exploration one after the other on this machine
# (each alone, as on n idle machines), merges them, and prints what heddle
# merge measured (runs and wall time per shard, setup, idle from
# imbalance, processes, runs made twice) and the cluster speedup this
# projects: one process's wall time over the slowest shard's, were the n
# shards started together on n machines like this one.
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
now() { date +%s.%N; }
"$heddle" test -o "$dir/warm" "$@" >/dev/null 2>&1 || true # build caches warm
t0=$(now)
"$heddle" test -o "$dir/one" "$@" >"$dir/one.out" 2>&1 || true
t1=$(now)
calc() { awk "BEGIN { print $1 }"; }
one=$(calc "$t1 - $t0")
printf 'one process: %.2fs\n' "$one"
for n in $ns; do
	for ((i = 0; i < n; i++)); do
		"$heddle" test -shard "$i/$n" -result "$dir/n$n/shard-$i.json" -o "$dir/n$n/s" "$@" >"$dir/n$n.out" 2>&1 || [ $? -le 1 ]
	done
	"$heddle" merge -o "$dir/n$n/merged" "$dir"/n$n/shard-*.json >"$dir/n$n.merge" || true
	"$heddle" merge -json -o "$dir/n$n/merged" "$dir"/n$n/shard-*.json >"$dir/n$n.json" || true
	max=$(sed -n 's/.*"seconds_max": \([0-9.e+-]*\).*/\1/p' "$dir/n$n.json")
	setup=$(sed -n 's/.*"setup_seconds_mean": \([0-9.e+-]*\).*/\1/p' "$dir/n$n.json")
	echo "n=$n: $(tail -2 "$dir/n$n.merge" | head -1)"
	echo "n=$n: $(tail -1 "$dir/n$n.merge")"
	printf 'n=%d: projected speedup on %d machines: %.1fx (one process %.2fs / slowest shard %.2fs); without the setup every shard repeats: %.1fx\n' \
		"$n" "$n" "$(calc "$one / $max")" "$one" "$max" "$(calc "$one / ($max - $setup)")"
done
