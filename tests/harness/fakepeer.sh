#!/bin/sh
# fakepeer.sh - a stand-in for another runtime in the command workload tests:
# "--size N" (work), its allocation sampling period from its own settings,
# as a real system takes them: FAKE_CONF=...,lg_prof_sample:K (period 2^K,
# like jemalloc's MALLOC_CONF) or an argument --interval=P (like a JVM
# agent's option), with --mode=M (its alloc_mode; poisson without).  It prints a checksum line and, when SGC_STATS names a
# file, writes a stats record (docs/FORMATS.md) with the settings it saw:
# conf (FAKE_CONF), interval, and sgc_alloc_period (SGC_ALLOC_PERIOD, which
# a foreign system must not get).  With FAKE_NOCOUNT=1 it writes no
# alloc_samples, like a sampler that keeps no count; with FAKE_SAMPLES_DIV=K
# it reports 1/K of its samples, like a count that misses most of them
# (node --heap-prof's).
size=1
interval=
mode=poisson
while [ $# -gt 0 ]; do
    case "$1" in
    --size) size=$2; shift 2 ;;
    --interval=*) interval=${1#--interval=}; shift ;;
    --mode=*) mode=${1#--mode=}; shift ;;
    *) echo "fakepeer: unknown argument $1" >&2; exit 2 ;;
    esac
done
period=0
case "${FAKE_CONF:-}" in
*lg_prof_sample:*)
    lg=${FAKE_CONF##*lg_prof_sample:}
    lg=${lg%%,*}
    period=$((1 << lg)) ;;
esac
[ -n "$interval" ] && period=$interval
bytes=$((size * 1048576))
samples=0
[ "$period" -gt 0 ] && samples=$((bytes / period))
[ -n "${FAKE_SAMPLES_DIV:-}" ] && samples=$((samples / FAKE_SAMPLES_DIV))
echo "fakepeer size $size"
echo "checksum $((size * 7919))"
if [ -n "${SGC_STATS:-}" ]; then
    count="alloc_samples $samples"
    [ "${FAKE_NOCOUNT:-}" = 1 ] && count="no_count 1"
    printf 'sgc-stats 1\nrun_ns 1000000\nbytes_allocated %s\nobjects_allocated %s\n%s\nalloc_period %s\nalloc_mode %s\ntime_samples 0\nconf %s\ninterval %s\nsgc_alloc_period %s\n' \
        "$bytes" "$((bytes / 64))" "$count" "$period" "$mode" "${FAKE_CONF:-unset}" "${interval:-unset}" \
        "${SGC_ALLOC_PERIOD:-unset}" >"$SGC_STATS"
fi
