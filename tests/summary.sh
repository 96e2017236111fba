#!/bin/sh
# summary.sh DIR - adds up the results tests/check.sh recorded in DIR and
# prints the closing line "tests: N passed, M failed"; exits 1 if anything
# failed or nothing ran.
# summary.sh --times DIR - lists the wall time tests/check.sh recorded for each
# check in DIR, slowest first ("<seconds> <name>"), and their sum.
if [ "${1:-}" = --times ]; then
    for t in "$2"/*.secs; do
        [ -f "$t" ] && echo "$(cat "$t") $(basename "$t" .secs)"
    done | sort -k1,1nr -k2 | awk '{ print; s += $1 } END { print s " in all" }'
    exit 0
fi
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
