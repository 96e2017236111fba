#!/bin/sh
# alt_peers.sh BIN SYSTEM - a peer's in-process alternation driver on short runs
# (docs/WORKLOADS.md, "In-process alternation in the peers"), for SYSTEM one of
# jemalloc, gperftools, go, hotspot, v8:
#  - with SGC_ALTERNATE=alloc, for a seed of each phase (ABBA and BAAB), both
#    workloads print freecheck's checksum and write a series that conforms to
#    docs/FORMATS.md (build/bin/inproc-estimate --check: the order of the seed's phase,
#    every off segment without samples, the segments' bytes, objects and
#    samples adding up to the stats record's);
#  - the on segments' samples agree with the system's own records (jemalloc:
#    its heap profile dump; Go: runtime/pprof's heap profile; HotSpot: the
#    agent's stack table) and lie within 6 standard deviations of a Poisson
#    count of their bytes over the period (jemalloc: size-class bytes;
#    HotSpot: the on segments that follow an on segment, since HotSpot starts
#    sampling at the next TLAB refill; V8: the samples of the program's own
#    nodes, exactly, its other samples apart; gperftools, whose count is its stack
#    captures: size-class bytes too, and the sampled objects live at exit are
#    exactly the lead-in's, none when it is off);
#  - build/bin/inproc-estimate reads the series;
#  - SGC_ALTERNATE=none switches nothing; bad settings exit 2, an unwritable
#    SGC_ALT_OUT exits 1.
# A system that is not built is skipped with the reason peers-build recorded.
BIN=$1 SYS=$2
. "$(dirname "$0")/lib.sh"
check() { f=$1; shift; "$BIN/inproc-estimate" --check "$f" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=4096
agent=$(cd "$BIN/peers" 2>/dev/null && pwd)/libfcagent.so

if [ ! -x "$BIN/peers/binarytrees-$SYS" ]; then
    if [ -s "$BIN/peers/$SYS.missing" ]; then
        echo "skip the $SYS peers: $(cat "$BIN/peers/$SYS.missing")"
        exit 0
    fi
    fail "$BIN/peers/binarytrees-$SYS was not built and $BIN/peers/$SYS.missing gives no reason"
    exit 1
fi

# run_alt WORKLOAD PERIOD|0 OUT SETTINGS: runs the peer with its sampler's
# setting for PERIOD (0: none) and SETTINGS (NAME=VALUE words: the
# alternation settings), stats into OUT.stats and the series into OUT.seg.
# Extra arguments follow.
run_alt() {
    w=$1 period=$2 out=$3 settings=$4
    shift 4
    case $SYS in
        jemalloc)
            conf=prof:false
            [ "$period" != 0 ] && conf=prof:true,prof_active:false,lg_prof_sample:12,prof_accum:true,prof_unbias:false,prof_final:true,prof_prefix:$out.dump
            env $settings MALLOC_CONF=$conf SGC_STATS="$out.stats" SGC_ALT_OUT="$out.seg" "$BIN/peers/$w-jemalloc" "$@" ;;
        gperftools) env $settings TCMALLOC_SAMPLE_PARAMETER=$period SGC_STATS="$out.stats" SGC_ALT_OUT="$out.seg" \
                        "$BIN/peers/$w-gperftools" "$@" ;;
        go) env $settings GOMAXPROCS=1 FREECHECK_MEMPROFILERATE=$period FREECHECK_GO_HEAPPROFILE="$out.heap" \
                SGC_STATS="$out.stats" SGC_ALT_OUT="$out.seg" "$BIN/peers/$w-go" "$@" ;;
        hotspot) env $settings FREECHECK_JVM_OPTS="-agentpath:$agent=interval=$period" SGC_STATS="$out.stats" \
                     SGC_ALT_OUT="$out.seg" "$BIN/peers/$w-hotspot" "$@" ;;
        v8) env $settings FREECHECK_V8_SAMPLE_INTERVAL=$period SGC_STATS="$out.stats" SGC_ALT_OUT="$out.seg" \
                "$BIN/peers/$w-v8" "$@" ;;
    esac
}

