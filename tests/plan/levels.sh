#!/bin/sh
# levels.sh - sweep --levels-from DIR end to end on a fixture in-process
# sweep whose components and costs are known: the choice is exact (computed
# independently, see below), it sets --runs and --target, it is refused
# with a reason (exit 2) for another design or a DIR that is not an analysed
# in-process sweep; and --plan counts the cells and runs it lists, the
# simulated part's too, as meta 'plan' does.
. tests/harness/lib.sh

FIX="$WORK/inproc"
mkdir -p "$FIX"
sqlite3 -batch "$FIX/results.db" <contracts/schema.sql
# Two measured ok runs: run 1 has 2 complete blocks of 4 x 5 ms, a lead-in
# (block 0) and a last block cut short (2 segments), 60 ms of CPU in all:
# 20 ms a block, 20 ms outside them; run 2 has 3 blocks of 4 x 6 ms, 80 ms:
# 24 ms a block, 8 ms outside.  Overheads 1 and 2 ms.  A warm-up run and a
# failed run with absurd figures are not counted.  Medians: a block 22 ms,
# outside 14 ms, the harness 1.5 ms.
q "$FIX/results.db" "
INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, backend) VALUES
  (1, 'fake-ok', 'baseline', 0, '', 0, '', 10, 'fake-ok/baseline', 'native');
INSERT INTO runs(run_id, cell_id, round, seq, status, user_ns, sys_ns, overhead_ns) VALUES
  (1, 1, 1, 1, 'ok', 50000000, 10000000, 1000000),
  (2, 1, 1, 2, 'ok', 70000000, 10000000, 2000000),
  (3, 1, 0, 3, 'ok', 9000000000, 0, 9000000000),
  (4, 1, 2, 4, 'failed', 9000000000, 0, 9000000000);"
seg() { # run block count cpu_ns: count segments of block
    i=0
    while [ $i -lt "$3" ]; do
        echo "INSERT INTO segments(run_id, idx, block, pos, kind, on_, end_, cpu_ns, bytes) VALUES ($1, $(( $2 * 10 + i )), $2, $i, 'A', 0, 'cpu', $4, 0);"
        i=$((i + 1))
    done
}
{ seg 1 0 1 3000000; seg 1 1 4 5000000; seg 1 2 4 5000000; seg 1 3 2 5000000
  seg 2 1 4 6000000; seg 2 2 4 6000000; seg 2 3 4 6000000
  seg 3 1 4 1000000000; seg 4 1 4 1000000000; } | sqlite3 -batch "$FIX/results.db"
# inprocess.csv (analyze's columns that the rule reads, and others around
# them, one quoted with a comma): cell A 4 processes, 400 kept blocks, 8
# dropped, tau 0, pooled [0.99, 1.01]; cell B 4 processes, 200 kept, tau
# 0.03, pooled [0.98, 1.03]; a cell of one process and one without a tau
# are not used.  Block SD s = sqrt(kept) log(hi / lo) / (2 x 1.959964):
# 0.102046 and 0.179527; fixed a process 14 + 1.5 + 8 / 8 x 22 = 37.5 ms.
cat >"$FIX/inprocess.csv" <<'CSV'
workload,label,processes,verdict,kept_blocks,dropped_blocks,tau,pooled_lo,pooled_hi
fake-ok,fake-ok/a,4,"slower, by far",400,8,0,0.99,1.01
fake-ok,fake-ok/b,4,no effect,200,0,0.03,0.98,1.03
fake-ok,fake-ok/c,1,no effect,100,0,,0.98,1.03
fake-ok,fake-ok/d,4,no effect,100,0,,0.98,1.03
CSV
# The budget a cell: 4 x (2 + 0.0015) s.  With P processes each has (8.006
# / P - 0.0375) / 0.022 usable blocks and the predicted half-width t_{P-1}
# sqrt((tau^2 + s^2 / b) / P); relative to P = 4, the median of the two
# cells falls down to P = 16 (0.57742; 21.04 blocks), and P = 17 leaves
# fewer than 20 blocks (plain Python with the t table gave these).
PLAN="--plan --bin-dir $FAKE_BIN --workloads fake-ok --periods 1M --time-hz none --depths none --seed 1"
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --design inprocess --runs 4 --target 2 --levels-from "$FIX" >"$WORK/plan" 2>"$WORK/err"
expect "levels: exit 0" "$?" 0
expect "levels: the choice, exactly" "$(grep '^levels:' "$WORK/plan")" \
    "levels: from $FIX (2 cells; a block 22.00 ms of CPU, 37.50 ms a process outside its usable blocks): 16 processes of 21 blocks (--runs 16 --target 0.499) instead of 4 of 89 (--runs 4 --target 2.000), the same CPU a cell; predicted half-width x0.577 (median over the cells; 0.465 to 0.690)"
