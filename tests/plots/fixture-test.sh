#!/bin/sh
# fixture-test.sh WORKDIR - plots/figures.sh on the synthetic fixture sweep draws every figure of plots/figures.list it has data for (1-8), correctly and repeatably.
#
# Checks: exit 0; every figure as a real PNG (signature) and a complete SVG,
# non-trivial in size; every caption names its figure and the sweep; the
# small multiples have one panel per workload; the exactness figure flags the
# one mismatching run the fixture holds; the CI level comes from summary.csv;
# no temporary files are left; a second run gives byte-identical SVGs (the
# run dots' jitter is deterministic); figure 8 (peers) gives each system's
# per-sample cost, none for a system without a sample count, and is absent
# for a sweep without peers data.
work=$1
[ -n "$work" ] || { echo "usage: fixture-test.sh WORKDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sweep="$work/fixture-sweep"
rm -rf "$sweep" && mkdir -p "$work" || exit 1
sh "$here/mkfixture.sh" "$sweep" || { echo "FAIL: mkfixture.sh failed"; exit 1; }

fail=0
bad() { echo "FAIL: $*"; fail=1; }

sh "$root/plots/figures.sh" "$sweep" > "$work/out1" 2>&1
rc=$?
cat "$work/out1"
[ $rc -eq 0 ] || bad "figures.sh exited $rc on a complete fixture"

# Every figure of plots/figures.list whose data the fixture has (the
# simulated figures, S1-S5, need a sweep with a simulated part: the e2e
# test), with the number the list gives it.
figs=$(awk -F'\t' '$1 != "" && $1 !~ /^#/ && $4 !~ /sim_/ && $4 !~ /^!/ { print $1 }' "$root/plots/figures.list")
nfigs=$(echo $figs | wc -w)
[ "$nfigs" -ge 7 ] || bad "plots/figures.list lists $nfigs figures with the fixture's data"
for f in $figs; do
    n=$(awk -F'\t' -v f="$f" '$1 == f { print $2 }' "$root/plots/figures.list")
    png="$sweep/figures/$f.png"; svg="$sweep/figures/$f.svg"; txt="$sweep/figures/$f.txt"
    [ -f "$png" ] || { bad "$f.png missing"; continue; }
    sig=$(od -An -c -N4 "$png" | tr -d ' ')
    [ "$sig" = '211PNG' ] || bad "$f.png is not a PNG (starts with $sig)"
    [ "$(wc -c < "$png")" -gt 15000 ] || bad "$f.png is suspiciously small ($(wc -c < "$png") bytes)"
    [ -f "$svg" ] && grep -q '<svg' "$svg" && grep -q '</svg>' "$svg" || bad "$f.svg missing or incomplete"
    [ -f "$txt" ] || { bad "$f.txt (caption) missing"; continue; }
    grep -q "^Figure $n\." "$txt" || bad "$f.txt does not start as figure $n"
    flat=$(tr '\n' ' ' < "$txt")          # captions are folded at 78 columns
    case "$flat" in *"sweep fixture-sweep"*) ;; *) false ;; esac || bad "$f.txt does not name the sweep"
    grep -q "NOT DRAWN" "$txt" && bad "$f.txt says NOT DRAWN on a complete fixture"
    case "$flat" in *"90% "*) ;; *) false ;; esac || bad "$f.txt does not give the confidence level of summary.csv (90%)"
    grep -q "fixture-sweep" "$svg" || bad "$f.svg has no title naming the sweep"
done

# One panel per workload in the small multiples (panel titles are SVG text).
for f in overhead-alloc overhead-time; do
    for w in alpha beta gamma; do
        grep -q ">$w<" "$sweep/figures/$f.svg" || bad "$f.svg has no panel for $w"
    done
done
# Every workload is in the legend of the single-panel figures.
for w in alpha beta gamma; do
    grep -q ">$w<" "$sweep/figures/sample-rate.svg" || bad "sample-rate.svg has no line for $w"
    grep -q ">$w<" "$sweep/figures/normalized.svg" || bad "normalized.svg has no slot for $w"
done
grep -q "mismatching runs: 1<" "$sweep/figures/exactness.svg" || bad "exactness.svg does not flag the fixture's one mismatching run"
# The in-process figure: a row per cell, the A/A rows and the verdicts in the key, the caption's counts.
for c in alpha/baseline beta/alloc-fixed-64K gamma/time-wall-1000Hz; do
    grep -q ">$c<" "$sweep/figures/inprocess.svg" || bad "inprocess.svg has no row for $c"
done
for k in "A/A (baseline: nothing switched)" "slower" "no effect above 2%" "not resolved"; do
    grep -q ">$k<" "$sweep/figures/inprocess.svg" || bad "inprocess.svg key lacks \"$k\""
done
grep -q ">no interval<" "$sweep/figures/inprocess.svg" || bad "inprocess.svg does not mark the cell without an interval"
tr '\n' ' ' < "$sweep/figures/inprocess.txt" | grep -q "6 sampling cells and 3 A/A rows" || bad "inprocess.txt does not count the cells"
tr '\n' ' ' < "$sweep/figures/inprocess.txt" | grep -q "red slower (3), blue faster (0), grey no effect above 2% (1), orange not resolved (1)" ||
    bad "inprocess.txt does not count the verdicts"
