#!/bin/sh
# vm_peers.sh BIN SYSTEM - the Go (go), Java (hotspot) or JavaScript (v8) peers: same checksum as freecheck's
# workloads, the stats record's form, objects_allocated equal to freecheck's,
# bytes_allocated the workload's own bytes, baseline without samples; at
# periods of 4096 and 65536 bytes, alloc_samples positive and consistent with
# the system's own records (Java: the agent's recorded stack traces and the
# counts of its stack table equal the SampledObjectAlloc events, none failed;
# Go: the count over the memory profile's records) and within the bounds of
# random gaps with that mean over the bytes allocated (V8: the samples of the
# program's own nodes, v8_node_samples, against its nodes, whose sizes a heap
# snapshot confirms, exactly; v8_other_samples, V8's own objects', apart).
# Bad settings exit 2.
BIN=$1 SYS=$2
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs peer WORKLOAD with a period (0: baseline without any setting; off: the
# setting that turns sampling off, as the peers sweep's baseline), stats into
# $3; extra arguments follow.  Go runs with one P (GOMAXPROCS=1), as in a
# sweep, where the harness pins every run to one CPU: with more Ps the
# runtime's memory profile counts fewer samples than the rate implies, by a
# varying amount (docs/WORKLOADS.md, "Go").
run_peer() {
    w=$1 period=$2 stats=$3
    shift 3
    case $SYS in
        go)
            if [ "$period" = 0 ]; then
                env GOMAXPROCS=1 SGC_STATS="$stats" "$BIN/peers/$w-go" "$@"
            elif [ "$period" = off ]; then
                env GOMAXPROCS=1 SGC_STATS="$stats" FREECHECK_MEMPROFILERATE=0 "$BIN/peers/$w-go" "$@"
            else
                env GOMAXPROCS=1 SGC_STATS="$stats" FREECHECK_MEMPROFILERATE=$period FREECHECK_GO_HEAPPROFILE="$stats.heap" \
                    "$BIN/peers/$w-go" "$@"
            fi ;;
        hotspot)
            if [ "$period" = 0 ]; then
                env SGC_STATS="$stats" "$BIN/peers/$w-hotspot" "$@"
            elif [ "$period" = off ]; then
                env SGC_STATS="$stats" FREECHECK_JVM_OPTS="-agentpath:$(cd "$BIN/peers" && pwd)/libfcagent.so=interval=0" \
                    "$BIN/peers/$w-hotspot" "$@"
            else
                env SGC_STATS="$stats" FREECHECK_JVM_OPTS="-agentpath:$(cd "$BIN/peers" && pwd)/libfcagent.so=interval=$period" \
                    "$BIN/peers/$w-hotspot" "$@"
            fi ;;
        v8)
            if [ "$period" = 0 ]; then
                env SGC_STATS="$stats" "$BIN/peers/$w-v8" "$@"
            elif [ "$period" = off ]; then
                env SGC_STATS="$stats" FREECHECK_V8_SAMPLE_INTERVAL=0 "$BIN/peers/$w-v8" "$@"
            else
                env SGC_STATS="$stats" FREECHECK_V8_SAMPLE_INTERVAL=$period "$BIN/peers/$w-v8" "$@"
            fi ;;
    esac
}

if [ ! -x "$BIN/peers/binarytrees-$SYS" ]; then
    if [ -s "$BIN/peers/$SYS.missing" ]; then
        echo "skip the $SYS peers: $(cat "$BIN/peers/$SYS.missing")"
        exit 0
    fi
    fail "$BIN/peers/binarytrees-$SYS was not built and $BIN/peers/$SYS.missing gives no reason"
    exit 1
fi

