#!/bin/sh
# depth.sh - deepstack's depth cells: a tiny real sweep at two depths records
# args and depth per cell, calibrates each depth, passes "--depth D" to every
# run, --resume replays them, and analyze writes plotdata/depth.dat with
# finite depths; bad --depths values exit 2.
. tests/harness/lib.sh
: "${BIN:?BIN must name the build's bin directory}"

"$SWEEP" --backends native --plan --workloads deepstack --bin-dir "$BIN" --depths 4,16 --periods none --time-hz none --time-modes signal \
    --runs 1 --warmup 0 --seed 1 >"$WORK/plan" 2>&1
expect "plan: cells with their args" "$(grep '^cell ' "$WORK/plan")" \
"cell 1 deepstack/baseline
cell 2 deepstack/d4/baseline args --depth 4
cell 3 deepstack/d4/alloc-fixed-64K args --depth 4
cell 4 deepstack/d4/time-2000Hz args --depth 4
cell 5 deepstack/d16/baseline args --depth 16
cell 6 deepstack/d16/alloc-fixed-64K args --depth 16
cell 7 deepstack/d16/time-2000Hz args --depth 16"
"$SWEEP" --backends native --plan --quick --bin-dir "$BIN" --workloads deepstack >"$WORK/plan" 2>&1
expect "quick plan: no depth cells" "$(grep -c '/d[0-9]*/' "$WORK/plan")" 0
for bad in 0 10001 x; do
    "$SWEEP" --backends native --plan --bin-dir "$BIN" --workloads deepstack --depths "$bad" >/dev/null 2>"$WORK/err"
    expect "--depths $bad: exit 2" "$?" 2
done
expect "--depths: clear message" "$(cat "$WORK/err")" "sweep: option --depths: depths: 'x' is not a stack depth (1..10000)"

if [ ! -x "$BIN/deepstack" ] || [ ! -x "$BIN/analyze" ]; then
    echo "skip: $BIN/deepstack or $BIN/analyze is not built"; finish
fi
# Interrupted after the first few runs (SIGTERM), then resumed.
"$SWEEP" --backends native --workloads deepstack --bin-dir "$BIN" --depths 4,16 --periods none --time-hz none --time-modes signal --runs 2 --design independent \
    --target 0.05 --counters none --no-progress --out "$WORK/res" >"$WORK/out" 2>"$WORK/err" &
pid=$!
while ! grep -q 'runs planned' "$WORK/err" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
sleep 0.3
kill -TERM "$pid" 2>/dev/null
wait "$pid"
dir="$WORK/res/$(readlink "$WORK/res/latest")"
"$SWEEP" --resume "$dir" --no-progress >"$WORK/out" 2>"$WORK/err"
expect "resumed sweep completes" "$?" 0
DB="$dir/results.db"
expect "cells: args and depth" "$(q "$DB" "SELECT label, args, coalesce(depth, '-') FROM cells ORDER BY cell_id")" \
"deepstack/baseline||-
deepstack/d4/baseline|--depth 4|4
deepstack/d4/alloc-fixed-64K|--depth 4|4
deepstack/d4/time-2000Hz|--depth 4|4
deepstack/d16/baseline|--depth 16|16
deepstack/d16/alloc-fixed-64K|--depth 16|16
deepstack/d16/time-2000Hz|--depth 16|16"
expect "calibrated per depth" "$(q "$DB" "SELECT workload, status FROM calibration ORDER BY rowid")" \
"deepstack|ok
deepstack --depth 4|ok
deepstack --depth 16|ok"
expect "each cell sized by its own calibration" "$(q "$DB" "SELECT count(*) FROM cells c JOIN calibration k
    ON k.workload = trim(c.workload || ' ' || c.args) AND k.size = c.size")" 7
expect "every run ok" "$(q "$DB" "SELECT status, count(*) FROM runs GROUP BY status")" "ok|21"
expect "checksums differ by depth (the argument reached the workload)" \
    "$(q "$DB" "SELECT count(DISTINCT checksum) FROM calibration")" 3
expect "csv: args and depth columns" "$(head -n 1 "$dir/runs.csv" | grep -c ',size,args,depth,backend,status,')" 1
expect "csv: a depth row per run of the d16 cells" "$(grep -c ",--depth 16,16,native,ok," "$dir/runs.csv")" 9
"$BIN/analyze" "$dir" >/dev/null 2>"$WORK/aerr"
expect "analyze" "$?" 0
expect "depth.dat: finite depths of both kinds" "$(awk '!/^#/ && NF { print $2, $3 }' "$dir/plotdata/depth.dat")" \
"4 alloc
16 alloc
4 time
16 time"
finish
