#!/bin/sh
# adaptive.sh - sweep --halfwidth on stand-ins: adaptive rounds are added for
# the cells whose planned rounds ask for more blocks (the two-stage rule,
# meta adaptive_rule; tests/harness/test_adapt.c checks its decision on fixed
# data), up to --max-runs,
# within --max-time per invocation, appended to the stored schedule (so
# --resume continues them); the block order stays balanced; bad settings exit 2.
. tests/harness/lib.sh

common="--backends native --bin-dir $FAKE_BIN --workloads fake-ok --periods 64K --time-hz none --runs 3 --warmup 0 --size 50
    --counters none --no-progress --seed 3"

# A target no stand-in meets: rounds up to --max-runs 6 for both cells (the
# alloc cell and the baseline's A/A blocks).
"$SWEEP" $common --halfwidth 0.0001% --max-runs 6 --out "$WORK/a" >/dev/null 2>"$WORK/err"
expect "exit status" "$?" 0
DB="$WORK/a/latest/results.db"
expect "rounds 1..6, two blocks of two runs each" "$(q "$DB" "SELECT group_concat(r || ':' || n || ':' || b, ' ') FROM
    (SELECT round r, count(*) n, count(DISTINCT block) b FROM schedule GROUP BY round ORDER BY round)")" \
    "1:4:2 2:4:2 3:4:2 4:4:2 5:4:2 6:4:2"
expect "every scheduled run ran, ok" "$(q "$DB" "SELECT count(*), sum(status = 'ok') FROM runs")" "24|24"
expect "adaptive rounds announced, max-runs reached" \
    "$(grep -c -e '^sweep: adaptive round [456]: 2 cells short of the blocks for' -e '^sweep: adaptive rounds: --max-runs 6 reached, 2 cells' "$WORK/err")" 4
expect "order balanced: each cell first in 3 of its 6 blocks" "$(q "$DB" "SELECT group_concat(f, ' ') FROM
    (SELECT sum(block_pos = 1) f FROM runs WHERE block_role = 1 GROUP BY cell_id ORDER BY cell_id)")" "3 3"
expect "blocks adjacent" "$(q "$DB" "SELECT count(*) FROM runs a JOIN runs b ON a.block = b.block AND a.block_pos = 1
    AND b.block_pos = 2 AND b.seq = a.seq + 1")" 12
expect "meta: complete" "$(q "$DB" "SELECT value FROM meta WHERE key = 'status'")" complete
expect "meta: the two-stage rule" "$(q "$DB" "SELECT value FROM meta WHERE key = 'adaptive_rule'")" two-stage

# --max-runs equal to --runs: no adaptive round, whatever the widths.
# (Whether a cell within the target stops depends on the stand-ins' timing
# here; the stats tests check that decision on fixed data.)
"$SWEEP" $common --halfwidth 0.0001% --max-runs 3 --out "$WORK/b" >/dev/null 2>"$WORK/err"
expect "max-runs = runs: no extra round" "$?|$(q "$WORK/b/latest/results.db" "SELECT count(*), max(round) FROM schedule")|$(grep -c "max-runs 3 reached, 2 cells" "$WORK/err")" "0|12|3|1"

# --max-time: one adaptive round per invocation here; --resume continues the rule.
"$SWEEP" $common --halfwidth 0.0001% --max-runs 6 --max-time 0.001 --out "$WORK/c" >/dev/null 2>"$WORK/err"
DB="$WORK/c/latest/results.db"
expect "max-time: one adaptive round" "$?|$(q "$DB" "SELECT max(round) FROM schedule")|$(grep -c 'max-time' "$WORK/err")" "0|4|1"
"$SWEEP" --resume "$WORK/c/latest" --no-progress >/dev/null 2>"$WORK/err"
expect "resume adds the next round" "$?|$(q "$DB" "SELECT max(round), count(*) FROM schedule")|$(q "$DB" "SELECT count(*) FROM runs")" "0|5|20|20"

# Bad settings.
for bad in "--halfwidth 2% --design independent" "--halfwidth abc" "--halfwidth 2% --max-runs 2" "--max-time x"; do
    "$SWEEP" $common $bad --out "$WORK/bad" >/dev/null 2>"$WORK/err"
    expect "$bad: exit 2" "$?" 2
done
expect "bad settings create nothing" "$(ls "$WORK/bad" 2>/dev/null | wc -l)" 0
finish
