#!/bin/sh
# gc_callgrind.sh GC_BENCH OUTDIR - instructions per small-object allocation,
# counted exactly by callgrind.  Runs "gc-bench loop N" for two values of N
# and divides the difference in instructions executed inside loop_sgc (and
# everything it calls) by the difference in N, so start-up and the loop's
# set-up cancel out.  Twice: with a 256 MiB nursery (no collection at all:
# the fast path alone, plus the loop's own store, load, add, compare) and
# with the default nursery (minor collections amortized in).
bench=$1; out=$2
command -v valgrind >/dev/null 2>&1 || { echo "gc_callgrind: valgrind is not installed" >&2; exit 1; }
mkdir -p "$out"
n1=1000000; n2=3000000
count() { # nursery n -> instructions inside loop_sgc
    if [ -n "$1" ]; then env_n="SGC_NURSERY=$1"; else env_n="-u SGC_NURSERY"; fi
    env $env_n valgrind --tool=callgrind --toggle-collect=loop_sgc \
        --callgrind-out-file="$out/callgrind.$2.$1.out" "$bench" loop "$2" >/dev/null 2>"$out/callgrind.log" ||
        { echo "gc_callgrind: valgrind failed, see $out/callgrind.log" >&2; exit 1; }
    sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' "$out/callgrind.$2.$1.out" | head -n 1
}
for nursery in 256M ""; do
    i1=$(count "$nursery" $n1); i2=$(count "$nursery" $n2)
    [ -n "$i1" ] && [ -n "$i2" ] || { echo "gc_callgrind: no instruction totals in the callgrind output" >&2; exit 1; }
    per=$(echo "$i1 $i2 $n1 $n2" | awk '{ printf "%.2f", ($2 - $1) / ($4 - $3) }')
    echo "instructions per allocation loop iteration (callgrind, nursery ${nursery:-default}): $per"
done
# Where the amortized instructions go.  Note: valgrind counts each byte of a
# "rep stosb" (glibc's memset for blocks of a few KiB) as one instruction,
# while the CPU does it in a few cycles per 64-byte line, so the memset line
# overstates the real cost of zeroing the nursery.
if command -v callgrind_annotate >/dev/null 2>&1; then
    echo "instructions by function, nursery default, N=$n2:"
    callgrind_annotate "$out/callgrind.$n2..out" 2>/dev/null |
        sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%)  \(.*\)$/  \1  \2/p' | grep -E 'TOTALS|\.[chS]:' | head -n 6
fi
