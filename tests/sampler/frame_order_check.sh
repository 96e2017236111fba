#!/bin/sh
# frame_order_check.sh CC WORKDIR PROGRAM... - proves that every compiled
# sgc_frame_pop stores the unpublish (sgc_top = the parent) before the count
# (sgc__frame_pops), the order the sampler thread's consistent read needs
# (docs/PROFILE.md, "Why no frame that is not live is followed"):
#  1. in every function of each PROGRAM (build/bin/interp: the interpreter's
#     call path, eval, where the compiler once moved the count first; each
#     PROGRAM must hold at least one pop, and the interpreter's eval one);
#  2. in tests/sampler/frame_order.c (call sites of many shapes) compiled at
#     -O2 and -O3 with CC and with gcc and clang when installed, every one
#     of its functions with the pops it must have;
#  3. the rule itself can fail: the listing of one correct site with the two
#     stores swapped must be reported.
# The rule (tests/sampler/frame_order.awk) reads objdump's listing with
# source lines, so it knows which store to sgc_top is a pop's.  x86-64 only
# (the listing's syntax): elsewhere the check says it is skipped, and fails.
cc=$1; work=$2; shift 2
mkdir -p "$work" || exit 1
fail=0
awkf=tests/sampler/frame_order.awk
hdr=runtime/sgc.h
lo=$(grep -n '^static inline void sgc_frame_pop(' $hdr | cut -d: -f1)
hi=$(awk -v lo="$lo" 'NR > lo && /^}/ { print NR; exit }' $hdr)
# The pop's statements that store to sgc_top and to the count (comments skipped).
uline=$(awk -v lo="$lo" -v hi="$hi" 'NR > lo && NR < hi && !/^[ \t]*(\/\*|\*)/ && /sgc_top/ { print NR; exit }' $hdr)
cline=$(awk -v lo="$lo" -v hi="$hi" 'NR > lo && NR < hi && !/^[ \t]*(\/\*|\*)/ && /sgc__frame_pops/ { print NR; exit }' $hdr)
if [ -z "$lo" ] || [ -z "$hi" ] || [ -z "$uline" ] || [ -z "$cline" ]; then
    echo "FAIL: sgc_frame_pop, or its stores to sgc_top and sgc__frame_pops, not found in $hdr"; exit 1
fi
echo "sgc_frame_pop is $hdr:$lo-$hi (unpublish: line $uline, count: line $cline)"
if [ "$(uname -m)" != x86_64 ]; then
    echo "FAIL: the listing rule reads x86-64 code; this machine is $(uname -m): check the pop's order by hand"
    exit 1
fi

check() { # LISTING WHAT [FUNCTIONS]
    out=$(awk -v lo="$lo" -v hi="$hi" -v uline="$uline" -v cline="$cline" -v only="$3" -f $awkf "$1" "$1"); rc=$?
    echo "$out" | sed "s|^|    $2: |"
    return $rc
}

# 1. The programs as built.
for prog in "$@"; do
    lst="$work/$(basename "$prog").lst"
    objdump -d -l --no-show-raw-insn "$prog" > "$lst" || { echo "FAIL 1: cannot disassemble $prog"; fail=1; continue; }
    echo "1. $prog"
    check "$lst" "$(basename "$prog")" > "$lst.out"; rc=$?
    cat "$lst.out"
    [ $rc -eq 0 ] || fail=1
    if ! grep -q "pops in order\|FAIL" "$lst.out"; then
        echo "FAIL 1: no pop found in $prog: the rule cannot see its code"; fail=1
    fi
    case $prog in
    */interp)
        n=$(awk -v lo="$lo" -v hi="$hi" -v uline="$uline" -v cline="$cline" -v only=eval -f $awkf "$lst" "$lst" | sed -n 's/^eval: \([0-9]*\) pops in order$/\1/p')
        if [ -z "$n" ] || [ "$n" -lt 1 ]; then
            echo "FAIL 1: the interpreter's eval has no pop in order"; fail=1
        fi ;;
    esac
