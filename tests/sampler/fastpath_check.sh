#!/bin/sh
# fastpath_check.sh CC SANITIZE LOOP_BIN WORKDIR [LOOP_NOSAMPLER_BIN] - proves
# the allocation fast
# path holds no sampling code:
#  1. the reference functions (fastpath_ref.c) compile to the same machine
#     code with and without -DSGC_NO_SAMPLER (no switch may add code to it);
#  2. that code touches no global but sgc_nursery.free (offset 0) and
#     sgc_nursery.limit (offset 8) and calls nothing but sgc_alloc_slow (a
#     bytes-until-sample counter, a sampling flag, any new field would show);
#  3. under callgrind, the allocation loop's own instruction count is the
#     same with sampling off, fixed at a period it never reaches, poisson
#     likewise, and (LOOP_NOSAMPLER_BIN) linked with a runtime built with
#     -DSGC_NO_SAMPLER, and fixed with the validation spin set
#     (SGC_SAMPLE_SPIN_NS=0 and =100000, docs/RUNTIME.md): a check that runs
#     only while sampling is on, only when the sampler is built in, or only
#     when the spin is set, would show.  Skipped in sanitizer builds, which
#     valgrind cannot run.
cc=$1; san=$2; loop=$3; work=$4; loop_nos=$5
mkdir -p "$work" || exit 1
fail=0
ref=tests/sampler/fastpath_ref.c
# Position-dependent code, so every global is named by symbol + offset.
flags="-std=gnu11 -O2 -g0 -I${FASTPATH_INC:-runtime} -fno-asynchronous-unwind-tables -fno-pic -fno-pie"

$cc $flags -S -o "$work/ref.s" $ref || exit 1
$cc $flags -DSGC_NO_SAMPLER -S -o "$work/ref-nosampler.s" $ref || exit 1
if cmp -s "$work/ref.s" "$work/ref-nosampler.s"; then
    echo "1. same code with and without SGC_NO_SAMPLER"
else
    echo "FAIL 1: the fast path changes with SGC_NO_SAMPLER:"
    diff "$work/ref.s" "$work/ref-nosampler.s" | head -n 20
    fail=1
fi

for fn in fastpath_ref fastpath_ref24; do
    body=$(sed -n "/^$fn:/,/\.size[[:space:]]*$fn,/p" "$work/ref.s")
    if [ -z "$body" ]; then
        echo "FAIL 2: $fn not found in $work/ref.s"; fail=1; continue
    fi
    # Every symbol the function's instructions name: drop the mnemonic,
    # registers, local labels and immediates; what is left are symbols.
    syms=$(echo "$body" | sed "s/#.*//" | grep "^[[:space:]]" | grep -v "^[[:space:]]*\\." |
           sed 's/^[[:space:]]*[a-z0-9]*[[:space:]]*//; s/%[a-z0-9]*//g; s/\.L[A-Za-z0-9_]*//g; s/\$-\{0,1\}[0-9]*//g' |
           grep -o "[0-9+]*[A-Za-z_][A-Za-z0-9_@]*\(+[0-9]*\)\{0,1\}" | sort -u)
    bad=$(echo "$syms" | grep -v "^\(sgc_nursery\|8+sgc_nursery\|sgc_nursery+8\|sgc_alloc_slow\|sgc_alloc_slow@PLT\)$" | grep -v "^$")
    if [ -n "$bad" ]; then
        echo "FAIL 2: $fn's fast path names more than sgc_nursery.free/.limit and sgc_alloc_slow:"
        echo "$bad" | sed 's/^/    /'
        echo "$body" | sed 's/^/    | /'
        fail=1
    else
        echo "2. $fn names only:" $syms
    fi
done

if [ -n "$san" ]; then
    echo "3. skipped: sanitizer build ($san)"
elif ! command -v valgrind >/dev/null; then
    echo "FAIL 3: valgrind is not installed (scripts/deps.sh lists it)"; fail=1
else
    prev=""
    for mode in off fixed poisson nosampler spin0 spin100us; do
        out="$work/callgrind.$mode"
        rm -f "$out"
        bin=$loop; arg=$mode; spin=
        if [ $mode = nosampler ]; then
            [ -n "$loop_nos" ] || continue
            bin=$loop_nos; arg=off
        fi
        [ $mode = spin0 ] && { arg=fixed; spin=0; }
        [ $mode = spin100us ] && { arg=fixed; spin=100000; }
        env ${spin:+SGC_SAMPLE_SPIN_NS=$spin} valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" $arg 200000 >/dev/null 2>"$work/valgrind.$mode.log" || {
            echo "FAIL 3: valgrind run ($mode) failed:"; tail -n 5 "$work/valgrind.$mode.log"; fail=1; continue; }
        ir=$(callgrind_annotate --threshold=100 "$out" 2>/dev/null | grep "fastpath_loop" | head -n 1 |
             awk '{gsub(",", "", $1); print $1}')
        if [ -z "$ir" ]; then
            echo "FAIL 3: no count for fastpath_loop in $out"; fail=1; continue
        fi
        echo "3. fastpath_loop, 200000 allocations, sampling $mode: $ir instructions (self)"
        if [ -n "$prev" ] && [ "$ir" != "$prev" ]; then
            echo "FAIL 3: the loop runs $ir instructions with sampling $mode, $prev with it off"
            fail=1
        fi
        [ -z "$prev" ] && prev=$ir
    done
fi
[ $fail -eq 0 ] && echo "fast path: identical" 
exit $fail
