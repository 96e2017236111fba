#!/bin/sh
# e2e-test.sh WORKDIR - the quick sweep end to end into figures, then `make figures RESULTS=dir` on a copy holding only the stored results.
#
# Needs SWEEP (the sweep binary), BUILD (the build directory the test runs
# in) and MAKE.  Part 1: `sweep --quick` on the real workloads, then
# `make figures` on it: summary files and every figure the quick sweep has
# data for (all but per-sample cost vs depth, which needs a sweep that varies
# deepstack's depth; its caption must say so).  Part 2: the sweep directory
# copied with nothing but results.db and runs.csv; `make figures` on the copy
# must rebuild statistics and figures from them alone, start no run and
# change no stored result.  Part 3: figure 5 from what analyze writes, without
# the minutes a real depth sweep takes: a synthetic results.db
# (contracts/schema.sql plus tests/plots/depth.sql's made-up rows) goes through
# the real build/bin/analyze and then figures.sh.
work=$1
[ -n "$work" ] || { echo "usage: e2e-test.sh WORKDIR" >&2; exit 2; }
: "${SWEEP:?SWEEP must name the sweep binary}"
: "${BUILD:?BUILD must name the build directory}"
: "${ANALYZE:?ANALYZE must name the analyze binary}"
here=$(cd "$(dirname "$0")" && pwd)
MAKE=${MAKE:-make}
rm -rf "$work" && mkdir -p "$work" || exit 1

fail=0
bad() { echo "FAIL: $*"; fail=1; }

# check_outputs DIR LABEL: the summary files and the figures of a quick sweep.
check_outputs() {
    d=$1
    for f in summary.csv summary.md; do
        [ -s "$d/$f" ] || bad "$2: $f missing or empty"
    done
    # every figure of plots/figures.list but cost-depth (below) and those of
    # data only some sweeps have (?data: the simulated ones below; the
    # in-process figure, which this sweep must not have)
    for f in $(awk -F'\t' '$1 != "" && $1 !~ /^#/ && $1 != "cost-depth" && $4 !~ /[?!]/ { print $1 }' "$here/../../plots/figures.list"); do
        [ -s "$d/figures/$f.png" ] && [ "$(od -An -c -N4 "$d/figures/$f.png" | tr -d ' ')" = '211PNG' ] ||
            bad "$2: figures/$f.png missing or not a PNG"
        [ -s "$d/figures/$f.svg" ] || bad "$2: figures/$f.svg missing"
        [ -s "$d/figures/$f.txt" ] && ! grep -q "NOT DRAWN" "$d/figures/$f.txt" || bad "$2: figures/$f.txt missing or says NOT DRAWN"
    done
    # The quick sweep's simulated part: its statistics and its five figures,
    # the side-by-side one with the wall time of the same sweep's timed cells.
    [ -s "$d/sim.csv" ] || bad "$2: sim.csv missing or empty"
    grep -q "^## Simulated metrics: exact counts" "$d/summary.md" || bad "$2: summary.md has no simulated section"
    grep -q "NOT DETERMINISTIC" "$d/summary.md" && bad "$2: a simulated cell of the quick sweep was not deterministic"
    for f in sim-overhead-alloc-instructions sim-overhead-alloc-cycles sim-overhead-time sim-normalized sim-vs-wall; do
        [ -s "$d/figures/$f.png" ] && [ -s "$d/figures/$f.svg" ] && [ -s "$d/figures/$f.txt" ] &&
            ! grep -q "NOT DRAWN" "$d/figures/$f.txt" || bad "$2: figures/$f missing or NOT DRAWN"
    done
    grep -q "wall time, median and" "$d/figures/sim-vs-wall.svg" || bad "$2: sim-vs-wall.svg has no wall-time series"
    # Not in the in-process design: no figure 7 at all, and none in the index.
    [ -e "$d/figures/inprocess.png" ] || [ -e "$d/figures/inprocess.txt" ] && bad "$2: figure 7 drawn for a sweep without in-process data"
    grep -q "inprocess" "$d/figures/index.md" && bad "$2: index.md lists figure 7"
    # Every workload on freecheck: no peers data, no figure 8 (sweeps of several systems only).
    [ -e "$d/plotdata/peers.dat" ] && bad "$2: analyze wrote plotdata/peers.dat for a sweep of one system"
    [ -e "$d/figures/peers.png" ] || [ -e "$d/figures/peers.txt" ] && bad "$2: figure 8 drawn for a sweep of one system"
    grep -q "peers" "$d/figures/index.md" && bad "$2: index.md lists figure 8"
    # The quick sweep does not vary the stack depth: no picture, and a caption saying why.
    if [ -e "$d/figures/cost-depth.png" ]; then
        [ -s "$d/figures/cost-depth.svg" ] || bad "$2: cost-depth.png without its SVG"
    else
        grep -q "NOT DRAWN" "$d/figures/cost-depth.txt" 2>/dev/null || bad "$2: cost-depth neither drawn nor explained"
    fi
    grep -q "0 mismatch\|mismatching runs in this sweep: 0" "$d/figures/exactness.txt" ||
        tr '\n' ' ' < "$d/figures/exactness.txt" | grep -q "mismatching runs in this sweep: 0" ||
        bad "$2: the exactness caption does not report 0 mismatching runs"
}

