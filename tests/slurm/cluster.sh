#!/bin/sh
# cluster.sh start DIR | stop DIR - a single-node Slurm on this machine, for
# tests: munged, slurmctld and slurmd started as root with their key, config,
# state, spool, logs and sockets in DIR (nothing under /etc or /var), on two
# free TCP ports, the node offering the CPUs this process may use.  `stop`
# cancels what is still queued and ends exactly the daemons `start` started
# (by the pids in DIR).  After `start`, `. DIR/env` sets SLURM_CONF for the
# Slurm commands.
#
# The configuration that works without cgroups (a container, a VM without
# delegated cgroup controllers): ProctrackType=proctrack/linuxproc (tracks a
# job's processes by parentage), TaskPlugin=task/none (no binding: tasks keep
# slurmd's CPU affinity, the CPUs this process may use), no accounting
# storage, no job accounting gatherer, an empty plugin stack
# (docs/HARNESS.md, "Sharding and Slurm").
# Exit status: 0 done; 1 a daemon did not start (its log's last lines are
# printed); 2 usage, not root, or Slurm/munge not installed.
set -u
me="cluster.sh"
[ $# -eq 2 ] || { echo "usage: sh tests/slurm/cluster.sh start|stop DIR" >&2; exit 2; }
cmd=$1
dir=$2

stop() {
    [ -f "$dir/env" ] && . "$dir/env"
    if [ -f "$dir/slurmctld.pid" ] && command -v scancel >/dev/null; then
        scancel --quiet --full --user=root 2>/dev/null
        # Jobs end (their processes killed by their slurmstepd) before the daemons go.
        i=0
        while [ $i -lt 30 ] && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do sleep 1; i=$((i + 1)); done
    fi
    for d in slurmd slurmctld munge/munged; do
        f="$dir/$d.pid"
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        [ -n "$pid" ] && kill "$pid" 2>/dev/null
        i=0
        while [ $i -lt 50 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
        rm -f "$f"
    done
    return 0
}

case "$cmd" in
stop) stop; exit 0 ;;
start) ;;
*) echo "usage: sh tests/slurm/cluster.sh start|stop DIR" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || { echo "$me: slurmd must run as root" >&2; exit 2; }
for p in munged slurmctld slurmd sbatch squeue scancel; do
    command -v "$p" >/dev/null || { echo "$me: $p is not installed (Debian: slurm-wlm and munge; make deps)" >&2; exit 2; }
done
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 2
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" || exit 2
chmod 700 "$dir/munge"
chmod 755 "$dir"
# Two free ports (bound once to learn them; Slurm binds them right after).
ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))') || exit 1
set -- $ports
ctld_port=$1 slurmd_port=$2
host=$(hostname -s)
cpus=$(nproc)
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$dir/munge/munge.key"
: >"$dir/plugstack.conf"
cat >"$dir/slurm.conf" <<EOF
# A single-node Slurm for freecheck's tests (tests/slurm/cluster.sh).
ClusterName=freecheck-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
KillWait=5
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
echo "SLURM_CONF=$dir/slurm.conf; export SLURM_CONF" >"$dir/env"
. "$dir/env"
started() { # NAME LOG: the daemon's log tail on failure
    echo "$me: $1 did not start; last lines of $2:" >&2
    tail -n 15 "$2" >&2 2>/dev/null
    stop
    exit 1
}
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" --log-file="$dir/log/munged.log" ||
    started munged "$dir/log/munged.log"
slurmctld -i || started slurmctld "$dir/log/slurmctld.log"
slurmd || started slurmd "$dir/log/slurmd.log"
# Wait until the node is idle (at most 120 s: slow on a busy machine).
i=0
while [ $i -lt 240 ]; do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null)
    case "$state" in idle*) echo "$me: Slurm is up: node $host, $cpus CPU(s), partition test, SLURM_CONF=$dir/slurm.conf"; exit 0 ;; esac
    sleep 0.5
    i=$((i + 1))
done
echo "$me: the node did not become idle (state '$state')" >&2
started slurmd "$dir/log/slurmd.log"
