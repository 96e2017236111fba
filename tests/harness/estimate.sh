#!/bin/sh
# estimate.sh - sweep --plan's estimated duration.  --from DIR: from a
# fixture results.db whose run times are known, the estimate is an exact
# number (per cell the median wall time of its ok runs, a cell it did not
# run takes its baseline's, a workload it did not run its calibration; the
# harness overhead per run the median of its runs'); the cells it knows
# nothing about are reported, not counted.  --estimate: calibrates now and
# creates nothing.  Bad --from/--estimate use exits 2.
. tests/harness/lib.sh

# The fixture: the schema of every results.db, and runs of known times.
PREV="$WORK/prev"
mkdir -p "$PREV"
sqlite3 -batch "$PREV/results.db" <contracts/schema.sql
q "$PREV/results.db" "
INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, backend) VALUES
  (1, 'fake-ok', 'baseline', 0, '', 0, '', 10, 'fake-ok/baseline', 'native'),
  (2, 'fake-ok', 'alloc', 1048576, 'fixed', 0, '', 10, 'fake-ok/alloc-fixed-1M', 'native'),
  (3, 'fake-ok', 'baseline', 0, '', 0, '', 3, 'fake-ok/sim/baseline', 'sim');
-- fake-ok/baseline: 100, 300, 200 ms ok (median 200 ms) and a failed run (not counted)
-- fake-ok/alloc-fixed-1M: 500 ms; native overheads 10, 20, 30, 40 ms (median 25 ms)
-- fake-ok/sim/baseline: 3 s and 5 s (median 4 s); sim overheads 100, 300 ms (median 200 ms)
INSERT INTO runs(cell_id, round, seq, status, wall_ns, overhead_ns) VALUES
  (1, 0, 1, 'ok', 100000000, 10000000),
  (1, 1, 2, 'ok', 300000000, 20000000),
  (1, 2, 3, 'ok', 200000000, 30000000),
  (1, 3, 4, 'failed', 9000000000, 1000000000),
  (2, 1, 5, 'ok', 500000000, 40000000),
  (3, 1, 6, 'ok', 3000000000, 100000000),
  (3, 2, 7, 'ok', 5000000000, 300000000);
INSERT INTO calibration(workload, size, seconds, checksum, method, probes, status) VALUES
  ('fake-ok', 10, 0.9, 'x', 'calibrated', 3, 'ok'),
  ('fake-min', 8, 0.05, 'y', 'calibrated', 2, 'ok'),
  ('fake-max', 100, 0, NULL, 'calibrated', 5, 'failed');"

PLAN="--plan --bin-dir $FAKE_BIN --periods 1M --time-hz none --depths none --seed 1"

# The timed part: fake-ok 12 baseline runs x 200 ms + 4 alloc runs x 500 ms
# (blocked: per round an alloc block and an A/A block, 1 warm-up + 3 rounds),
# fake-min 16 runs x its calibration's 50 ms, 32 x 25 ms of overhead;
# fake-max has neither runs nor an ok calibration.
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --workloads fake-ok,fake-min,fake-max --runs 3 --warmup 1 --from "$PREV" \
    --halfwidth 2% --max-runs 5 >"$WORK/plan" 2>"$WORK/err"
expect "--from: exit 0" "$?" 0
expect "--from: the basis" "$(grep '^estimate: from' "$WORK/plan")" \
    "estimate: from the runs stored in $PREV/results.db: per cell, the median wall time of its ok runs (a cell it did not run: its baseline's; a workload it did not run: its calibrated baseline CPU time); harness overhead per run: the median of its runs'; per-run time x runs + harness overhead per run"
expect "--from: the timed part, exactly" "$(grep '^estimate: timed part' "$WORK/plan")" \
    "estimate: timed part: 32 runs, 5.200 s of runs + 32 x 25.000 ms of harness overhead = 6.000 s (6s)"
expect "--from: no simulated part" "$(grep -c '^estimate: simulated part' "$WORK/plan")" 0
expect "--from: the cells without a time" "$(grep '^estimate: not counted' "$WORK/plan")" \
    "estimate: not counted: 16 runs of 2 cells with no time in the basis (fake-max/baseline, fake-max/alloc-fixed-1M)"
