#!/bin/sh
# sample_instructions.sh BENCH_BIN WORKDIR [MIB] - the allocation sampler's
# overhead in instructions: callgrind counts everything the allocation loop
# of "sample-bench loop" executes (the loop, the slow path, the sampler, the
# profile writer, the collector; system calls excluded) with sampling off
# and at each period from 32 KiB to 32 MiB.  Exact and free of the machine's
# noise, unlike times; the profile is written to WORKDIR/loop.prof.
bench=$1; work=$2; mib=${3:-64}
if [ -z "$bench" ] || [ -z "$work" ]; then
    echo "usage: sample_instructions.sh BENCH_BIN WORKDIR [MIB]" >&2
    exit 2
fi
command -v valgrind >/dev/null || { echo "sample_instructions: valgrind is not installed" >&2; exit 1; }
mkdir -p "$work" || exit 1
count() {
    out="$work/callgrind.loop.$1"
    valgrind --tool=callgrind --toggle-collect=churn --callgrind-out-file="$out" \
        "$bench" loop --period "$1" --mib "$mib" --profile "$work/loop.prof" >/dev/null 2>"$work/valgrind.log" ||
        { echo "sample_instructions: run at period $1 failed:" >&2; tail -n 5 "$work/valgrind.log" >&2; exit 1; }
    sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out"
}
base=$(count 0) || exit 1
echo "# instructions of a ${mib} MiB allocation loop (callgrind), sampling off: $base"
echo "# marginal: extra instructions per extra sample against the next larger period"
echo "# (the first sample of a run also pays once for interning names and stack nodes)"
printf "%-8s %9s %16s %12s %10s\n" period samples instructions overhead_% marginal
rows=""
for p in 32768 65536 131072 262144 524288 1048576 2097152 4194304 8388608 16777216 33554432; do
    ir=$(count $p) || exit 1
    rows="$rows $p:$ir"
done
echo "$rows" | tr ' ' '\n' | grep : | awk -F: -v b=$base -v mib=$mib '
    { p[NR] = $1; ir[NR] = $2; n[NR] = int(mib * 1048576 / $1) } 
    END {
        for (i = 1; i <= NR; i++) {
            label = p[i] >= 1048576 ? sprintf("%dM", p[i] / 1048576) : sprintf("%dK", p[i] / 1024);
            m = (i < NR && n[i] > n[i + 1]) ? sprintf("%.0f", (ir[i] - ir[i + 1]) / (n[i] - n[i + 1])) : "-";
            printf "%-8s %9d %16d %12.4f %10s\n", label, n[i], ir[i], 100 * (ir[i] - b) / b, m
        }
    }'