# The seeds' phases (docs/FORMATS.md): 2 gives ABBA, 1 gives BAAB (each run's
# pattern line is compared below, and the checker holds it to its seed).

# The sum of FIELD over the series' segments with on = ON (and, with a third
# argument, only those after a segment with on = AFTER).
seg_sum() {
    awk -v f="$2" -v on="$3" -v after="${4:-any}" '
        $1 == "columns" { for (i = 2; i <= NF; i++) col[$i] = i }
        $1 == "seg" { if ($(col["on"]) == on && (after == "any" || prev == after)) s += $(col[f]); prev = $(col["on"]) }
        END { print s + 0 }' "$1"
}

bt_args="--size 16 --depth 12"
gc_args="--size 128"
case $SYS in
    hotspot) gc_args="--size 256" ;;
    # binarytrees at size 8 was some 15 ms of CPU on malloc: 3-5 blocks of 1 ms
    # segments, too few; tcmalloc's samples are also slow.  More work for
    # enough blocks (at least 4 are required below).
    jemalloc | gperftools) bt_args="--size 32 --depth 12" ;;
esac
for spec in "binarytrees|$bt_args" "gcbench|$gc_args"; do
    w=${spec%%|*} args=${spec#*|}
    want=$("$BIN/$w" $args) || { fail "$BIN/$w $args failed"; continue; }
    for seed in 2 1; do
        pattern=ABBA; [ $seed = 1 ] && pattern=BAAB
        o=$tmp/$w-$seed
        got=$(run_alt $w $P "$o" "SGC_ALTERNATE=alloc SGC_ALT_SEGMENT=1ms SGC_SEED=$seed" $args) ||
            { fail "$w-$SYS alloc seed $seed: exit status $?"; continue; }
        [ "$got" = "$want" ] || { fail "$w-$SYS alloc seed $seed: printed '$got', freecheck's workload '$want'"; continue; }
        stats_parse "$o.stats" || continue
        if ! check "$o.seg" --stats "$o.stats" --objects --mode alloc --system $SYS >"$tmp/out"; then
            fail "$w-$SYS alloc seed $seed: the series does not conform:"
            cat "$tmp/out"
            continue
        fi
        [ "$(sed -n 's/^pattern //p' "$o.seg")" = $pattern ] || fail "$w-$SYS seed $seed: pattern is not $pattern"
        blocks=$(awk '$1 == "seg" && $3 > 0 && $7 != "exit" { b[$3] = 1 } END { print length(b) }' "$o.seg")
        [ "$blocks" -ge 4 ] || fail "$w-$SYS seed $seed: only $blocks blocks"
        "$BIN/inproc-estimate" --resamples 2000 "$o.seg" >"$tmp/est" 2>&1 ||
            fail "$w-$SYS seed $seed: inproc-estimate: $(cat "$tmp/est")"
        grep -q "^blocks  *[0-9][0-9]* complete" "$tmp/est" || fail "$w-$SYS seed $seed: inproc-estimate printed no blocks"

        n=$(seg_sum "$o.seg" alloc_samples 1)
        onb=$(seg_sum "$o.seg" bytes 1)
        # gcbench's array is one object of many periods, sampled once at most:
        # its bytes may be in the on segments' or not.
        abytes=0
        if [ $w = gcbench ]; then
            size=${args#--size }
            na=$((size * 512)); [ $na -gt 500000 ] && na=500000
            case $SYS in
                hotspot) abytes=$((16 + na * 8)) ;;
                v8) abytes=0 ;; # a Float64Array: its elements are outside V8's heap
                *) abytes=$((na * 8)) ;;
            esac
        fi
        lo=$(((onb - abytes) / P)) hi=$((onb / P + 1))
        case $SYS-$w in # 24-byte nodes take 32-byte size classes
            jemalloc-binarytrees | gperftools-binarytrees) lo=$((onb * 32 / 24 / P)) hi=$((lo + 1)) ;;
        esac
        mean="$lo..$hi"
        case $SYS in
            jemalloc)
                # jemalloc's own final dump counts every sample of the process.
                dump=$(ls "$o".dump.*.f.heap 2>/dev/null | head -n 1)
                accum=$(sed -n 's/^ *t\*: *[0-9]*: *[0-9]* *\[ *\([0-9]*\):.*/\1/p' "$dump" 2>/dev/null | head -n 1)
                total=$(($(stat "$o.stats" alloc_samples) + $(stat "$o.stats" alloc_samples_startup)))
                [ "$accum" = "$total" ] || fail "$w-$SYS seed $seed: series and start-up $total samples, jemalloc's dump '$accum'"
                between "$n" $lo $hi 6 || fail "$w-$SYS seed $seed: $n samples in the on segments, not within 6 sd of $mean"
                ;;
            go)
                heap=$(sed -n '1s/^heap profile: [0-9]*: [0-9]* \[ *\([0-9]*\):.*/\1/p' "$o.heap")
                [ "$heap" = $(($(stat "$o.stats" alloc_samples) + $(stat "$o.stats" alloc_samples_startup))) ] ||
                    fail "$w-$SYS seed $seed: series and start-up samples differ from runtime/pprof's heap profile '$heap'"
                between "$n" $lo $hi 6 || fail "$w-$SYS seed $seed: $n samples in the on segments, not within 6 sd of $mean"
                ;;
            hotspot)
                total=$(($(stat "$o.stats" alloc_samples) + $(stat "$o.stats" alloc_samples_startup)))
                [ "$(stat "$o.stats" alloc_stack_counts)" = "$total" ] && [ "$(stat "$o.stats" alloc_traces_failed)" = 0 ] ||
                    fail "$w-$SYS seed $seed: the agent's stack table counts $(stat "$o.stats" alloc_stack_counts), events $total"
                # HotSpot starts sampling at the thread's next TLAB refill, so an
                # on segment misses up to a TLAB's bytes after an off one, and
                # short segments may miss more: the counts can only be bounded
                # from above (up to 2% more bytes for the JVM's own allocations
                # on the thread), and must be positive.
                n2=$(seg_sum "$o.seg" alloc_samples 1 1) b2=$(seg_sum "$o.seg" bytes 1 1)
                [ "$n2" -gt 0 ] && between "$n2" 0 $((b2 * 102 / 100 / P + 1)) 6 ||
                    fail "$w-$SYS seed $seed: $n2 samples in on segments after on segments, for $((b2 / P)) periods"
                [ "$n" -gt 0 ] && between "$n" 0 $((hi * 102 / 100)) 6 ||
                    fail "$w-$SYS seed $seed: $n samples, for $hi periods of the on segments"
                mean="at most $hi, after on segments $n2 of at most $((b2 / P))"
                ;;
            v8)
                # V8's count holds samples of its own objects too (the heap
                # numbers of unoptimized code, the driver's clock readings and
                # inspector messages: docs/WORKLOADS.md); the program's own,
                # the record's v8_node_samples, are held to the on segments'
                # nodes with no slack (lib.sh's v8_own: folded pairs, gcbench's Float64Array).
                nb=48 extra=0; [ $w = gcbench ] && nb=56 extra=1
                mean=$(v8_own "$o.stats" "$onb" $nb $P $extra) ||
                    fail "$w-$SYS seed $seed: the program's own samples in the on segments: $mean"
                ;;
            gperftools)
                between "$n" $lo $hi 6 || fail "$w-$SYS seed $seed: $n samples in the on segments, not within 6 sd of $mean"
                # tcmalloc keeps the sampled objects that
                # are still allocated.  With segments long enough for the lead-in
                # to hold the long-lived tree (and gcbench's array), those are
                # the lead-in's at exit, every other tree being freed: none when
                # the lead-in is off, its long-lived bytes over the period when on.
                g=$tmp/$w-$seed-long
                run_alt $w $P "$g" "SGC_ALTERNATE=alloc SGC_ALT_SEGMENT=200ms SGC_SEED=$seed" $args >/dev/null 2>&1 ||
                    { fail "$w-$SYS seed $seed, 200ms segments: exit status $?"; continue; }
                live=$(stat "$g.stats" alloc_samples_live)
                lead=$(awk '$1 == "seg" && $2 == 0 { print $11; exit }' "$g.seg")
                case $w in # objects before the long-lived ones (the stretch tree), the long-lived ones, their samples
                    binarytrees) before=$(((1 << 14) - 1)) keep=$(((1 << 13) - 1)) lsamples=$((((1 << 13) - 1) * 32 / P)) ;;
                    gcbench) before=$(((1 << 16) - 1)) keep=$(((1 << 14) - 1 + 1)) lsamples=$((((1 << 14) - 1) * 32 / P + 1)) ;;
                esac
                [ "$lead" -ge $((before + keep)) ] ||
                    { fail "$w-$SYS seed $seed: the lead-in allocated $lead objects, fewer than the long-lived ones end at"; continue; }
                if [ $pattern = ABBA ]; then
                    [ "$live" = 0 ] || fail "$w-$SYS seed $seed: the lead-in was off, yet $live sampled objects are live at exit"
                else
                    within "$live" $lsamples 6 ||
                        fail "$w-$SYS seed $seed: $live sampled objects live at exit, not within 6 sd of $lsamples"
                fi
                livemean="$lsamples live at exit"
                [ $pattern = ABBA ] && livemean="0 live at exit"
                mean="$mean, $livemean"
                ;;
        esac
        ok "$w-$SYS alloc seed $seed ($pattern): conforms, $blocks blocks, $n samples (expected $mean)"
    done

    # A/A: nothing switched; without a period, no samples at all.
    o=$tmp/$w-none
    got=$(run_alt $w 0 "$o" "SGC_ALTERNATE=none SGC_ALT_SEGMENT=1ms" $args) || { fail "$w-$SYS none: exit $?"; continue; }
    [ "$got" = "$want" ] || fail "$w-$SYS none: printed '$got'"
    check "$o.seg" --stats "$o.stats" --objects --mode none --system $SYS >"$tmp/out" ||
        { fail "$w-$SYS none: the series does not conform:"; cat "$tmp/out"; }
    [ "$(seg_sum "$o.seg" alloc_samples 0)" = 0 ] && [ "$(seg_sum "$o.seg" sampled_bytes 0)" = 0 ] ||
        fail "$w-$SYS none without a period: samples were taken"
    ok "$w-$SYS none: conforms, no samples"