expect "levels: it sets --runs" "$(head -n 2 "$WORK/plan" | tail -n 1)" \
    "plan: 1 workload, 2 cells, 1 warm-up + 16 measured rounds = 34 runs, seed 1, design inprocess"

# Bad uses: exit 2 with the reason.
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --levels-from "$FIX" >/dev/null 2>"$WORK/err"
expect "levels: the blocked design is refused" "$?:$(grep -c 'levels-from: the processes and blocks of the in-process design; this plan.s design is blocked (give --design inprocess)' "$WORK/err")" "2:1"
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --design inprocess --levels-from "$WORK/nothing" >/dev/null 2>"$WORK/err"
expect "levels: a missing DIR is refused" "$?:$(grep -c "levels-from: $WORK/nothing/inprocess.csv: No such file or directory" "$WORK/err")" "2:1"
mkdir -p "$WORK/old"
cp "$FIX/results.db" "$WORK/old/"
head -n 2 "$FIX/inprocess.csv" | sed 's/,tau,/,tau_old,/' >"$WORK/old/inprocess.csv"
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --design inprocess --levels-from "$WORK/old" >/dev/null 2>"$WORK/err"
expect "levels: a file without a column is refused" "$?:$(grep -c "inprocess.csv: no column tau " "$WORK/err")" "2:1"
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --design inprocess --runs 4 --target 0.05 --levels-from "$FIX" >/dev/null 2>"$WORK/err"
expect "levels: a budget too small is refused" "$?:$(grep -c "no number of processes leaves 20 usable blocks" "$WORK/err")" "2:1"

# --plan counts as meta 'plan' does: the cells and runs it lists, the
# simulated part's included (before: the timed part's alone).
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native,sim --runs 3 >"$WORK/plan" 2>"$WORK/err"
cells=$(grep -c '^cell ' "$WORK/plan")
runs=$(grep -c '^run ' "$WORK/plan")
expect "plan: counts every cell and run it lists" "$(head -n 1 "$WORK/plan")" \
    "plan: 1 workload, $cells cells (2 timed, 2 simulated), 1 warm-up + 3 measured rounds = $runs runs (16 timed, 4 simulated), seed 1, design blocked"

# --estimate: the wall-time line is the CPU estimate times the probes'
# factor it prints (to the millisecond's rounding).
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --runs 1 --target 0.05 --cpu 0 --estimate >"$WORK/plan" 2>"$WORK/err"
expect "estimate: exit 0" "$?" 0
cpu=$(sed -n 's/^estimate: timed part: .* = \([0-9.]*\) s .*/\1/p' "$WORK/plan")
wall=$(sed -n 's/^estimate: wall time (the lines above count CPU time): timed part \([0-9.]*\) s ([^)]*) at x\([0-9.]*\): the calibration probes.*pinned to CPU 0 at load average .*/\1 \2/p' "$WORK/plan")
expect "estimate: a wall-time line" "$(echo "$wall" | wc -w)" 2
expect "estimate: wall = CPU x factor" "$(echo "$cpu $wall" | awk '{ d = $1 * $3 - $2; print (d < 0 ? -d : d) <= 0.0005 * $3 + 0.0005 * $1 + 0.001 }')" 1
finish
