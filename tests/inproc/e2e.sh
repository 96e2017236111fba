#!/bin/sh
# e2e.sh BIN_DIR WORK_DIR - a real workload run with SGC_ALTERNATE, its
# segment series read back by inproc-estimate: fixed-mode exactness per B
# segment (floor(bytes / period) points, 0 in A segments), enough complete
# blocks, an A/A run, a time-sampling run, and bad input refused.
bin=$1; work=$2
mkdir -p "$work" || exit 1
fail=0
check() { if [ "$1" = 0 ]; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi; }

# Allocation sampling at 32K, segments of 4 minor collections (deterministic).
SGC_ALTERNATE=alloc SGC_ALLOC_PERIOD=32K SGC_ALT_SEGMENT=4 SGC_ALT_OUT="$work/alloc.seg" \
    "$bin/binarytrees" --size 8 > "$work/out" 2>&1
check $? "binarytrees with SGC_ALTERNATE=alloc ran"
bad=$(awk '$1 == "seg" && $7 != "exit" {
        want = ($5 == "B") ? int($10 / 32768) : 0
        if ($13 != want) print "segment " $2 ": " $13 " points, expected " want }' "$work/alloc.seg")
check "$([ -z "$bad" ] && echo 0)" "every segment took floor(bytes/32K) points when on, 0 when off ${bad:+($bad)}"
"$bin/inproc-estimate" --resamples 2000 "$work/alloc.seg" > "$work/est" 2>&1
check $? "inproc-estimate read the series"
blocks=$(awk '$1 == "blocks" {print $2}' "$work/est")
check "$([ "${blocks:-0}" -ge 5 ] && echo 0)" "at least 5 complete blocks ($blocks)"
grep -q "^ratio  *[0-9.]* \[[0-9.]*, [0-9.]*\]" "$work/est"
check $? "a ratio with an interval: $(grep '^ratio' "$work/est")"
grep -q "^cost_ns  *[-0-9.]* \[" "$work/est"
check $? "a per-sample cost with an interval"

# A/A: nothing switched, no samples anywhere.
SGC_ALTERNATE=none SGC_ALT_SEGMENT=4 SGC_ALT_OUT="$work/aa.seg" "$bin/binarytrees" --size 8 > "$work/out" 2>&1
check $? "A/A run"
n=$(awk '$1 == "seg" && ($6 != 0 || $12 != 0 || $15 != 0)' "$work/aa.seg" | wc -l)
check "$([ "$n" = 0 ] && echo 0)" "A/A: no segment on, no samples"

# Time sampling with CPU-time segments through compute's iteration hook.
SGC_ALTERNATE=time SGC_TIME_HZ=5000 SGC_ALT_SEGMENT=3ms SGC_ALT_OUT="$work/time.seg" \
    "$bin/compute" --size 800 > "$work/out" 2>&1
check $? "compute with SGC_ALTERNATE=time ran"
n=$(awk '$1 == "seg" && $7 == "iter"' "$work/time.seg" | wc -l)
check "$([ "$n" -ge 8 ] && echo 0)" "compute's segments end in the iteration hook ($n)"
n=$(awk '$1 == "seg" && $5 == "A" && $15 != 0' "$work/time.seg" | wc -l)
check "$([ "$n" = 0 ] && echo 0)" "no time sample in an A segment"
"$bin/inproc-estimate" --resamples 2000 "$work/time.seg" > "$work/est" 2>&1
check $? "inproc-estimate on compute: $(grep '^blocks' "$work/est")"
grep -q "work = iterations" "$work/est"
check $? "compute's work is its iterations"

# Bad input.
SGC_ALTERNATE=alloc "$bin/binarytrees" --size 1 > "$work/out" 2>&1
rc=$?
check "$([ $rc = 2 ] && grep -q "SGC_ALTERNATE=alloc: .*SGC_ALLOC_PERIOD" "$work/out" && echo 0)" \
    "alloc without a period: exit 2 naming it ($(cat "$work/out"))"
SGC_ALTERNATE=none SGC_ALT_OUT=/nonexistent/x "$bin/binarytrees" --size 1 > "$work/out" 2>&1
check "$([ $? = 2 ] && grep -q "SGC_ALT_OUT=/nonexistent/x: cannot write the segment series there" "$work/out" && echo 0)" \
    "an unwritable series is refused at start-up ($(cat "$work/out"))"
"$bin/inproc-estimate" "$work/out" > /dev/null 2>&1
check "$([ $? = 2 ] && echo 0)" "inproc-estimate refuses a file that is not a series"
exit $fail