done

# Segments of K collections (Go: its cycles, counted as major; V8: its
# scavenges, minor): every segment but the last holds exactly K, ended at
# gc, and the series conforms (the checker holds segment_fills to them).
if [ $SYS = go ] || [ $SYS = v8 ]; then
    for k in 1 2; do
        o=$tmp/fills-$k
        got=$(run_alt gcbench $P "$o" "SGC_ALTERNATE=alloc SGC_ALT_SEGMENT=$k SGC_SEED=2" --size 384) ||
            { fail "gcbench-$SYS with SGC_ALT_SEGMENT=$k: exit status $?"; continue; }
        check "$o.seg" --stats "$o.stats" --objects --mode alloc --system $SYS >"$tmp/out" ||
            { fail "gcbench-$SYS with SGC_ALT_SEGMENT=$k: the series does not conform:"; cat "$tmp/out"; continue; }
        col=major; [ $SYS = v8 ] && col=minor
        counts=$(awk -v f=$col '$1 == "columns" { for (i = 2; i <= NF; i++) c[$i] = i }
            $1 == "seg" && $(c["end"]) != "exit" { print $(c["end"]) ":" $(c[f]) }' "$o.seg" | sort -u | tr '\n' ' ')
        [ "$(sed -n 's/^segment_fills //p' "$o.seg")" = $k ] && [ "$counts" = "gc:$k " ] ||
            fail "gcbench-$SYS with SGC_ALT_SEGMENT=$k: segment_fills $(sed -n 's/^segment_fills //p' "$o.seg"), segments' ends and $col collections: $counts"
        n=$(awk '$1 == "seg" && $3 > 0 && $7 != "exit" { b[$3] = 1 } END { print length(b) }' "$o.seg")
        [ "$n" -ge 3 ] || fail "gcbench-$SYS with SGC_ALT_SEGMENT=$k: only $n blocks"
        ok "gcbench-$SYS segments of $k collections: conforms, every segment $counts($n blocks)"
    done
fi
# V8 measured by its main thread under --single-threaded (fcthread.node):
# the series says so, and without --single-threaded the setting is refused.
if [ $SYS = v8 ]; then
    o=$tmp/thread
    got=$(run_alt binarytrees $P "$o" \
        "SGC_ALTERNATE=alloc SGC_ALT_SEGMENT=1ms SGC_SEED=1 FREECHECK_V8_CPU_CLOCK=thread FREECHECK_NODE_OPTS=--single-threaded" \
        $bt_args) ||
        fail "binarytrees-v8 with its thread's CPU time: exit status $?"
    check "$o.seg" --stats "$o.stats" --objects --mode alloc --system v8 --summary >"$tmp/out" &&
        grep -q " cpu_clock=thread " "$tmp/out" ||
        { fail "binarytrees-v8 with its thread's CPU time: the series does not conform or is not of the thread:"; cat "$tmp/out"; }
    [ "$got" = "$("$BIN/binarytrees" $bt_args)" ] || fail "binarytrees-v8 with its thread's CPU time printed '$got'"
    run_alt gcbench $P "$tmp/bad" "SGC_ALTERNATE=alloc FREECHECK_V8_CPU_CLOCK=thread" --size 1 >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -q "single-threaded" "$tmp/err" ||
        fail "v8: FREECHECK_V8_CPU_CLOCK=thread without --single-threaded exits $rc (expected 2 and why): $(cat "$tmp/err")"
    run_alt gcbench $P "$tmp/bad" "SGC_ALTERNATE=alloc FREECHECK_V8_CPU_CLOCK=wall" --size 1 >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -q "FREECHECK_V8_CPU_CLOCK" "$tmp/err" || fail "v8: FREECHECK_V8_CPU_CLOCK=wall exits $rc (expected 2)"
    ok "binarytrees-v8 by its thread's CPU time under --single-threaded; refused otherwise"
fi

# Bad settings exit 2 with a message; an unwritable series exits 1.
# A count of collections is a segment length only for a system that counts
# them (Go's cycles, V8's scavenges).
count_bad=; case $SYS in go | v8) count_bad="SGC_ALT_SEGMENT=0 SGC_ALT_SEGMENT=1000001" ;; *) count_bad=SGC_ALT_SEGMENT=16 ;; esac
for bad in "SGC_ALTERNATE=time" "SGC_ALTERNATE=bogus" $count_bad "SGC_ALT_SEGMENT=0ms" \
    "SGC_ALT_SEGMENT=60001ms" "SGC_SEED=-1"; do
    run_alt gcbench $P "$tmp/bad" "SGC_ALTERNATE=alloc $bad" --size 1 >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -q "${bad%%=*}" "$tmp/err" || fail "$SYS with $bad: exit $rc (expected 2 and a message naming it): $(cat "$tmp/err")"
