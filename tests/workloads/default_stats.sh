#!/bin/sh
# default_stats.sh BINDIR [RUNS] - runs every workload of workloads/workloads.list
# that BINDIR holds at its default size RUNS times (default 5) with SGC_STATS and
# prints, for the median run by CPU time: wall time, CPU time (perf task-clock
# when available), bytes and objects allocated, allocation rate per CPU second,
# minor/major collections, time in GC and its share of the wall time, peak heap.
# Figures, not pass/fail: the machine's load shows in the wall times.
set -u
bindir=$1; runs=${2:-5}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
have_perf=0
perf stat -x, -e task-clock -o "$tmp/p" true >/dev/null 2>&1 && have_perf=1
printf "%-12s %7s %7s %9s %10s %9s %6s %5s %7s %5s %8s\n" workload wall_s cpu_s alloc_MiB objects MiB/cpu_s minor major gc_s gc_% peak_MiB
for w in $(sed -e 's/#.*//' workloads/workloads.list); do
    [ -x "$bindir/$w" ] || continue
    i=0
    : > "$tmp/rows"
    while [ $i -lt "$runs" ]; do
        i=$((i + 1))
        if [ $have_perf = 1 ]; then
            SGC_STATS=$tmp/s perf stat -x, -e task-clock -o "$tmp/p" "$bindir/$w" >/dev/null ||
                { echo "$w: run failed"; continue; }
            cpu=$(grep task-clock "$tmp/p" | cut -d, -f1)
        else
            SGC_STATS=$tmp/s "$bindir/$w" >/dev/null || { echo "$w: run failed"; continue; }
            cpu=0
        fi
        awk -v w="$w" -v cpu="$cpu" '{ v[$1] = $2 }
            END { r = v["run_ns"] / 1e9; c = cpu / 1000; mb = v["bytes_allocated"] / 1048576;
                  printf "%-12s %7.3f %7.3f %9.1f %10d %9.1f %6d %5d %7.3f %5.1f %8.1f\n", w, r, c, mb,
                         v["objects_allocated"], (c > 0 ? mb / c : 0), v["minor_collections"],
                         v["major_collections"], v["gc_ns"] / 1e9, 100 * v["gc_ns"] / v["run_ns"],
                         v["peak_heap_bytes"] / 1048576 }' "$tmp/s" >> "$tmp/rows"
    done
    sort -k3 -n "$tmp/rows" | sed -n "$(( (runs + 1) / 2 ))p"
done
