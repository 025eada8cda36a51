#!/usr/bin/env bash
# Installs (Debian's slurm-wlm, if missing) and starts a one-node Slurm
# cluster on this machine: munged, slurmctld and slurmd, all as root, with
# their configuration and state under STATE (default /tmp/heddle-slurm).
# It prints the line to eval that points Slurm's commands at it:
#
#	eval "$(deploy/slurm/start.sh)"     # then sbatch, squeue, sinfo work
#
# Run as root. deploy/slurm/stop.sh stops it. This is for tests and for
# trying heddle on Slurm; a real cluster has its own configuration.
set -euo pipefail
STATE=${1:-/tmp/heddle-slurm}
log() { echo "start.sh: $*" >&2; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
	log "installing slurm-wlm and munge"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends slurm-wlm munge >&2
fi

mkdir -p "$STATE"/{spool/ctld,spool/d,log,run}
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
conf="$STATE/slurm.conf"
cat >"$conf" <<CONF
ClusterName=heddle
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE/spool/ctld
SlurmdSpoolDir=$STATE/spool/d
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=300
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=heddle Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
# Slurm's commands and daemons read this.
export SLURM_CONF="$conf"

# munge: a key, and the daemon.
if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key 2>/dev/null || true
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/lib/munge /var/log/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
if ! munge -n >/dev/null 2>&1; then
	if id munge >/dev/null 2>&1; then
		su -s /bin/sh munge -c "munged" >&2 || munged --force >&2
	else
		munged --force >&2
	fi
fi
for i in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.2; done
munge -n | unmunge >/dev/null || { log "munge does not work"; exit 1; }

# The daemons, started afresh.
for d in slurmctld slurmd; do
	if [ -s "$STATE/run/$d.pid" ] && kill -0 "$(cat "$STATE/run/$d.pid")" 2>/dev/null; then
		kill "$(cat "$STATE/run/$d.pid")"
		sleep 1
	fi
done
slurmctld -f "$conf" -i >&2 || { log "slurmctld failed:"; tail -20 "$STATE/log/slurmctld.log" >&2; exit 1; }
slurmd -f "$conf" >&2 || { log "slurmd failed:"; tail -20 "$STATE/log/slurmd.log" >&2; exit 1; }

# Wait for the node to be idle.
for i in $(seq 150); do
	st=$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)
	case "$st" in
	idle | mix | alloc) break ;;
	esac
	sleep 0.2
done
if [ "${st:-}" != idle ] && [ "${st:-}" != mix ] && [ "${st:-}" != alloc ]; then
	log "the node is not up (state '${st:-}'):"
	sinfo >&2 || true
	tail -20 "$STATE/log/slurmctld.log" "$STATE/log/slurmd.log" >&2
	exit 1
fi
log "one-node Slurm up: node $host, $cpus CPUs, partition heddle"
echo "export SLURM_CONF='$conf'"