# Java runs binarytrees longer: HotSpot takes no samples in about the first
# 1.2 MiB the workload allocates (docs/WORKLOADS.md), which the bound allows.
bt_args="--size 2 --depth 10"
[ "$SYS" = hotspot ] && bt_args="--size 16 --depth 10"
for spec in "binarytrees|$bt_args" "gcbench|--size 64"; do
    w=${spec%%|*} args=${spec#*|}
    want=$("$BIN/$w" $args) || { fail "$BIN/$w $args failed"; continue; }
    SGC_STATS=$tmp/fc.stats "$BIN/$w" $args >/dev/null
    objects=$(stat "$tmp/fc.stats" objects_allocated)
    # The workload's bytes: Go counts its objects' sizes (24-byte tree nodes,
    # 32-byte gcbench nodes, 8 per double); Java reports the JVM's count for
    # the main thread, whose objects are 32 bytes (binarytrees), 40 (gcbench
    # nodes) and 16 + 8 per double, plus a few KiB of its own.
    size=${args#--size }; size=${size%% *}
    n=$((size * 512)); [ $n -gt 500000 ] && n=500000
    case $SYS-$w in
        go-binarytrees) bytes=$((objects * 24)) slack=0 big=0 ;;
        go-gcbench) bytes=$(((objects - 1) * 32 + n * 8)) slack=0 big=$((n * 8)) ;;
        hotspot-binarytrees) bytes=$((objects * 32)) slack=65536 big=0 ;;
        hotspot-gcbench) bytes=$(((objects - 1) * 40 + 16 + n * 8)) slack=65536 big=$((16 + n * 8)) ;;
        # V8 (64-bit, no pointer compression): 48-byte binarytrees nodes, 56-byte
        # gcbench nodes; gcbench's Float64Array keeps its elements outside the heap.
        v8-binarytrees) bytes=$((objects * 48)) slack=0 big=0 cls=TreeNode nbytes=48 ;;
        v8-gcbench) bytes=$(((objects - 1) * 56)) slack=0 big=0 cls=Node nbytes=56 ;;
    esac
    if [ $SYS = v8 ]; then
        # The sizes the peer counts are V8's: a heap snapshot with the long-lived tree built.
        FREECHECK_V8_HEAPSNAPSHOT=$tmp/$w.heapsnapshot "$BIN/peers/$w-v8" $args >/dev/null ||
            fail "$w-v8: the heap snapshot run failed"
        python3 "$(dirname "$0")/v8_sizes.py" "$tmp/$w.heapsnapshot" $cls $nbytes 1023 >"$tmp/sizes" ||
            fail "$w-v8: $(cat "$tmp/sizes")"
        rm -f "$tmp/$w.heapsnapshot"
    fi

    s=$tmp/$w-base.stats
    same_checksum "$w-$SYS $args" "$want" run_peer $w 0 "$s" $args || continue
    stats_parse "$s" || continue
    [ "$(stat "$s" objects_allocated)" = "$objects" ] ||
        fail "$w-$SYS: objects_allocated $(stat "$s" objects_allocated), freecheck's workload $objects"
    got=$(stat "$s" bytes_allocated)
    [ "$got" -ge "$bytes" ] && [ "$got" -le $((bytes + slack)) ] ||
        fail "$w-$SYS: bytes_allocated $got, expected $bytes (+ up to $slack)"
    [ "$(stat "$s" alloc_period)" = 0 ] || fail "$w-$SYS baseline: alloc_period $(stat "$s" alloc_period)"
    [ "$(stat "$s" alloc_samples)" = 0 ] || fail "$w-$SYS baseline: alloc_samples '$(stat "$s" alloc_samples)', not 0"
    [ "$(stat "$s" peer_system)" = "$SYS" ] || fail "$w-$SYS: peer_system '$(stat "$s" peer_system)'"
    s=$tmp/$w-off.stats
    same_checksum "$w-$SYS $args, sampling off" "$want" run_peer $w off "$s" $args || continue
    stats_parse "$s" || continue
    [ "$(stat "$s" alloc_period)" = 0 ] && [ "$(stat "$s" alloc_samples)" = 0 ] ||
        fail "$w-$SYS sampling off: alloc_period $(stat "$s" alloc_period), alloc_samples $(stat "$s" alloc_samples)"

    for P in 4096 65536; do
        s=$tmp/$w-$P.stats
        same_checksum "$w-$SYS sampled at $P" "$want" run_peer $w $P "$s" $args || continue
        stats_parse "$s" || continue
        n=$(stat "$s" alloc_samples)
        b=$(stat "$s" bytes_allocated)
        [ "$(stat "$s" alloc_period)" = $P ] || fail "$w-$SYS: alloc_period $(stat "$s" alloc_period), not $P"
        [ "${n:-0}" -gt 0 ] 2>/dev/null || { fail "$w-$SYS at $P: alloc_samples '$n', not positive"; continue; }
        # A large object (gcbench's array) is one sample at most, whatever its size.
        mean=$(((b - big) / P))
        case $SYS in
            go)
                # The count is the memory profile's: runtime/pprof's heap profile,
                # written right after, totals the same records ("[allocs: bytes]").
                heap=$(sed -n '1s/^heap profile: [0-9]*: [0-9]* \[ *\([0-9]*\):.*/\1/p' "$s.heap")
                [ "$heap" = $((n + $(stat "$s" alloc_samples_startup))) ] ||
                    fail "$w-$SYS at $P: alloc_samples $n + start-up $(stat "$s" alloc_samples_startup), runtime/pprof's heap profile '$heap'"
                # Exponential gaps with mean P from the first byte: a Poisson count.
                within "$n" "$mean" 6 || fail "$w-$SYS at $P: $n samples, not within 6 sd of $mean"
                ;;
            hotspot)
                for k in alloc_traces alloc_stack_counts; do
                    [ "$(stat "$s" $k)" = "$n" ] || fail "$w-$SYS at $P: $k $(stat "$s" $k), alloc_samples $n"
                done
                [ "$(stat "$s" alloc_traces_failed)" = 0 ] || fail "$w-$SYS at $P: $(stat "$s" alloc_traces_failed) traces failed"
                st=$(stat "$s" alloc_stacks)
                [ "${st:-0}" -ge 1 ] && [ "$st" -le "$n" ] || fail "$w-$SYS at $P: $st distinct stacks for $n samples"
                # HotSpot delivers no samples over about the first 1.2 MiB the
                # workload allocates (up to 3 MiB allowed), and samples the JVM's
                # start-up allocations, which bytes_allocated leaves out (up to 2 MiB).
                awk -v n="$n" -v m="$mean" -v lo=$(((b - big - 3145728) / P)) -v hi=$(((b - big + 2097152) / P)) \
                    'BEGIN { sd = sqrt(m); exit !(n >= lo - 6 * sd && n <= hi + 6 * sd) }' ||
                    fail "$w-$SYS at $P: $n samples, outside ($b - $big bytes - 3 MiB .. + 2 MiB) / $P +- 6 sd"
                ;;
            v8)
                # Every sample V8 took (the profile keeps those of collected
                # objects too), V8's own objects' among them (docs/WORKLOADS.md);
                # the program's own nodes' samples are held to its nodes exactly
                # with no slack (lib.sh's v8_own: folded pairs, gcbench's Float64Array).
                extra=0; [ $w = gcbench ] && extra=1
                mean=$(v8_own "$s" $((b - big)) $nbytes $P $extra) ||
                    fail "$w-$SYS at $P: the program's own samples: $mean"
                ;;
        esac
        ok "$w-$SYS at $P: checksum; $n samples for $b bytes (mean $mean)"
    done
