#!/bin/sh
# check.sh NAME COMMAND [ARG...] - runs one test step and records its result
# in $TEST_RESULTS/NAME.result as "<passed> <failed>" and its wall time in
# NAME.secs (whole seconds; tests/summary.sh --times lists them).  A Criterion binary's
# own counts are used when its output has a "Synthesis:" line; any other
# command counts as one test.  Always exits 0, so "make test" goes on; the
# summary (tests/summary.sh) decides.
name=$1; shift
dir=${TEST_RESULTS:-build/test-results}
mkdir -p "$dir"
log="$dir/$name.log"
start=$(date +%s)
"$@" >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
syn=$(grep -a "Synthesis:" "$log" | tail -n 1)
if [ -n "$syn" ]; then
    passed=$(echo "$syn" | sed -n 's/.*Passing: *\([0-9]*\).*/\1/p')
    failing=$(echo "$syn" | sed -n 's/.*Failing: *\([0-9]*\).*/\1/p')
    crashing=$(echo "$syn" | sed -n 's/.*Crashing: *\([0-9]*\).*/\1/p')
    failed=$(( ${failing:-0} + ${crashing:-0} ))
    passed=${passed:-0}
else
    if [ $rc -eq 0 ]; then passed=1; failed=0; else passed=0; failed=1; fi
fi
if [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$secs" > "$dir/$name.secs"
echo "$passed $failed" > "$dir/$name.result"
if [ "$failed" -eq 0 ]; then
    echo "PASS $name ($passed passed, ${secs}s)"
else
    echo "FAIL $name ($passed passed, $failed failed, exit $rc, ${secs}s); last lines of $log:"
    tail -n 25 "$log" | sed 's/^/    /'
fi
exit 0
