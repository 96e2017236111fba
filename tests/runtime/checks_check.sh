#!/bin/sh
# checks_check.sh PROG LIB - the checked invariants (docs/RUNTIME.md,
# "Checked invariants").  PROG (tests/runtime/checks_prog.c, linked with the
# checked runtime, SGC_CHECKS=1) breaks an invariant on purpose: each breach
# must abort (SIGABRT) with "freecheck: FILE:LINE: invariant failed: COND
# (REASON)" naming the line of the check, and the run without the breach
# must succeed.  LIB (the measured build's libsgc.a) must hold no check: no
# sgc__assert_fail, no sgc__frame_pop_misordered, none of the reasons' text.
prog=$1; lib=$2
if [ -z "$prog" ] || [ -z "$lib" ]; then
    echo "usage: checks_check.sh PROG LIB" >&2
    exit 2
fi
fail() { echo "checks_check: $*" >&2; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
unset $(env | sed -n 's/^\(SGC_[A-Za-z_]*\)=.*/\1/p')

"$prog" none >"$work/none.out" 2>"$work/none.err" || { cat "$work/none.err" >&2; fail "the run without a breach failed"; }
grep -q '^checks-prog: [0-9]* allocation samples$' "$work/none.out" || fail "the run without a breach printed no stats"
[ -s "$work/none.err" ] && { cat "$work/none.err" >&2; fail "the run without a breach wrote to stderr"; }
echo "none: exit 0, no message"

# expect MODE FILE PATTERN-OF-THE-CHECK'S-LINE MESSAGE-AFTER-LINE
expect() {
    mode=$1 file=$2 pat=$3 msg=$4
    line=$(grep -n -F "$pat" "$file" | head -n 1 | cut -d: -f1)
    [ -n "$line" ] || fail "$file has no line with: $pat"
    "$prog" "$mode" >"$work/$mode.out" 2>"$work/$mode.err"
    rc=$?
    # 134: the shell's status of a process killed by SIGABRT (128 + 6).
    [ "$rc" -eq 134 ] || { cat "$work/$mode.err" >&2; fail "$mode: exit status $rc, not an abort (134)"; }
    want="freecheck: $file:$line: invariant failed: $msg"
    # The first line: the shell that ran it may add its own "Aborted".
    got=$(head -n 1 "$work/$mode.err")
    [ "$got" = "$want" ] || { printf 'got:  %s\nwant: %s\n' "$got" "$want" >&2; fail "$mode: another message"; }
    echo "$mode: aborted with: $want"
}
expect pop runtime/sgc.h '    SGC__POP_CHECK(f);' \
    'sgc_top == f (sgc_frame_pop pops the innermost frame: a frame pushed after it was not popped first)'
expect remaining runtime/sgc_sample.c 'SGC_ASSERT(sgc__sampler.period == 0 || sgc__sampler.remaining >= 1' \
    'sgc__sampler.period == 0 || sgc__sampler.remaining >= 1 (remaining >= 1 while sampling)'

# The measured build: no check compiled in.
[ -f "$lib" ] || fail "$lib: no such library"
syms=$(nm "$lib" 2>/dev/null | grep -c 'sgc__assert_fail\|sgc__frame_pop_misordered')
[ "$syms" -eq 0 ] || fail "$lib names the check functions ($syms symbols): the measured build has checks"
for s in 'invariant failed' 'remaining >= 1 while sampling' 'the ring never overfills' 'sgc_frame_pop pops the innermost'; do
    strings "$lib" | grep -q -F "$s" && fail "$lib holds the string \"$s\": the measured build has checks"
done
echo "$lib: no check function, none of the checks' strings"
