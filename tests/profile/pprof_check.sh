#!/bin/sh
# pprof_check.sh SGCPROF BINDIR WORKDIR - the pprof export read by the real
# consumer: for several workloads, `go tool pprof -top` and `-traces` on the
# exported profile must give exactly `sgcprof report --bytes`'s totals and
# per-function figures (self = flat, inclusive = cum, to the byte and the
# sample) and `sgcprof folded`'s stacks.  go tool pprof reads local files
# without a network; HOME, GOCACHE and PPROF_TMPDIR point into WORKDIR so it
# writes nothing elsewhere (a CI machine, root, no network).
sgcprof=$1; bindir=$2; work=$3
[ -x "$sgcprof" ] && [ -d "$bindir" ] && [ -n "$work" ] || { echo "usage: pprof_check.sh SGCPROF BINDIR WORKDIR" >&2; exit 2; }
command -v go >/dev/null || { echo "FAIL: go (golang-go) is not installed: make deps" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/home" || exit 1
export HOME="$work/home" GOCACHE="$work/home/cache" PPROF_TMPDIR="$work/home" GOFLAGS=-mod=mod GOTOOLCHAIN=local
unset PPROF_BINARY_PATH
fail=0
checks=0

pp() { # pp FILE.pb.gz ARGS... - go tool pprof's output, without the header
    f=$1; shift
    go tool pprof -nodecount=1000000 -nodefraction=0 -edgefraction=0 "$@" "$f" 2>"$work/pprof.err" ||
        { echo "FAIL: go tool pprof $* $f:"; cat "$work/pprof.err"; return 1; }
}

# The "name<TAB>value" lines of one of the report's tables (heading given),
# the value in column vcol, the name from column ncol on; sorted.
report_table() { # FILE HEADING VCOL NCOL
    awk -v h="$2" -v vc="$3" -v nc="$4" '
        index($0, h) == 1 { on = 1; getline; next }
        on && NF == 0 { exit }
        on { n = $nc; for (i = nc + 1; i <= NF; i++) n = n " " $i; print n "\t" $vc }' "$1" | LC_ALL=C sort
}

# go tool pprof -top: "name<TAB>flat" (flat > 0) or "name<TAB>cum"; units
# (B, ns) stripped: the values are exact integers with -unit=byte / ns.
top_table() { # FILE COLUMN(flat|cum)
    awk -v col="$2" '
        /^ *flat  flat%/ { on = 1; next }
        on {
            f = $1; c = $4; n = $6; for (i = 7; i <= NF; i++) n = n " " $i
            sub(/[a-zA-Z]+$/, "", f); sub(/[a-zA-Z]+$/, "", c)
            if (col == "flat" && f + 0 > 0) print n "\t" f
            if (col == "cum") print n "\t" c
        }' "$1" | LC_ALL=C sort
}

# go tool pprof -traces: "root;...;leaf value" per distinct stack (values
# summed, zero values left out), names as sgcprof folded writes them.
traces_folded() { # FILE
    awk '
        function flush() { if (d > 0 && v + 0 > 0) { s = st[d]; for (i = d - 1; i >= 1; i--) s = s ";" st[i]; w[s] += v } d = 0 }
        function fold(n) {
            if (n == "[minor GC]") return "[minor_GC]"
            if (n == "[major GC]") return "[major_GC]"
            if (n == "(no frame)") return "(no_frame)"
            gsub(/;/, "\\x3b", n); gsub(/ /, "\\x20", n); return n
        }
        /^-----------\+/ { flush(); on = 1; next }
        !on { next }
        /^             / { n = $0; sub(/^ +/, "", n); st[++d] = fold(n); next }
        /^ *[0-9][0-9.]*[a-zA-Z]*   / { v = $1; sub(/[a-zA-Z]+$/, "", v); n = $0; sub(/^ *[^ ]+   /, "", n); d = 0; st[++d] = fold(n); next }
        END { flush(); for (s in w) printf "%s %.0f\n", s, w[s] }' "$1" | LC_ALL=C sort
}

same() { # WHAT EXPECTED ACTUAL
    checks=$((checks + 1))
    if cmp -s "$2" "$3"; then
        echo "ok   $1 ($(wc -l < "$2") lines)"
    elif [ ! -s "$2" ] && [ ! -s "$3" ]; then
        echo "ok   $1 (empty)"
    else
        echo "FAIL $1: sgcprof vs go tool pprof:"
        diff "$2" "$3" | head -n 20
        fail=1
    fi
}

same_value() { # WHAT EXPECTED ACTUAL
    checks=$((checks + 1))
    if [ -n "$2" ] && [ "$2" = "$3" ]; then
        echo "ok   $1 = $2"
    else
        echo "FAIL $1: sgcprof says '$2', go tool pprof '$3'"
        fail=1
    fi
}

pprof_total() { # FILE: the X in "Showing nodes accounting for X, 100% of X total" (units stripped)
    sed -n 's/^Showing nodes accounting for \([0-9]*\)[a-zA-Z]*, .* of \([0-9]*\)[a-zA-Z]* total$/\2/p' "$1"
}

run() { # NAME COMMAND...
    name=$1; shift
    w="$work/$name"
    SGC_ALLOC_PERIOD=${PERIOD:-4K} SGC_ALLOC_MODE=${MODE:-fixed} SGC_TIME_HZ=2000 SGC_TIME_CLOCK=wall \
        SGC_PROFILE="$w.prof" "$@" >/dev/null 2>"$w.run.err" ||
        { echo "FAIL: $name did not run:"; cat "$w.run.err"; fail=1; return; }
    "$sgcprof" pprof "$w.prof" -o "$w.pb.gz" || { echo "FAIL: sgcprof pprof $name"; fail=1; return; }
    "$sgcprof" report --bytes --top 100000 "$w.prof" > "$w.report" || { fail=1; return; }
    gzip -t "$w.pb.gz" || { echo "FAIL: $name.pb.gz is not gzip"; fail=1; return; }

    # Allocation: estimated bytes, self = flat, inclusive = cum.
    pp "$w.pb.gz" -top -unit=byte -sample_index=alloc_space > "$w.top.space" || { fail=1; return; }
    report_table "$w.report" "-- Top allocation sites by estimated bytes (self)" 2 6 > "$w.r.self"
    top_table "$w.top.space" flat > "$w.p.self"
    same "$name: allocation sites, self bytes = flat" "$w.r.self" "$w.p.self"
    report_table "$w.report" "-- Top allocation sites by estimated bytes (inclusive)" 2 6 > "$w.r.incl"
    top_table "$w.top.space" cum > "$w.p.incl"
    same "$name: allocation sites, inclusive bytes = cum" "$w.r.incl" "$w.p.incl"
    same_value "$name: total estimated bytes" \
        "$(sed -n 's/^== Allocation samples: .*, estimated \([0-9]*\) B allocated$/\1/p' "$w.report")" \
        "$(pprof_total "$w.top.space")"
    pp "$w.pb.gz" -top -sample_index=alloc_samples > "$w.top.asamples" || { fail=1; return; }
    same_value "$name: allocation samples (objects sampled)" \
        "$(sed -n 's/^== Allocation samples: \([0-9]*\) objects.*/\1/p' "$w.report")" \
        "$(pprof_total "$w.top.asamples")"
    report_table "$w.report" "-- Top allocation sites by estimated bytes (self)" 5 6 > "$w.r.selfn"
    top_table "$w.top.asamples" flat > "$w.p.selfn"
    same "$name: allocation sites, self samples = flat" "$w.r.selfn" "$w.p.selfn"
    pp "$w.pb.gz" -top -unit=byte -sample_index=survived_space > "$w.top.surv" || { fail=1; return; }
    same_value "$name: estimated bytes surviving their first minor collection" \
        "$(sed -n 's/^   survived their first minor collection: estimated \([0-9]*\) B.*/\1/p' "$w.report")" \
        "$(pprof_total "$w.top.surv")"

    # Time: samples, self = flat, inclusive = cum; nanoseconds.
    pp "$w.pb.gz" -top -sample_index=time_samples > "$w.top.time" || { fail=1; return; }
    report_table "$w.report" "-- Top functions by time samples (self)" 2 4 > "$w.r.tself"
    top_table "$w.top.time" flat > "$w.p.tself"
    same "$name: time samples, self = flat" "$w.r.tself" "$w.p.tself"
    report_table "$w.report" "-- Top functions by time samples (inclusive)" 2 4 > "$w.r.tincl"
    top_table "$w.top.time" cum > "$w.p.tincl"
    same "$name: time samples, inclusive = cum" "$w.r.tincl" "$w.p.tincl"
    same_value "$name: time samples written" \
        "$(sed -n 's/^== Time samples: \([0-9]*\) written.*/\1/p' "$w.report")" "$(pprof_total "$w.top.time")"
    pp "$w.pb.gz" -top -unit=ns -sample_index=time > "$w.top.ns" || { fail=1; return; }
    same_value "$name: sampled nanoseconds" \
        "$(sed -n 's/^   each sample stands for [0-9]* ns (1 \/ the achieved rate): \([0-9]*\) ns sampled in all$/\1/p' "$w.report")" \
        "$(pprof_total "$w.top.ns")"

    # Every stack: -traces = sgcprof folded.
    pp "$w.pb.gz" -traces -unit=byte -sample_index=alloc_space > "$w.traces.space" || { fail=1; return; }
    "$sgcprof" folded --alloc "$w.prof" | LC_ALL=C sort > "$w.f.alloc"
    traces_folded "$w.traces.space" > "$w.t.alloc"
    same "$name: -traces stacks and bytes = folded --alloc" "$w.f.alloc" "$w.t.alloc"
    pp "$w.pb.gz" -traces -sample_index=time_samples > "$w.traces.time" || { fail=1; return; }
    "$sgcprof" folded --time "$w.prof" | LC_ALL=C sort > "$w.f.time"
    traces_folded "$w.traces.time" > "$w.t.time"
    same "$name: -traces stacks and samples = folded --time" "$w.f.time" "$w.t.time"
}

run gcbench "$bindir/gcbench" --size 60
run binarytrees "$bindir/binarytrees" --size 2
run lrucache "$bindir/lrucache" --size 100
run deepstack "$bindir/deepstack" --size 200
MODE=poisson PERIOD=16K run largeobj "$bindir/largeobj" --size 300
run pystone "$bindir/interp" --program pystone --size 2000
echo "$checks checks"
[ "$checks" -ge 60 ] || { echo "FAIL: only $checks checks ran"; fail=1; }
exit $fail