# A measured round: fake-ok 3 x 200 + 500 ms, fake-min 4 x 50 ms, 8 x 25 ms.
expect "--from: adaptive rounds, at most" "$(grep '^estimate: adaptive' "$WORK/plan")" \
    "estimate: adaptive rounds (--halfwidth) not counted: up to 2 more rounds of at most 1.500 s (2s) each"
expect "--from: the plan is still printed" "$(grep -c '^run ' "$WORK/plan")" 48

# The simulated part: sim/alloc-fixed-1M was not run, so it takes its
# baseline's 4 s: (4 runs x 4 s + 4 x 200 ms) / 2 at once.
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends sim --workloads fake-ok --sim-runs 2 --sim-jobs 2 --from "$PREV/results.db" \
    >"$WORK/plan" 2>"$WORK/err"
expect "--from results.db: exit 0" "$?" 0
expect "--from: the simulated part, exactly" "$(grep '^estimate: simulated part' "$WORK/plan")" \
    "estimate: simulated part: 4 runs, 16.000 s of runs + 4 x 200.000 ms of harness overhead, 2 at once = 8.400 s (8s)"
expect "--from: no timed part" "$(grep -c '^estimate: timed part' "$WORK/plan")" 0

# Without a basis, --plan says how to get one.
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --workloads fake-ok >"$WORK/plan" 2>"$WORK/err"
expect "no basis: said" "$(grep '^estimate:' "$WORK/plan")" \
    "estimate: none (--from DIR estimates the duration from a previous sweep's run times, --estimate by calibrating now)"

# Bad uses: exit 2, naming the problem.
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --from "$PREV" >/dev/null 2>"$WORK/err"
expect "--from without --plan: exit 2" "$?:$(grep -c 'from: only with --plan' "$WORK/err")" "2:1"
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --workloads fake-ok --from "$WORK/nothing" >/dev/null 2>"$WORK/err"
expect "--from a missing directory: exit 2" "$?:$(grep -c "from: $WORK/nothing: No such file or directory" "$WORK/err")" "2:1"
echo "not a database" >"$WORK/junk.db"
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --workloads fake-ok --from "$WORK/junk.db" >/dev/null 2>"$WORK/err"
expect "--from a file that is no results.db: exit 2" "$?:$(grep -c "is not a results database written by sweep" "$WORK/err")" "2:1"
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --workloads fake-ok --from "$PREV" --estimate >/dev/null 2>"$WORK/err"
expect "--from and --estimate: exit 2" "$?:$(grep -c 'estimate: give --from DIR or --estimate, not both' "$WORK/err")" "2:1"

# --estimate calibrates now (the probes are real runs, so only the shape is
# checked) and creates nothing: 1 warm-up + 2 rounds of an alloc block and an
# A/A block.
# shellcheck disable=SC2086
"$SWEEP" $PLAN --backends native --workloads fake-ok --runs 2 --target 0.02 --estimate --out "$WORK/out" \
    --tmp "$WORK" >"$WORK/plan" 2>"$WORK/err"
expect "--estimate: exit 0" "$?" 0
expect "--estimate: the basis" \
    "$(grep -c "^estimate: from calibrating now ([0-9]* probes): per cell, its workload's calibrated baseline CPU time per run; harness overhead per run: the median of the probes'; per-run time x runs + harness overhead per run\$" "$WORK/plan")" 1
expect "--estimate: the timed part" \
    "$(grep -c '^estimate: timed part: 12 runs, [0-9.]* s of runs + 12 x [0-9.]* ms of harness overhead = [0-9.]* s ([0-9]*s)$' "$WORK/plan")" 1
expect "--estimate: the calibration was said" "$(grep -c '^sweep: fake-ok: --size [0-9]* takes' "$WORK/err")" 1
expect "--estimate: nothing created" "$(ls -d "$WORK/out" "$WORK"/sweep-* 2>/dev/null | wc -l)" 0

finish
