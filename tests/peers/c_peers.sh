#!/bin/sh
# c_peers.sh BIN - the C peers (jemalloc, gperftools): same checksum as freecheck's
# workloads, the stats record's form and exact allocation counts, baseline
# without samples, and, at a period of 4096 bytes, jemalloc's sample count
# equal to the cumulative count of its own heap profile dump; gperftools'
# count (its sampled allocations' stack captures, pr_gperftools.cc) equal to
# tcmalloc's own list of sampled objects when none is freed (tc_count), and
# within the bounds of its rule (no sample over the first 16 MiB, then
# exponential gaps of size-class bytes); the period in force reported.
BIN=$1
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=4096

# workload, its small arguments, and its allocation counts (freecheck's objects_allocated).
for spec in "binarytrees|--size 2 --depth 10" "gcbench|--size 64"; do
    w=${spec%%|*} args=${spec#*|}
    want=$("$BIN/$w" $args) || { fail "$BIN/$w $args failed"; continue; }
    SGC_STATS=$tmp/fc.stats "$BIN/$w" $args >/dev/null
    objects=$(stat "$tmp/fc.stats" objects_allocated)
    case $w in
        binarytrees) bytes=$((objects * 24)) ;;
        gcbench)
            # Nodes of 32 bytes and one array of min(size*512, 500000) doubles.
            size=${args#--size }
            n=$((size * 512)); [ $n -gt 500000 ] && n=500000
            bytes=$(((objects - 1) * 32 + n * 8)) ;;
    esac
    for sys in jemalloc gperftools; do
        peer=$BIN/peers/$w-$sys
        if [ ! -x "$peer" ]; then
            if [ -s "$BIN/peers/$sys.missing" ]; then
                echo "skip $w-$sys: $(cat "$BIN/peers/$sys.missing")"
            else
                fail "$peer was not built and $BIN/peers/$sys.missing gives no reason"
            fi
            continue
        fi
        # Baseline: no sampling setting.
        s=$tmp/$w-$sys-base.stats
        rm -f "$s"
        same_checksum "$w-$sys $args" "$want" env SGC_STATS="$s" "$peer" $args || continue
        stats_parse "$s" || continue
        [ "$(stat "$s" objects_allocated)" = "$objects" ] ||
            fail "$w-$sys: objects_allocated $(stat "$s" objects_allocated), freecheck's workload $objects"
        [ "$(stat "$s" bytes_allocated)" = "$bytes" ] ||
            fail "$w-$sys: bytes_allocated $(stat "$s" bytes_allocated), expected $bytes"
        [ "$(stat "$s" alloc_period)" = 0 ] || fail "$w-$sys baseline: alloc_period $(stat "$s" alloc_period)"
        [ "$(stat "$s" peer_system)" = "$sys" ] || fail "$w-$sys: peer_system '$(stat "$s" peer_system)'"
        # The setting that turns sampling off (the peers sweep's baseline).
        # Both report 0 samples.
        case $sys in
            jemalloc) off=MALLOC_CONF=prof:false want_n=0 ;;
            gperftools) off=TCMALLOC_SAMPLE_PARAMETER=0 want_n=0 ;;
        esac
        s=$tmp/$w-$sys-off.stats
        same_checksum "$w-$sys $args, $off" "$want" env SGC_STATS="$s" $off "$peer" $args || continue
        stats_parse "$s" || continue
        [ "$(stat "$s" alloc_period)" = 0 ] && [ "$(stat "$s" alloc_samples)" = "$want_n" ] ||
            fail "$w-$sys with $off: alloc_period $(stat "$s" alloc_period), alloc_samples '$(stat "$s" alloc_samples)'"

        s=$tmp/$w-$sys-$P.stats
        case $sys in
            jemalloc)
                [ "$(stat "$tmp/$w-$sys-base.stats" alloc_samples)" = 0 ] ||
                    fail "$w-$sys baseline: alloc_samples '$(stat "$tmp/$w-$sys-base.stats" alloc_samples)', not 0"
                mkdir -p "$tmp/dump-$w"
                same_checksum "$w-$sys sampled" "$want" env SGC_STATS="$s" \
                    MALLOC_CONF=prof:true,lg_prof_sample:12,prof_accum:true,prof_unbias:false,prof_final:true,prof_prefix:$tmp/dump-$w/jeprof \
                    "$peer" $args || continue
                stats_parse "$s" || continue
                n=$(stat "$s" alloc_samples)
                dump=$(ls "$tmp/dump-$w"/jeprof.*.f.heap 2>/dev/null | head -n 1)
                # The dump's first line after the header: "t*: curobjs: curbytes [accumobjs: accumbytes]".
                accum=$(sed -n 's/^ *t\*: *[0-9]*: *[0-9]* *\[ *\([0-9]*\):.*/\1/p' "$dump" 2>/dev/null | head -n 1)
                [ "$(stat "$s" alloc_period)" = $P ] || fail "$w-$sys: alloc_period $(stat "$s" alloc_period), not $P"
                [ "${n:-0}" -gt 0 ] 2>/dev/null || fail "$w-$sys at $P: alloc_samples '$n', not positive"
                [ -n "$accum" ] && [ "$n" = "$accum" ] ||
                    fail "$w-$sys at $P: alloc_samples $n, jemalloc's heap profile dump counts '$accum' samples"
                # jemalloc samples size-class bytes: 24-byte nodes take 32, 32-byte ones 32.
                usize=$bytes; [ $w = binarytrees ] && usize=$((objects * 32))
                within "$n" "$((usize / P))" 6 || fail "$w-$sys at $P: $n samples, far from $usize / $P"
                ok "$w-$sys: checksum, counts; $n samples at $P = jemalloc's dump"
                ;;
            gperftools)
                [ "$(stat "$tmp/$w-$sys-base.stats" alloc_samples)" = 0 ] ||
                    fail "$w-$sys baseline: alloc_samples '$(stat "$tmp/$w-$sys-base.stats" alloc_samples)', not 0"
                [ "$(stat "$tmp/$w-$sys-base.stats" alloc_samples_live)" = 0 ] ||
                    fail "$w-$sys baseline: alloc_samples_live is not 0"
                same_checksum "$w-$sys sampled" "$want" env SGC_STATS="$s" TCMALLOC_SAMPLE_PARAMETER=$P \
                    "$peer" $args 2>"$tmp/err" || continue
                stats_parse "$s" || continue
                [ "$(stat "$s" alloc_period)" = $P ] || fail "$w-$sys: alloc_period $(stat "$s" alloc_period), not $P"
                n=$(stat "$s" alloc_samples)
                live=$(stat "$s" alloc_samples_live)
                case "$live" in
                    '' | *[!0-9]*) fail "$w-$sys at $P: alloc_samples_live '$live'" ;;
                esac
                # tcmalloc samples size-class bytes (24-byte nodes take 32) and
                # none over the first 16 MiB (docs/WORKLOADS.md).
                usize=$bytes; [ $w = binarytrees ] && usize=$((objects * 32))
                skip=$((16 << 20)); [ $usize -lt $skip ] && skip=$usize
                case "$n" in '' | *[!0-9]*) fail "$w-$sys at $P: alloc_samples '$n'"; continue ;; esac
                between "$n" $(((usize - skip) / P)) $((usize / P)) 6 ||
                    fail "$w-$sys at $P: alloc_samples $n, not within 6 sd of ($usize - $skip .. $usize) / $P"
                # Past the first 16 MiB, samples are taken.
                [ $usize -le $((skip + 64 * P)) ] || [ "$n" -gt 0 ] || fail "$w-$sys at $P: no samples past 16 MiB"
                [ "$live" -le "$n" ] || fail "$w-$sys at $P: $live sampled objects live at exit, more than its $n samples"
                ok "$w-$sys: checksum, counts; $n samples at $P, $live sampled objects live at exit"
                ;;
        esac
    done