start=$(date +%s)
# A private CPU lock: this test's sweep does not queue behind other sweeps.
mkdir -p "$work/locks"
# The simulated cells at fixed sizes of 5-6 million instructions rather than
# calibrated (gcbench comes out at --size 1, 0.8 million, for the quick
# plan's 0.3 s under valgrind); their runs must repeat every count (the
# summary says NOT DETERMINISTIC otherwise, checked below).
FREECHECK_LOCK_DIR="$work/locks" "$SWEEP" --quick --sim-size gcbench=6 --sim-size microbench=4 --no-progress \
    --out "$work/res" > "$work/sweep.out" 2> "$work/sweep.err"
rc=$?
echo "quick sweep: exit $rc in $(( $(date +%s) - start )) s"
[ $rc -eq 0 ] || { bad "the quick sweep failed"; tail -n 20 "$work/sweep.err"; exit 1; }
sweep="$work/res/$(readlink "$work/res/latest")"
[ -f "$sweep/results.db" ] || { bad "no results.db in $sweep"; exit 1; }

$MAKE --no-print-directory figures BUILD="$BUILD" RESULTS="$sweep" > "$work/figures1.out" 2>&1 ||
    { bad "make figures on the fresh quick sweep failed"; tail -n 30 "$work/figures1.out"; }
grep "^figures:" "$work/figures1.out"
check_outputs "$sweep" "quick sweep"

# Part 2: stored results only.
copy="$work/stored/$(basename "$sweep")"
mkdir -p "$copy" && cp "$sweep/results.db" "$sweep/runs.csv" "$copy/" || exit 1
before=$(cksum < "$copy/results.db")
runs_before=$(sqlite3 -batch "$copy/results.db" "SELECT count(*) FROM runs")
$MAKE --no-print-directory figures BUILD="$BUILD" RESULTS="$copy" > "$work/figures2.out" 2>&1 ||
    { bad "make figures on stored results failed"; tail -n 30 "$work/figures2.out"; }
check_outputs "$copy" "stored results"
[ "$(cksum < "$copy/results.db")" = "$before" ] || bad "make figures changed results.db"
[ "$(sqlite3 -batch "$copy/results.db" "SELECT count(*) FROM runs")" = "$runs_before" ] || bad "make figures added runs"
[ "$(ls "$work/stored")" = "$(basename "$sweep")" ] || bad "make figures created another sweep directory"
grep -q "sweep --quick\|runs planned" "$work/figures2.out" && bad "make figures ran the sweep"
# The statistics are deterministic given the seed, so the copy's figures
# match the original's.
for f in overhead-alloc exactness sample-rate; do
    cmp -s "$sweep/figures/$f.svg" "$copy/figures/$f.svg" ||
        bad "figures/$f.svg differs between the sweep and its stored copy (same results.db)"
done

# Part 3: per-sample cost against depth, through the real analyze.
dep="$work/depth-sweep"
mkdir -p "$dep" && cat "$here/../../contracts/schema.sql" "$here/depth.sql" | sqlite3 -batch "$dep/results.db" || { bad "cannot build the depth database"; exit 1; }
"$ANALYZE" --resamples 1000 --quiet "$dep" || bad "analyze failed on the depth database"
sh "$here/../../plots/figures.sh" "$dep" > "$work/figures3.out" 2>&1 || { bad "figures.sh failed on the depth sweep"; cat "$work/figures3.out"; }
[ -s "$dep/figures/cost-depth.png" ] && [ -s "$dep/figures/cost-depth.svg" ] || bad "cost-depth not drawn from analyze's depth.dat"
grep -q "allocation samples, period 64K" "$dep/figures/cost-depth.svg" && grep -q "time samples, 1000 Hz" "$dep/figures/cost-depth.svg" ||
    bad "cost-depth.svg lacks the allocation or the time series"
for x in 8 32 128; do grep -q "> *$x<" "$dep/figures/cost-depth.svg" || bad "cost-depth.svg has no tick at depth $x"; done

[ $fail -eq 0 ] && echo "end to end: quick sweep -> statistics -> figures, again from stored results, and figure 5 from analyze's depth data"
exit $fail