grep -q "steady-state marginal cost, not the whole run" "$sweep/figures/inprocess.txt" ||
    tr '\n' ' ' < "$sweep/figures/inprocess.txt" | grep -q "steady-state marginal cost, not the whole run" || bad "inprocess.txt does not say what it measures"
tr '\n' ' ' < "$sweep/figures/exactness.txt" | grep -q "mismatching runs in this sweep: 1" || bad "exactness.txt does not count the mismatch"
grep -q "poisson" "$sweep/figures/overhead-alloc.svg" || bad "overhead-alloc.svg does not show the poisson cells"
grep -q "90% CI" "$sweep/figures/overhead-alloc.svg" || bad "overhead-alloc.svg key does not say 90% CI"
grep -q "time samples, 1000 Hz" "$sweep/figures/cost-depth.svg" || bad "cost-depth.svg lacks the time-sample series"
grep -q "allocation samples, period 64K" "$sweep/figures/cost-depth.svg" || bad "cost-depth.svg lacks the allocation-sample series"
# Figure 8 (peers): a panel per workload with an estimate, each system's
# per-sample cost in the key (in-process when there is one, else the
# process level's) with its simulated instructions, and for the system that
# keeps no count of its samples no cost at all, said in the key and the caption.
for w in alpha beta; do grep -q ">$w<" "$sweep/figures/peers.svg" || bad "peers.svg has no panel for $w"; done
grep -q ">gamma<" "$sweep/figures/peers.svg" && bad "peers.svg has a panel for gamma, which has no overhead estimate"
for k in "freecheck: 412 ns per sample [398, 430] (process level, wall), 1084 instructions" \
         "jemalloc: 9625 ns per sample [9100, 10200] (in-process, CPU), 35512 instructions (not exact)" \
         "gperftools: no sample count, no per-sample cost" "jemalloc: per-sample cost n/a"; do
    grep -qF ">$k<" "$sweep/figures/peers.svg" || bad "peers.svg key lacks \"$k\""
done
peers_cap=$(tr '\n' ' ' < "$sweep/figures/peers.txt")
for k in "Figure 8. Allocation samplers side by side: overhead vs sampling period, per system (sweep fixture-sweep)." \
         "(one panel each: alpha beta; no overhead estimate, so no panel: gamma)" \
         "alpha: freecheck 412 ns per sample [398, 430] (process level, wall), 1084 instructions, gperftools none (no sample count), jemalloc 9625 ns per sample [9100, 10200] (in-process, CPU), 35512 instructions (not exact); beta: freecheck 388 ns per sample [371, 405] (process level, wall), gperftools none (no sample count), jemalloc per-sample cost n/a." \
         "No per-sample cost for gperftools: the system keeps no count of its samples, and bytes allocated / period is not the number it took" \
         "with a one-sample 90% interval"; do
    case "$peers_cap" in *"$k"*) ;; *) bad "peers.txt lacks \"$k\"" ;; esac
done
ls -a "$sweep/figures" | grep -q '^\.tmp' && bad "temporary files left in figures/"
# The index lists every figure with its picture.
for f in $figs; do
    grep -q "]($f.png)" "$sweep/figures/index.md" || bad "index.md does not show $f.png"
done
[ "$(grep -c '^## Figure' "$sweep/figures/index.md")" -eq "$nfigs" ] || bad "index.md does not have $nfigs figure sections"

# Same data, same pictures.
mkdir -p "$work/first" && cp "$sweep"/figures/*.svg "$work/first/"
sh "$root/plots/figures.sh" "$sweep" > "$work/out2" 2>&1 || bad "second run failed"
for f in $figs; do
    cmp -s "$sweep/figures/$f.svg" "$work/first/$f.svg" || bad "$f.svg differs between two runs on the same data"
done

# A sweep without peers data (one system) has no figure 8 at all: no
# picture, no caption, no entry in the index; a picture left from an earlier
# run goes.
rm "$sweep/plotdata/peers.dat"
sh "$root/plots/figures.sh" "$sweep" > "$work/out3" 2>&1 || bad "figures.sh failed on the fixture without peers.dat"
for x in png svg txt; do [ -e "$sweep/figures/peers.$x" ] && bad "peers.$x still there for a sweep without peers data"; done
grep -q "Figure 8" "$sweep/figures/index.md" && bad "index.md lists figure 8 for a sweep without peers data"
grep -q "peers" "$work/out3" && bad "figures.sh mentions peers for a sweep without peers data: $(cat "$work/out3")"
[ "$(grep -c '^## Figure' "$sweep/figures/index.md")" -eq $((nfigs - 1)) ] || bad "index.md does not have $((nfigs - 1)) figure sections without peers data"

[ $fail -eq 0 ] && echo "fixture: all $nfigs figures drawn and checked"
exit $fail