done

# Bad settings exit 2 with a message.
case $SYS in
    go) env FREECHECK_MEMPROFILERATE=abc "$BIN/peers/gcbench-go" --size 1 >/dev/null 2>"$tmp/err" ;;
    hotspot) env FREECHECK_JVM_OPTS="-agentpath:$(cd "$BIN/peers" && pwd)/libfcagent.so=interval=-1" \
              "$BIN/peers/gcbench-hotspot" --size 1 >/dev/null 2>"$tmp/err" ;;
    v8) env FREECHECK_V8_SAMPLE_INTERVAL=abc "$BIN/peers/gcbench-v8" --size 1 >/dev/null 2>"$tmp/err" ;;
esac
rc=$?
[ $rc = 2 ] && [ -s "$tmp/err" ] || fail "$SYS: a bad sampling setting exits $rc (expected 2 and a message)"
for bad in "--size 0" "--bogus" "--size"; do
    "$BIN/peers/binarytrees-$SYS" $bad >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && [ -s "$tmp/err" ] || fail "binarytrees-$SYS $bad: exit $rc (expected 2 and a message)"
done
SGC_STATS=$tmp/no/such/dir/s "$BIN/peers/gcbench-$SYS" --size 1 >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "cannot write the stats record" "$tmp/err" || fail "gcbench-$SYS: an unwritable SGC_STATS is not reported"

[ $failures = 0 ] && echo "$SYS peers: all checks passed"
exit $((failures > 0))
