#!/bin/sh
# mergeold.sh - sweep --merge of shards whose results.db comes from before
# the cells' time_mode column (docs/HARNESS.md, "Sharding and Slurm"): a
# sweep of the older form (--env SGC_TIME_MODE, one mode for the whole
# sweep) whose shards were finished by different versions of the sweep, so
# that one shard's cells have the column and another's do not.  The merge
# copies the cells by the columns both have and gives the merged cells
# their time mode from the plan, whichever shard is the older one, so the
# merged cells are the same both ways and equal the newer shard's.
. tests/harness/lib.sh

ARGS="--backends native --bin-dir $FAKE_BIN --no-progress --workloads fake-ok,fake-min --periods 64K
    --time-hz 1000 --depths none --runs 1 --warmup 1 --size 150 --counters perf::task-clock --seed 7
    --env SGC_TIME_MODE=signal"
for k in 1 2; do
    "$SWEEP" $ARGS --shard $k/2 --out "$WORK/s$k" >/dev/null 2>"$WORK/err" || fail "shard $k: $(tail -n 3 "$WORK/err")"
done
CELLS="SELECT cell_id, workload, kind, alloc_period, time_hz, label, quote(time_mode) FROM cells ORDER BY cell_id"
NEW=$(q "$WORK/s1/latest/results.db" "$CELLS")
expect "the newer shards' time cell carries its mode" "$(q "$WORK/s1/latest/results.db" \
    "SELECT group_concat(quote(time_mode), ' ') FROM cells WHERE time_hz > 0")" "'signal' 'signal'"
# old K: shard K's results.db as the sweep wrote it before the column.
old() {
    cp -r "$WORK/s$1" "$WORK/old$1"
    q "$WORK/old$1/latest/results.db" "ALTER TABLE cells DROP COLUMN time_mode" || fail "dropping the column"
    expect "shard $1 made old" "$(q "$WORK/old$1/latest/results.db" "SELECT count(*) FROM pragma_table_info('cells')
        WHERE name = 'time_mode'")" 0
}
old 1
old 2
"$SWEEP" --merge "$WORK/m1" "$WORK/old1/latest" "$WORK/s2/latest" >"$WORK/out" 2>"$WORK/err"
expect "merge, shard 1 (whose cells are copied) old: exit status" "$?" 0
grep -v '^sweep: merged' "$WORK/err" | head -n 5
expect "merge, shard 1 old: the merged cells" "$(q "$WORK/m1/results.db" "$CELLS")" "$NEW"
"$SWEEP" --merge "$WORK/m2" "$WORK/s1/latest" "$WORK/old2/latest" >"$WORK/out" 2>"$WORK/err"
expect "merge, shard 2 old: exit status" "$?" 0
expect "merge, shard 2 old: the merged cells" "$(q "$WORK/m2/results.db" "$CELLS")" "$NEW"
expect "merge, shard 2 old: every run" "$(q "$WORK/m2/results.db" "SELECT count(*) FROM runs WHERE status = 'ok'")" \
    "$(q "$WORK/m1/results.db" "SELECT count(*) FROM runs WHERE status = 'ok'")"
finish
