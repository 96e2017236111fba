#!/bin/sh
# sample_cost_check.sh SCRIPT BIN WORK - the allocation sample cost benchmark
# (runtime/bench/sample_cost.py, make bench-sample-cost) on small inputs:
#  1. every case's on and off totals are callgrind's own (its "totals:" lines,
#     read here), the total is on - off, and the parts add up to it exactly;
#  2. the counts it divides by are exact: 4000 samples in the sample-bench
#     cases (every 64-byte allocation at period 64), floor(sampled_bytes /
#     32768) in the workloads, every time sample taken written in the time
#     cases (gcbench, deepstack); 1 frame interned in all (the cached stack)
#     and exactly 10 per sample with 10 fresh frames;
#  3. the counts repeat: the cached case measured again gives the same row
#     (a time case's do not: its samples come in real time).
script=$1; bin=$2; work=$3
if [ -z "$script" ] || [ -z "$bin" ] || [ -z "$work" ]; then
    echo "usage: sample_cost_check.sh SCRIPT BIN WORK" >&2
    exit 2
fi
fail() { echo "sample_cost_check: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
python3 "$script" --bin "$bin" --work "$work/a" --quick --csv "$work/a.csv" >"$work/a.txt" ||
    fail "the benchmark failed"
cat "$work/a.txt"
head -n 1 "$work/a.csv" | grep -q '^case,samples,on_total,off_total,total,stack,entry,record,flush,pending,survival,collector,handler,thread,drain,other,frames,' ||
    fail "unexpected CSV header: $(head -n 1 "$work/a.csv")"
[ "$(tail -n +2 "$work/a.csv" | cut -d, -f1 | tr '\n' ' ')" = "cached fresh10 gcbench binarytrees time-signal time-thread deep-signal deep-thread " ] ||
    fail "the cases are not cached, fresh10, gcbench, binarytrees, time-signal, time-thread, deep-signal, deep-thread"
tail -n +2 "$work/a.csv" | while IFS=, read -r case samples on off total stack entry record flush pending survival collector handler thread drain other frames rest; do
    con=$(sed -n 's/^totals: *//p' "$work/a/$case.on.cg")
    coff=$(sed -n 's/^totals: *//p' "$work/a/$case.off.cg")
    [ "$on" = "$con" ] || fail "$case: on total $on, callgrind says $con"
    [ "$off" = "$coff" ] || fail "$case: off total $off, callgrind says $coff"
    [ $((on - off)) -eq "$total" ] || fail "$case: total $total is not on - off = $((on - off))"
    sum=$((stack + entry + record + flush + pending + survival + collector + handler + thread + drain + other))
    [ "$sum" -eq "$total" ] || fail "$case: the parts add up to $sum, the total is $total"
    case $case in
        cached | fresh10)
            [ "$samples" -eq 4000 ] || fail "$case: $samples samples, expected 4000"
            want=1; [ "$case" = fresh10 ] && want=40000
            [ "$frames" -eq "$want" ] || fail "$case: $frames frames interned, expected $want" ;;
        time-* | deep-*)
            taken=$(sed -n 's/^time_samples //p' "$work/a/$case.on.stats")
            [ "$samples" -gt 0 ] && [ "$samples" -eq "$taken" ] || fail "$case: $samples written of $taken taken" ;;
        *)
            sb=$(sed -n 's/^sampled_bytes //p' "$work/a/$case.on.stats")
            [ "$samples" -eq $((sb / 32768)) ] || fail "$case: $samples samples for $sb bytes at 32768" ;;
    esac
    echo "$case: on $on - off $off = $total = the sum of the parts; $samples samples, $frames frames"
done || exit 1
python3 "$script" --bin "$bin" --work "$work/b" --quick --cases cached --csv "$work/b.csv" >/dev/null ||
    fail "the second cached run failed"
a=$(grep '^cached,' "$work/a.csv"); b=$(grep '^cached,' "$work/b.csv")
[ "$a" = "$b" ] || fail "the counts do not repeat: $a, then $b"
echo "cached measured twice: the same counts"
