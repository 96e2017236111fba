#!/bin/sh
# summary.sh DIR - adds up the results tests/check.sh recorded in DIR and
# prints the closing line "tests: N passed, M failed"; exits 1 if anything
# failed or nothing ran.
dir=$1
passed=0; failed=0; failing=""
for r in "$dir"/*.result; do
    [ -f "$r" ] || continue
    read p f < "$r"
    passed=$((passed + p)); failed=$((failed + f))
    [ "$f" -gt 0 ] && failing="$failing $(basename "$r" .result)"
done
[ -n "$failing" ] && echo "FAILED:$failing"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