done

# 2. The shapes of frame_order.c, with every compiler there is.
fns="fo_call fo_leaf fo_nested fo_early fo_loop fo_sequence fo_rec fo_overlap"
# Each compiler once (cc is usually gcc under another name).
ccs=; seen=
for c in $cc gcc clang; do
    p=$(command -v $c 2>/dev/null) || continue
    p=$(readlink -f "$p")
    case " $seen " in *" $p "*) continue ;; esac
    seen="$seen $p"; ccs="$ccs $c"
done
ok_lst=
for c in $ccs; do
    for opt in -O2 -O3; do
        tag=$(basename "$c")$opt
        obj="$work/frame_order-$tag.o"
        if ! $c -std=gnu11 $opt -g -Iruntime -fno-pic -fno-pie -fno-asynchronous-unwind-tables \
                -c tests/sampler/frame_order.c -o "$obj" 2>"$work/frame_order-$tag.log"; then
            echo "FAIL 2: $c $opt cannot compile tests/sampler/frame_order.c:"; sed 's/^/    /' "$work/frame_order-$tag.log"
            fail=1; continue
        fi
        objdump -d -l -r --no-show-raw-insn "$obj" > "$work/frame_order-$tag.lst" || { fail=1; continue; }
        echo "2. frame_order.c, $c $opt"
        if check "$work/frame_order-$tag.lst" "$tag" "$(echo $fns | tr ' ' ,)"; then
            ok_lst="$work/frame_order-$tag.lst"
        else
            fail=1
        fi
        # Each shape holds its pops: fo_nested and fo_sequence two at least.
        for f in $fns; do
            n=$(awk -v lo="$lo" -v hi="$hi" -v uline="$uline" -v cline="$cline" -v only=$f -f $awkf "$work/frame_order-$tag.lst" "$work/frame_order-$tag.lst" |
                sed -n "s/^$f: \([0-9]*\) pops in order\$/\1/p")
            want=1
            case $f in fo_nested|fo_sequence) want=2 ;; esac
            if [ -n "$n" ] && [ "$n" -lt $want ]; then
                echo "FAIL 2: $f ($tag) has $n pops, fewer than its $want"; fail=1
            fi
        done
    done
done

# 3. The rule catches the wrong order: in a listing that passed, the first
# pop's count's store (with its relocation lines) moved to just before its
# unpublishing store.
if [ -n "$ok_lst" ]; then
    set -- $(awk -v lo="$lo" -v hi="$hi" -v uline="$uline" -v cline="$cline" -v swap=1 -f $awkf "$ok_lst" "$ok_lst" | sed -n 's/^swap //p')
    if [ $# -ne 4 ]; then
        echo "FAIL 3: found no pop to swap in $ok_lst"; fail=1
    else
        awk -v us=$1 -v ue=$2 -v cs=$3 -v ce=$4 '
            NR < us || NR > ce { print; next }
            { keep[NR] = $0 }
            NR == ce { for (i = cs; i <= ce; i++) print keep[i]; for (i = us; i < cs; i++) print keep[i] }' \
            "$ok_lst" > "$work/frame_order-swapped.lst"
        if awk -v lo="$lo" -v hi="$hi" -v uline="$uline" -v cline="$cline" -f $awkf "$work/frame_order-swapped.lst" "$work/frame_order-swapped.lst" |
                grep "comes before its pop's unpublishing store" > "$work/frame_order-swapped.out"; then
            echo "3. the same listing with one pop's stores swapped is caught: $(head -n 1 "$work/frame_order-swapped.out")"
        else
            echo "FAIL 3: the rule passes a listing whose count's store comes first ($work/frame_order-swapped.lst)"; fail=1
        fi
    fi
else
    echo "3. not run: no listing passed"
fi
[ $fail -eq 0 ] && echo "frame pop order: unpublish before count everywhere"
exit $fail
