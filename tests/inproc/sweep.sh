#!/bin/sh
# sweep.sh - a small sweep in the in-process design end to end: sweep
# --design inprocess on two real workloads (binarytrees, compute: one ends
# segments at collections, the other in its iteration hook), then analyze:
# every run has its whole segment series in results.db, every B segment of a
# fixed-mode cell took floor(bytes / period) points and every A segment
# none, the baselines ran A/A, and the in-process section, inprocess.csv and
# plotdata/inprocess.dat hold an estimate with an interval for every cell,
# which figure 7 (plots/inprocess.gp) draws.
. tests/harness/lib.sh
: "${BIN:?BIN must name the build's bin directory}"

"$SWEEP" --quick --backends native --design inprocess --no-progress --bin-dir "$BIN" --workloads binarytrees,compute \
    --periods 32K --time-hz 1000 --runs 4 --target 0.2 --seed 7 --out "$WORK/res" >"$WORK/out" 2>"$WORK/err"
rc=$?
grep -v '^sweep: run \|counter' "$WORK/err" | head -n 20
expect "exit status" "$rc" 0
DB="$WORK/res/latest/results.db"
expect "design recorded" "$(q "$DB" "SELECT value FROM meta WHERE key = 'design'")" "inprocess"
expect "every run ok" "$(q "$DB" "SELECT status, count(*) FROM runs GROUP BY status")" "ok|30"
expect "every run has a series numbered 0.." "$(q "$DB" "SELECT count(*) FROM runs r WHERE
    (SELECT count(*) FROM segments s WHERE s.run_id = r.run_id) = (SELECT max(idx) + 1 FROM segments s WHERE s.run_id = r.run_id)
    AND (SELECT count(*) FROM segments s WHERE s.run_id = r.run_id) >= 5")" 30
expect "the last segment of every run ended at exit, no other" "$(q "$DB" "SELECT count(*) FROM segments s WHERE
    (s.end_ = 'exit') != (s.idx = (SELECT max(idx) FROM segments t WHERE t.run_id = s.run_id))")" 0
expect "baselines ran A/A: nothing on, no samples" "$(q "$DB" "SELECT count(*) FROM segments s JOIN runs r USING(run_id)
    JOIN cells c USING(cell_id) WHERE c.kind = 'baseline' AND (s.on_ OR s.alloc_samples OR s.time_samples)")" 0
expect "sampling cells: on exactly in B segments" "$(q "$DB" "SELECT count(*) FROM segments s JOIN runs r USING(run_id)
    JOIN cells c USING(cell_id) WHERE c.kind != 'baseline' AND s.on_ != (s.kind = 'B')")" 0
expect "fixed mode: floor(bytes / 32K) points in B, 0 in A" "$(q "$DB" "SELECT count(*) FROM segments s JOIN runs r
    USING(run_id) JOIN cells c USING(cell_id) WHERE c.alloc_period = 32768 AND
    s.alloc_points != CASE WHEN s.kind = 'B' THEN s.bytes / 32768 ELSE 0 END")" 0
expect "no time sample in an A segment" "$(q "$DB" "SELECT count(*) FROM segments WHERE kind = 'A' AND time_samples > 0")" 0
expect "compute's segments end in its iteration hook" "$(q "$DB" "SELECT count(*) > 0, sum(s.end_ = 'gc') FROM segments s
    JOIN runs r USING(run_id) JOIN cells c USING(cell_id) WHERE c.workload = 'compute' AND s.end_ != 'exit'")" "1|0"

"$BIN/analyze" --resamples 2000 "$WORK/res/latest" >"$WORK/aout" 2>"$WORK/aerr"
rc=$?
cat "$WORK/aerr" | head -n 10
expect "analyze exit status" "$rc" 0
D="$WORK/res/latest"
expect "no exactness mismatch" "$(grep -c 'EXACTNESS MISMATCH' "$WORK/aerr")" 0
expect "inprocess.csv: 6 cells, each with blocks and an interval" "$(awk -F, 'NR > 1 && $6 >= 3 && $10 != "" && $11 != ""' \
    "$D/inprocess.csv" | wc -l)" 6
expect "compute's work is its iterations, binarytrees' its bytes" "$(awk -F, 'NR > 1 {print $1 ":" $8}' "$D/inprocess.csv" |
    sort -u | tr '\n' ' ')" "binarytrees:bytes compute:iterations "
expect "every fixed segment checked, none wrong" "$(awk -F, 'NR > 1 && $4 > 0 {c += $21; m += $22} END {print (c > 0) ":" m}' \
    "$D/inprocess.csv")" "1:0"
expect "summary.md: the in-process section, labelled steady-state marginal cost" \
    "$(grep -c '^## In-process alternation (steady-state marginal cost)' "$D/summary.md")" 1
expect "summary.md: the process-level tables flagged" "$(grep -c 'process-level (whole run)' "$D/summary.md")" 1
expect "plot data: the header of the plot data table" "$(head -n 1 "$D/plotdata/inprocess.dat" | cut -d' ' -f1-7)" \
    "# index workload label alloc_period time_hz ratio"
expect "a verdict per cell at the 2% margin" "$(awk -F, 'NR > 1 && ($23 == "slower" || $23 == "faster" ||
    $23 ~ /^no effect above 2%$/ || $23 == "not resolved")' "$D/inprocess.csv" | wc -l)" 6
expect "plot data: a row per cell with an interval" "$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
    NF && $(c["lo"]) != "NaN" && $(c["hi"]) != "NaN"' "$D/plotdata/inprocess.dat" | wc -l)" 6

# The figure of the in-process results (plots/figures.list, figure 7), captioned as the steady-state marginal cost.
ANALYZE="$BIN/analyze" sh plots/figures.sh "$D" >"$WORK/fout" 2>&1
expect "figures.sh exit status" "$?" 0
expect "inprocess figure drawn" "$(od -An -c -N4 "$D/figures/inprocess.png" | tr -d ' '):$(grep -c '</svg>' "$D/figures/inprocess.svg")" \
    "211PNG:1"
expect "its caption: the steady-state marginal cost, not the whole run" "$(tr '\n' ' ' < "$D/figures/inprocess.txt" |
    grep -c 'Figure 7.*steady-state marginal cost, not the whole run')" 1
expect "a row per cell in the figure" "$(grep -c '>binarytrees/\|>compute/' "$D/figures/inprocess.svg")" 6

# Bad input: the design's name.
"$SWEEP" --design inproc --out "$WORK/res2" >/dev/null 2>"$WORK/err2"
expect "unknown design: exit 2 naming the three" "$?:$(grep -c 'blocked, independent, inprocess' "$WORK/err2")" "2:1"
finish
