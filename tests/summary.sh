#!/bin/sh
# summary.sh DIR TEST... - adds up the results tests/check.sh recorded in DIR
# for the listed tests (a test with no result - it did not build or run -
# counts as failed) and prints the closing line "tests: N passed, M failed".
dir=$1; shift
passed=0; failed=0; missing=""
for t in "$@"; do
    if [ -f "$dir/$t.result" ]; then
        read p f < "$dir/$t.result"
        passed=$((passed + p)); failed=$((failed + f))
    else
        failed=$((failed + 1)); missing="$missing $t"
    fi
done
[ -n "$missing" ] && echo "FAIL (no result, did not build or run):$missing"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