done

# gperftools' count against tcmalloc's own list: with nothing freed, every
# sampled object is still allocated, so the samples counted equal the
# sampled objects ReadStackTraces lists (tc_count: 64 MiB of 32-byte
# objects, kept, at two periods).
if [ -x "$BIN/peers/gcbench-gperftools" ]; then
    tc=$(dirname "$BIN")/test-bin/peers/tc_count
    if [ ! -x "$tc" ]; then
        fail "$tc was not built, though the gperftools peers were"
    else
        for period in 65536 262144; do
            out=$(TCMALLOC_SAMPLE_PARAMETER=$period "$tc" 67108864) || { fail "tc_count at $period: exit $?: $out"; continue; }
            n=${out#samples } n=${n%% *} live=${out##* live }
            [ "$n" -gt 0 ] && [ "$n" = "$live" ] ||
                fail "tc_count at $period: $out (the count must equal tcmalloc's live sampled objects, and be positive)"
            between "$n" $((48 * 1048576 / period)) $((64 * 1048576 / period)) 6 ||
                fail "tc_count at $period: $n samples, not within 6 sd of (48..64 MiB) / $period"
            ok "gperftools' count at $period: $n samples = $live sampled objects in tcmalloc's list"
        done
    fi
fi

# Bad arguments exit 2 with a message; --help exits 0.
for peer in "$BIN"/peers/binarytrees-jemalloc "$BIN"/peers/gcbench-gperftools; do
    [ -x "$peer" ] || continue
    for bad in "--size 0" "--size x" "--size" "--bogus" "extra" "--size 1 --depth 99"; do
        "$peer" $bad >/dev/null 2>"$tmp/err"
        rc=$?
        case $peer in *gcbench*) [ "$bad" = "--size 1 --depth 99" ] && continue ;; esac
        [ $rc = 2 ] && [ -s "$tmp/err" ] || fail "$(basename "$peer") $bad: exit $rc (expected 2 and a message)"
    done
    "$peer" --help >/dev/null || fail "$(basename "$peer") --help: exit $?"
    # An unwritable stats file is a failure (exit 1), after the checksum.
    SGC_STATS=$tmp/no/such/dir/s "$peer" --size 1 >/dev/null 2>"$tmp/err"
    [ $? = 1 ] && grep -q "cannot write the stats record" "$tmp/err" ||
        fail "$(basename "$peer"): an unwritable SGC_STATS is not reported"
done

[ $failures = 0 ] && echo "c peers: all checks passed"
exit $((failures > 0))
