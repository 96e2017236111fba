#!/bin/sh
# bad-input-test.sh WORKDIR - plots/figures.sh on missing, incomplete and corrupt plot data: the right exit status, a message naming the problem, the other figures still drawn, nothing good destroyed.
work=$1
[ -n "$work" ] || { echo "usage: bad-input-test.sh WORKDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
fig="$(cd "$here/../.." && pwd)/plots/figures.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1

fail=0
bad() { echo "FAIL: $*"; fail=1; }
# expect STATUS PATTERN DESCRIPTION -- ARGS: figures.sh ARGS exits STATUS
# and its output matches PATTERN (grep -E).
expect() {
    want=$1; pat=$2; what=$3; shift 4
    sh "$fig" "$@" > "$work/out" 2>&1
    got=$?
    [ $got -eq "$want" ] || { bad "$what: exit $got, expected $want"; sed 's/^/    /' "$work/out"; return; }
    grep -Eq "$pat" "$work/out" || { bad "$what: no message matching /$pat/"; sed 's/^/    /' "$work/out"; }
}
fresh() { rm -rf "$work/s" && sh "$here/mkfixture.sh" "$work/s"; }

# The directory itself.
expect 2 "usage" "no argument" --
expect 2 "nowhere: no such sweep directory" "missing directory" -- "$work/nowhere"
mkdir -p "$work/empty"
expect 2 "plotdata: missing; run build/bin/analyze" "no plotdata" -- "$work/empty"
mkdir -p "$work/empty/plotdata"
expect 2 "none of the plot data files" "empty plotdata" -- "$work/empty"
[ -d "$work/empty/figures" ] && [ -n "$(ls -A "$work/empty/figures")" ] && bad "files written for an empty plotdata"

# Corrupt files (four kinds at once, to keep the test short): exit 2, each
# named with its line; the figure that needs none of them is drawn; the
# pictures that need them survive from before, untouched.
fresh
sh "$fig" "$work/s" > /dev/null 2>&1 || bad "fixture did not draw"
cp "$work/s/figures/overhead-alloc.png" "$work/before.png"
sed -i '3s/^alpha fixed 65536 5 [^ ]*/alpha fixed 65536 5 1.4x/' "$work/s/plotdata/alloc_cells.dat"
sed -i '1s/ ratio / rate /' "$work/s/plotdata/time_runs.dat"
sed -i '2s/$/ extra/' "$work/s/plotdata/exactness.dat"
sed -i '1s/^# //' "$work/s/plotdata/depth.dat"
rm -f "$work/s/figures/normalized.png"
expect 2 "alloc_cells.dat:3: column overhead .*not a number" "corrupt number" -- "$work/s"
for pat in 'time_runs.dat:1: no column "ratio"' 'exactness.dat:2: 10 fields, the header names 9' 'depth.dat:1: first line must be' \
        'bad plot data, see above):.*overhead-alloc.*overhead-time.*exactness.*cost-depth.*sample-rate'; do
    grep -q "$pat" "$work/out" || bad "no message matching /$pat/"
done
cmp -s "$work/s/figures/overhead-alloc.png" "$work/before.png" || bad "the figure of a corrupt file was overwritten or removed"
[ -s "$work/s/figures/normalized.png" ] || bad "the figure that needs no corrupt file was not drawn"

# Data this sweep does not have: not an error; a caption says why; an older
# picture of that figure is removed (it showed other data).
mv "$work/s/figures" "$work/old-figures"
fresh
mv "$work/old-figures" "$work/s/figures"
rm "$work/s/plotdata/depth.dat"
head -n 1 "$work/s/plotdata/time_runs.dat" > "$work/t" && mv "$work/t" "$work/s/plotdata/time_runs.dat"
[ -e "$work/s/figures/cost-depth.png" ] && [ -e "$work/s/figures/overhead-time.svg" ] || bad "test setup: no older figures"
expect 0 "6 drawn.*not drawn \(no data in this sweep.*overhead-time cost-depth" "no depth data, no time runs" -- "$work/s"
[ -e "$work/s/figures/cost-depth.png" ] && bad "stale cost-depth.png kept although its data is gone"
[ -e "$work/s/figures/overhead-time.svg" ] && bad "stale overhead-time.svg kept although its data is gone"
grep -q "NOT DRAWN" "$work/s/figures/cost-depth.txt" && grep -q "depth.dat is missing" "$work/s/figures/cost-depth.txt" ||
    bad "cost-depth.txt does not say depth.dat is missing"
tr '\n' ' ' < "$work/s/figures/overhead-time.txt" | grep -q "NOT DRAWN.*time_runs.dat has no rows" ||
    bad "overhead-time.txt does not say time_runs.dat has no rows"
[ -s "$work/s/figures/overhead-alloc.png" ] && [ -s "$work/s/figures/sample-rate.png" ] || bad "the other figures were not drawn"
grep -q "^Not drawn: plotdata/depth.dat is missing" "$work/s/figures/index.md" || bad "index.md does not say why figure 5 is missing"
grep -q "](cost-depth.png)" "$work/s/figures/index.md" && bad "index.md links a figure that was not drawn"

# One workload, every statistic NaN (what analyze writes when it cannot
# compute them), and a depth that was never varied (NaN depths): the figures
# are drawn (gnuplot 5.4 crashes on some plots whose every point is
# undefined; figures.sh must avoid them), a missing value is marked n/a,
# figure 5 says the depth was not varied and figure 8, with no overhead
# estimate left, says so instead of drawing empty panels.
fresh
for f in "$work"/s/plotdata/*.dat; do grep -v '^beta\|^gamma\|^[0-9]* beta\|^[0-9]* gamma' "$f" > "$work/t"; mv "$work/t" "$f"; done
nan_cols() { file="$work/s/plotdata/$1.dat"; shift
    awk -v cols="$*" 'BEGIN { n = split(cols, k, " ") } NR > 1 && NF { for (i = 1; i <= n; i++) $(k[i]) = "NaN" } { print }' "$file" > "$work/t" &&
    mv "$work/t" "$file"; }
nan_cols alloc_cells 5 6 7 8 9 10
nan_cols time_cells 5 6 7
nan_cols alloc_runs 6
nan_cols normalized 5 6 7
nan_cols depth 2 8 9 10
nan_cols peers 4 5 6
# regress.csv (figure 3): the allocation fit without a value (empty fields,
# as analyze writes NaN there), so no difference and no verdict: n/a
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
    $(c["kind"]) == "alloc" { n = split("norm_overhead norm_lo norm_hi paired_norm_overhead paired_norm_lo paired_norm_hi", k, " ")
        for (i = 1; i <= n; i++) $(c[k[i]]) = "" }
    { $(c["norm_diff"]) = $(c["norm_diff_lo"]) = $(c["norm_diff_hi"]) = ""; $(c["verdict"]) = "na"; print }' "$work/s/regress.csv" > "$work/t" && mv "$work/t" "$work/s/regress.csv"
expect 0 "6 drawn.*not drawn.*cost-depth peers" "one workload, statistics NaN, depth not varied" -- "$work/s"
tr '\n' ' ' < "$work/s/figures/peers.txt" | grep -q "NOT DRAWN.*plotdata/peers.dat has no overhead estimate" ||
    bad "peers.txt does not say there is no overhead estimate"
[ -e "$work/s/figures/peers.png" ] && bad "peers.png kept although no overhead estimate is left"
grep -q ">n/a<" "$work/s/figures/normalized.svg" || bad "normalized.svg does not mark the missing value n/a"
grep -q ">no verdict (n/a)<" "$work/s/figures/normalized.svg" || bad "normalized.svg gives a verdict without a difference"
tr '\n' ' ' < "$work/s/figures/normalized.txt" | grep -q "No fit, so no point (n/a): allocation: alpha" || bad "normalized.txt does not name the missing fit"
tr '\n' ' ' < "$work/s/figures/cost-depth.txt" | grep -q "did not vary the stack depth" || bad "cost-depth.txt does not say the depth was not varied"

# A simulated part without a normalized overhead (a command workload's
# cells, the simulated part alone): sim-normalized is not drawn, with its
# reason, and nothing fails (gnuplot was given an empty range before).
fresh
printf '# index workload alloc_period alloc_sps_native normalized_Ir normalized_est_cycles time_normalized_model\n0 gcbench-v8 0 NaN NaN NaN NaN\n' \
    > "$work/s/plotdata/sim_normalized.dat"
expect 0 "not drawn \(no data in this sweep.*sim-normalized" "a simulated part with no normalized overhead" -- "$work/s"
tr '\n' ' ' < "$work/s/figures/sim-normalized.txt" | grep -q "NOT DRAWN.*sim_normalized.dat has no normalized overhead" ||
    bad "sim-normalized.txt does not say there is no normalized overhead"
[ -e "$work/s/figures/sim-normalized.png" ] && bad "sim-normalized.png drawn from no value"

[ $fail -eq 0 ] && echo "bad input: all cases behave"
exit $fail
