#!/bin/sh
# run_workload.sh BINDIR STRESS NAME [ARG...] - runs workload NAME from BINDIR
# with --check under every kind of runtime setting (plain, GC stress with the
# heap verifier every STRESS allocations, allocation and time sampling with a
# profile, poisson sampling with a tiny period and nursery, the heap in
# transparent huge pages) and once without --check; fails unless every run
# passes its check and prints the same single "checksum <16 hex digits>"
# line.  From each run's stats record it also
# checks that the settings never change what is allocated (bytes and objects
# equal to the plain run's) and, in fixed-period runs, the sampling rule's
# count: alloc_sample_points == floor(sampled_bytes / period), with every
# byte allocated while sampling was on.
set -u
bindir=$1; stress=$2; name=$3; shift 3
prog=$bindir/$name
[ -x "$prog" ] || { echo "$name: $prog was not built"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

status=0
ref=""
stat() { sed -n "s/^$1 //p" "$2"; }
run() { # run LABEL ENV... -- ARGS: runs prog, compares its output with ref
    label=$1; shift
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    out=$(env $envs SGC_STATS="$tmp/$label.stats" "$prog" "$@" 2>"$tmp/stderr"); rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $name [$label]: exit status $rc"; cat "$tmp/stderr"; status=1; return
    fi
    if ! printf '%s\n' "$out" | grep -Eq '^checksum [0-9a-f]{16}$' ||
       [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ]; then
        echo "FAIL $name [$label]: output is not one checksum line: $out"; status=1; return
    fi
    if [ -z "$ref" ]; then ref=$out; fi
    if [ "$out" != "$ref" ]; then
        echo "FAIL $name [$label]: '$out' differs from '$ref'"; status=1; return
    fi
    bytes=$(stat bytes_allocated "$tmp/$label.stats"); objects=$(stat objects_allocated "$tmp/$label.stats")
    if [ -z "$bytes" ] || [ -z "$objects" ]; then
        echo "FAIL $name [$label]: no stats record"; status=1; return
    fi
    case $label in
    plain) ref_bytes=$bytes; ref_objects=$objects ;;
    unchecked) ;; # no reference computation, but the same workload
    *) if [ "$bytes $objects" != "$ref_bytes $ref_objects" ]; then
           echo "FAIL $name [$label]: allocated $bytes bytes in $objects objects, plain run $ref_bytes in $ref_objects"
           status=1; return
       fi ;;
    esac
    period=$(stat alloc_period "$tmp/$label.stats"); mode=$(stat alloc_mode "$tmp/$label.stats")
    if [ "${period:-0}" != 0 ] && [ "$mode" = fixed ]; then
        sampled=$(stat sampled_bytes "$tmp/$label.stats"); points=$(stat alloc_sample_points "$tmp/$label.stats")
        if [ "$sampled" != "$bytes" ] || [ "$points" != $((sampled / period)) ]; then
            echo "FAIL $name [$label]: $points sample points for $sampled sampled bytes of $bytes at period $period"
            status=1; return
        fi
        out="$out ($points sample points)"
    fi
    echo "ok   $name [$label]: $out, $bytes bytes"
}

run plain -- "$@" --check
run stress SGC_GC_STRESS=$stress SGC_VERIFY=1 SGC_POISON=1 -- "$@" --check
run samplers SGC_ALLOC_PERIOD=4K SGC_TIME_HZ=2000 SGC_PROFILE=$tmp/profile -- "$@" --check
run poisson SGC_ALLOC_PERIOD=100 SGC_ALLOC_MODE=poisson SGC_SEED=3 SGC_NURSERY=64K \
    SGC_TIME_HZ=250 SGC_TIME_CLOCK=cpu -- "$@" --check
run large-period SGC_ALLOC_PERIOD=3M SGC_NURSERY=256K SGC_MAJOR_GROWTH=1.1 -- "$@" --check
run hugepages SGC_HUGEPAGES=1 -- "$@" --check
if [ "$(stat hugepages "$tmp/hugepages.stats")" != 1 ]; then
    echo "FAIL $name [hugepages]: the stats record does not say hugepages 1"; status=1
fi
run unchecked -- "$@"
exit $status
