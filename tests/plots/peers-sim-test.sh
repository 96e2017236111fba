#!/bin/sh
# peers-sim-test.sh WORKDIR - the figures of peer sweeps without timed cells,
# on copies of results/reference-peers-sim (the simulated part alone, every
# allocation cell in poisson mode) and results/reference-peers-inprocess-aa
# (the in-process design); nothing under results/ is written.
#
# Checks, on the simulated sweep (build/bin/analyze from a copy of its
# results.db alone, ANALYZE): plotdata/sim_alloc.dat has a row for each of
# its 84 simulated allocation cells (as many as results.db holds; a workload
# without fixed-mode cells gets those of its own mode, here poisson);
# figures.sh draws figures S1 and S2 (PNG and SVG) with one panel for each of
# the 7 workloads with an overhead and names the 5 without one, and figure S5
# from the 24 cells at 32K and 4M of sim_compare.dat, the same 7; figure 8 is
# not drawn and index.md says why (no timed cells: the simulated part alone)
# and where the systems' costs are.  On the in-process sweep (its committed
# plotdata): figure 8 not drawn, index.md saying it ran the in-process design.
work=$1
[ -n "$work" ] || { echo "usage: peers-sim-test.sh WORKDIR" >&2; exit 2; }
: "${ANALYZE:?ANALYZE must name build/bin/analyze}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$work" && mkdir -p "$work/sim" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cp "$root/results/reference-peers-sim/results.db" "$work/sim/" || exit 1
"$ANALYZE" --quiet "$work/sim" > "$work/analyze.out" 2>&1 || bad "analyze failed: $(cat "$work/analyze.out")"
want=$(sqlite3 -batch "file:$work/sim/results.db?mode=ro" \
    "SELECT count(*) FROM cells WHERE backend = 'sim' AND kind = 'alloc'")
rows=$(sed 1d "$work/sim/plotdata/sim_alloc.dat" | grep -c .)
[ "$want" = 84 ] || bad "results/reference-peers-sim holds $want simulated allocation cells, not 84"
[ "$rows" = "$want" ] || bad "sim_alloc.dat has $rows rows, results.db $want simulated allocation cells"
sqlite3 -batch "file:$work/sim/results.db?mode=ro" "SELECT workload || ' ' || alloc_period FROM cells
    WHERE backend = 'sim' AND kind = 'alloc' AND alloc_mode = 'poisson'" | sort > "$work/want-cells"
awk 'NR > 1 && NF { print $1 " " $2 }' "$work/sim/plotdata/sim_alloc.dat" | sort > "$work/got-cells"
cmp -s "$work/want-cells" "$work/got-cells" || bad "sim_alloc.dat's (workload, period) rows are not results.db's poisson-mode cells"
[ "$(grep -c . "$work/want-cells")" = 84 ] || bad "results.db has $(grep -c . "$work/want-cells") poisson-mode simulated cells, not 84"

sh "$root/plots/figures.sh" "$work/sim" > "$work/fig.out" 2>&1 || bad "figures.sh failed: $(cat "$work/fig.out")"
idx="$work/sim/figures/index.md"
for f in sim-overhead-alloc-instructions sim-overhead-alloc-cycles; do
    [ "$(head -c 4 "$work/sim/figures/$f.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] || bad "$f.png not drawn"
    grep -q '</svg>' "$work/sim/figures/$f.svg" 2>/dev/null || bad "$f.svg not drawn"
    tr '\n' ' ' < "$work/sim/figures/$f.txt" | tr -s ' ' |
        grep -q 'one panel each: binarytrees binarytrees-gperftools binarytrees-hotspot binarytrees-jemalloc gcbench gcbench-gperftools gcbench-jemalloc; no overhead estimate, so no panel: binarytrees-go, binarytrees-v8, gcbench-go, gcbench-hotspot, gcbench-v8), the [a-z ]* a run executes with allocation sampling on (poisson mode: the sweep has no fixed-mode cells)' ||
        bad "$f.txt does not give its 7 panels, the 5 workloads without one and the mode: $(sed -n 3,8p "$work/sim/figures/$f.txt")"
done
f=sim-vs-wall
[ "$(head -c 4 "$work/sim/figures/$f.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] || bad "$f.png not drawn"
[ "$(sed 1d "$work/sim/plotdata/sim_compare.dat" | grep -c .)" = 24 ] || bad "sim_compare.dat: $(sed 1d "$work/sim/plotdata/sim_compare.dat" | grep -c .) rows, want 24 (12 workloads at 32K and 4M)"
tr '\n' ' ' < "$work/sim/figures/$f.txt" | tr -s ' ' |
    grep -q 'one panel each: binarytrees binarytrees-gperftools binarytrees-hotspot binarytrees-jemalloc gcbench gcbench-gperftools gcbench-jemalloc; no overhead estimate, so no panel: binarytrees-go, binarytrees-v8, gcbench-go, gcbench-hotspot, gcbench-v8), the overhead of allocation sampling (poisson mode: the sweep has no fixed-mode cells) at a 32K and a 4M period' ||
    bad "$f.txt does not give its 7 panels, the 5 workloads without one and the mode: $(sed -n 3,8p "$work/sim/figures/$f.txt")"
n=$(grep -c '^## Figure S[12]\.' "$idx")
[ "$n" = 2 ] || bad "index.md has $n entries of figures S1 and S2, want 2"
grep -A2 '^## Figure S1\.' "$idx" | grep -q 'Not drawn' && bad "index.md says figure S1 was not drawn"
# figure 8: not drawn, with the reason
grep -A2 '^## Figure 8\.' "$idx" | grep -q "^Not drawn: Figure 8 draws each system's overhead from the sweep's timed cells.* it ran the simulated part alone, --backends sim, so there is nothing to draw; what it measured of each system is in peers.md .* and figures S1 and S2" ||
    bad "index.md does not say why figure 8 is not drawn for the simulated part alone: $(grep -A2 '^## Figure 8\.' "$idx")"
[ -f "$work/sim/figures/peers.png" ] && bad "figure 8 drawn from a sweep without timed cells"

# the in-process design: figure 8 not drawn, with its reason
mkdir -p "$work/aa" && cp -r "$root/results/reference-peers-inprocess-aa/plotdata" "$work/aa/" || exit 1
sh "$root/plots/figures.sh" "$work/aa" > "$work/fig-aa.out" 2>&1 || bad "figures.sh failed on the in-process sweep: $(cat "$work/fig-aa.out")"
grep -A2 '^## Figure 8\.' "$work/aa/figures/index.md" | grep -q "^Not drawn: Figure 8 draws each system's overhead from the sweep's timed cells.* it ran the in-process design, whose runs alternate sampling within one process, so there is nothing to draw; what it measured of each system is in peers.md (each system's in-process per-sample cost) and figure 7\.$" ||
    bad "index.md does not say why figure 8 is not drawn for the in-process design: $(grep -A2 '^## Figure 8\.' "$work/aa/figures/index.md")"
[ -f "$work/aa/figures/peers.png" ] && bad "figure 8 drawn from a sweep without timed cells"

[ $fail = 0 ] && echo "peer sweeps without timed cells: S1, S2 from $rows simulated cells (7 panels), S5 from 24, figure 8 not drawn with its reason (simulated part alone, in-process design)"
exit $fail
