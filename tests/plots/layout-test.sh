#!/bin/sh
# layout-test.sh WORKDIR - every figure drawn from the fixture and from committed sweeps passes tests/plots/layout-check.py.
#
# Four sweeps, so that every figure of plots/figures.list is drawn at least
# once: tests/plots/mkfixture.sh's synthetic sweep (figures 1-8; its periods
# 32K, 64K, 128K and 4M are off the period axis's every-other-octave grid),
# results/reference (the simulated figures S1-S5, with values at or below 0
# on the log axes), results/reference-peers (figure 8 on real systems), and
# the fixture again under a sweep's long name with figure 8 as one panel.
# The committed sweeps are copied (their plot data, summary and regression
# files only) so nothing under results/ changes.  layout-check.py reads the
# SVG's text and the PNG's pixels: titles within the canvas and clear of
# other text, at least three tick labels on every value axis, a label for
# every period of the plan, no period in a title that the data lacks, every
# value a log axis cannot show named in the caption, and figure 8's caption
# naming only the sweep's systems; and the comparison figure's key.
work=$1
[ -n "$work" ] || { echo "usage: layout-test.sh WORKDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
sh "$here/mkfixture.sh" "$work/fixture" || { echo "FAIL: mkfixture.sh failed"; exit 1; }
for ref in reference reference-peers; do
    mkdir -p "$work/$ref" && cp -r "$root/results/$ref/plotdata" "$work/$ref/" &&
        for f in summary.csv summary.md regress.csv; do
            [ ! -f "$root/results/$ref/$f" ] || cp "$root/results/$ref/$f" "$work/$ref/" || exit 1
        done || { echo "FAIL: cannot copy results/$ref"; exit 1; }
done
# A sweep with a real sweep's long name and figure 8 as a single panel (the
# fixture's alpha only): a long title on a narrow canvas.
long=20261202-055417-one-panel
cp -r "$work/fixture" "$work/$long" && rm -rf "$work/$long/figures" &&
    awk 'NR == 1 || !NF || $1 == "alpha"' "$work/fixture/plotdata/peers.dat" > "$work/$long/plotdata/peers.dat" ||
    { echo "FAIL: cannot make $long"; exit 1; }
total=0
for s in fixture reference reference-peers $long; do
    sh "$root/plots/figures.sh" "$work/$s" > "$work/$s.out" 2>&1 || { echo "FAIL: figures.sh on $s exited $?:"; cat "$work/$s.out"; fail=1; }
    python3 "$here/layout-check.py" "$work/$s" "$root/plots/figures.list" > "$work/$s.check" 2>&1 || fail=1
    sed "s/^/$s: /" "$work/$s.check"
    n=$(ls "$work/$s/figures/"*.svg 2>/dev/null | wc -l); total=$((total + n))
done
# The comparison figure (figures.sh --compare, as make compare runs it) from
# a compare.dat of build/bin/compare's form, one row per verdict: its key
# says what each colour means.
mkdir -p "$work/cmp" && {
    echo "# compare.dat: one row per matched cell (B against A), gate ratio threshold 2% time wall"
    echo "# row label change_pct lo_pct hi_pct verdict"
    echo '0 "alpha/alloc-fixed-64K" 5.1 3.2 7.4 slower'
    echo '1 "beta/alloc-fixed-64K" -4.0 -6.5 -2.6 faster'
    echo '2 "gamma/alloc-fixed-64K" 0.2 -0.9 1.1 same'
    echo '3 "gamma/time-wall-1000Hz" 1.5 -1.2 4.4 inconclusive'
} > "$work/cmp/compare.dat"
if sh "$root/plots/figures.sh" --compare "$work/cmp" > "$work/cmp.out" 2>&1; then
    for t in png svg; do [ -s "$work/cmp/compare.$t" ] || { echo "FAIL: figures.sh --compare wrote no compare.$t"; fail=1; }; done
    for k in "slower: interval above the band" "faster: below the band" "same: within the band" "inconclusive or other (compare.md says why)"; do
        grep -qF ">$k<" "$work/cmp/compare.svg" || { echo "FAIL: compare.svg has no key entry \"$k\""; fail=1; }
    done
    total=$((total + 1))
else
    echo "FAIL: figures.sh --compare exited $?:"; cat "$work/cmp.out"; fail=1
fi
# every figure of the list was drawn by at least one of the sweeps
for f in $(awk -F'\t' '$1 != "" && $1 !~ /^#/ && $4 !~ /^!/ { print $1 }' "$root/plots/figures.list"); do
    ls "$work"/*/figures/"$f.svg" > /dev/null 2>&1 || { echo "FAIL: figure $f was drawn from none of the sweeps"; fail=1; }
done
[ $fail -eq 0 ] && echo "layout: $total figures of 4 sweeps and a comparison checked"
exit $fail