done
# Alternation settings without alternation, and freecheck's debug costs, are refused too.
for bad in "SGC_ALT_SEGMENT=5ms" "SGC_ALT_OUT=$tmp/x.seg" "SGC_ALTERNATE=off SGC_ALT_SEGMENT=5ms" \
    "SGC_ALTERNATE=alloc SGC_ALT_CARRY=10" "SGC_ALTERNATE=alloc SGC_ALT_COST=10"; do
    name=${bad##* }; name=${name%%=*}
    run_alt gcbench $P "$tmp/bad" "$bad" --size 1 >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -q "$name" "$tmp/err" || fail "$SYS with $bad: exit $rc (expected 2 and a message naming $name): $(cat "$tmp/err")"
done
run_alt gcbench 0 "$tmp/bad" SGC_ALTERNATE=alloc --size 1 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "SGC_ALTERNATE" "$tmp/err" || fail "$SYS: alloc alternation without a period exits $rc (expected 2): $(cat "$tmp/err")"
run_alt gcbench $P "$tmp/no/such/dir/x" SGC_ALTERNATE=alloc --size 1 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "SGC_ALT_OUT" "$tmp/err" || fail "$SYS: an unwritable SGC_ALT_OUT exits $rc (expected 1 and a message)"

[ $failures = 0 ] && echo "$SYS alternation: all checks passed"
exit $((failures > 0))
