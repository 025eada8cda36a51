#!/usr/bin/env bash
# heddle test -parallel 1 against -parallel 2, one test at a time, on the
# DPOR families (fam_test.go). For each strategy and family it prints:
#   wall time of each and the speedup (meaningful on a quiet machine only);
#   processor time (user+system, heddle and its workers) of each: what the
#     split costs in work, whatever the load;
#   for a split tree (dfs, sdpor): the units, the yields (units asked to
#     hand back their rest for an idle worker), the workers' idle time while
#     others explored, and the worker processes (served workers explore
#     unit after unit; HEDDLE_SERVE=0 starts one per unit) (HEDDLE_PARSTATS);
#   dup: runs of -parallel 2 minus runs of -parallel 1 (exhaustive strategies:
#     classes explored twice, or sleep-set blocked runs the split added);
#   whether the two "ok" lines are the same but for their runs (the proof,
#     the bugs).
# usage: measure.sh HEDDLE [TEST...]   (run in this directory, docs/parbench)
# STRATEGIES="dfs ipb" measures those only; odpor is split unless HEDDLE_SPLIT_ODPOR=0.
H=${1:-heddle}
shift
tests=${*:-TestReaders15 TestLastzero11 TestIndexer15}
$H test -budget 1 . >/dev/null 2>&1 # build once
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # strategy budget test
	local out tm stats
	tm=$(mktemp)
	for p in 1 2; do
		out=$(HEDDLE_PARSTATS=1 /usr/bin/time -f '%e %U %S' -o "$tm" $H test -strategy $1 -budget $2 -parallel $p -run "^$3\$" . 2>&1)
		l[$p]=$(echo "$out" | grep -E '^(ok|FAIL)' | sed 's/\t[0-9.]*s / /')
		read -r w u s <"$tm"
		t[$p]=$w
		c[$p]=$(echo "$u + $s" | bc)
		r[$p]=$(echo "${l[$p]}" | grep -oE ', [0-9]+ runs' | head -1 | grep -oE '[0-9]+')
		[ $p = 2 ] && stats=$(echo "$out" | grep '^heddle: parallel' | sed 's/^heddle: parallel [^:]*: //')
	done
	rm -f "$tm"
	same=same # the ok lines but their number of runs (dup)
	[ "$(echo "${l[1]}" | sed -E 's/, [0-9]+ runs//')" = "$(echo "${l[2]}" | sed -E 's/, [0-9]+ runs//')" ] || same="DIFFERENT: ${l[1]} | ${l[2]}"
	printf '%-6s %-15s %-8s wall p1 %6.2fs p2 %6.2fs speedup %.2f | cpu p1 %6.2fs p2 %6.2fs | dup %d | %s | %s\n' \
		$1 $3 $2 ${t[1]} ${t[2]} $(echo "${t[1]} / ${t[2]}" | bc -l) ${c[1]} ${c[2]} $((${r[2]:-0} - ${r[1]:-0})) "${stats:-not split by tree}" "$same"
}
for tst in $tests; do
	for s in ${STRATEGIES:-random pct dfs ipb sdpor odpor}; do
		case $s in
		sdpor | odpor) run $s 1000000 $tst ;;
		*) run $s 300000 $tst ;;
		esac
	done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
