#!/bin/sh
# makeheader.sh - the Makefile's header names every target a user runs: each
# phony target of the Makefile and the module.mk files appears as
# "# make NAME" (or in the header's text), except the single tests, benchmarks
# and fuzzers (TESTS, BENCHES, FUZZERS, which the header tells how to list)
# and the steps of tests.
set -u
header=$(sed -n '1,/^CC ?=/p' Makefile)
listed=$(grep -h '^\(TESTS\|BENCHES\|FUZZERS\) *+\?=' Makefile */module.mk */*/module.mk | sed 's/^[A-Z]* *+\?=//' | tr ' \t\\' '\n\n\n')
fail=0
for t in $(grep -h '^\.PHONY:' Makefile */module.mk */*/module.mk | sed 's/^\.PHONY://' | tr ' ' '\n' | grep -v '^$' | grep -v '\$' | sort -u); do
    case "$t" in test-*) continue ;; esac
    echo "$listed" | grep -qx -- "$t" && continue
    # the steps of tests: run only as prerequisites or recipes of test targets
    grep -hq "^[^#]*test[-a-z0-9%]*:.*[ 	]$t\( \|$\)" Makefile */module.mk */*/module.mk && continue
    if ! echo "$header" | grep -q "make $t\b\|($t)"; then
        echo "the Makefile's header does not name 'make $t'"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "the Makefile's header names every target"
exit $fail
