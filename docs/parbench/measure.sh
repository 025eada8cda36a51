#!/usr/bin/env bash
# Wall time of heddle test -parallel 1 and -parallel 2 on the DPOR families.
# usage: measure.sh HEDDLE   (run in this directory, docs/parbench)
H=${1:-heddle}
$H test -budget 1 . >/dev/null 2>&1 # build once
run() { # strategy budget test
	for p in 1 2; do
		s=$(date +%s.%N)
		line=$($H test -strategy $1 -budget $2 -parallel $p -run "^$3\$" . 2>&1 | grep -E '^(ok|FAIL)' | sed 's/\t[0-9.]*s / /')
		e=$(date +%s.%N)
		t[$p]=$(echo "$e - $s" | bc)
		l[$p]=$line
	done
	same=same; [ "${l[1]}" = "${l[2]}" ] || same="DIFFERENT: ${l[1]} | ${l[2]}"
	printf '%-6s %-12s %-8s p1 %6.2fs p2 %6.2fs speedup %.2f  %s\n' $1 $3 $2 ${t[1]} ${t[2]} $(echo "${t[1]} / ${t[2]}" | bc -l) "$same"
}
for tst in TestReaders TestLastzero TestIndexer; do
	run random 30000 $tst
	run pct 30000 $tst
	run dfs 30000 $tst
	run sdpor 1000000 $tst
	run odpor 1000000 $tst
done
