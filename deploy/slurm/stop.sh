#!/usr/bin/env bash
# Stops the Slurm daemons deploy/slurm/start.sh started (by their pid
# files under STATE, default /tmp/heddle-slurm), and waits for them to
# exit. munged is left running.
set -euo pipefail
STATE=${1:-/tmp/heddle-slurm}
pids=()
for d in slurmd slurmctld; do
	if [ -s "$STATE/run/$d.pid" ]; then
		pid=$(cat "$STATE/run/$d.pid")
		if kill "$pid" 2>/dev/null; then
			pids+=("$pid")
		fi
	fi
done
for pid in "${pids[@]}"; do
	for i in $(seq 100); do
		# Gone, or a zombie its parent has not reaped.
		if ! kill -0 "$pid" 2>/dev/null || grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
done
