#!/bin/sh
# args_check.sh BINDIR NAME... - every workload rejects bad arguments and bad
# SGC_* settings with a message and exit status 2, prints usage with --help
# (status 0), and keeps stdout free of a checksum when it refuses to run.
set -u
bindir=$1; shift
status=0
expect() { # expect STATUS DESCRIPTION COMMAND...: the command must exit with STATUS
    want=$1; what=$2; shift 2
    out=$("$@" 2>/tmp/wl_args.$$); rc=$?
    err=$(cat /tmp/wl_args.$$); rm -f /tmp/wl_args.$$
    if [ $rc -ne "$want" ]; then
        echo "FAIL $what: exit $rc, want $want"; status=1; return
    fi
    if [ "$want" -eq 2 ]; then
        [ -n "$err" ] || { echo "FAIL $what: no message on stderr"; status=1; return; }
        case "$out" in *checksum*) echo "FAIL $what: printed a checksum"; status=1; return ;; esac
    fi
    echo "ok   $what (exit $rc) ${err:+: $err}"
}
for w in "$@"; do
    p=$bindir/$w
    expect 2 "$w --size 0" "$p" --size 0
    expect 2 "$w --size abc" "$p" --size abc
    expect 2 "$w --size (missing)" "$p" --size
    expect 2 "$w --size -5" "$p" --size -5
    expect 2 "$w --no-such-option" "$p" --no-such-option
    expect 2 "$w stray" "$p" stray
    expect 2 "$w SGC_ALLOC_PERIOD=abc" env SGC_ALLOC_PERIOD=abc "$p" --size 1
    expect 2 "$w SGC_NURSERY=1" env SGC_NURSERY=1 "$p" --size 1
    expect 0 "$w --help" "$p" --help
    case "$("$p" --help)" in *--size*--check*) ;; *) echo "FAIL $w --help: no usage"; status=1 ;; esac
done
for w in "$@"; do
    case $w in
    deepstack)
        expect 2 "deepstack --depth 0" "$bindir/deepstack" --depth 0
        expect 2 "deepstack --depth 10001" "$bindir/deepstack" --depth 10001 ;;
    binarytrees)
        expect 2 "binarytrees --depth 5" "$bindir/binarytrees" --depth 5
        expect 2 "binarytrees --depth 25" "$bindir/binarytrees" --depth 25 ;;
    lrucache)
        expect 2 "lrucache --capacity 1" "$bindir/lrucache" --capacity 1 ;;
    esac
done
exit $status
