#!/bin/sh
# determinism.sh - a simulated run's counts depend on nothing outside the
# plan (docs/HARNESS.md, "The simulated part"): the same plan swept from
# `env -i` with a short working directory and --tmp, from a shell with many
# long variables (SGC_* ones among them, which the sweep names once on
# stderr), a long working directory and a long TMPDIR, and once more killed
# after its first run and resumed from a third shell: every count of every
# run the same, exactly.  Uses gcbench at --size 1 when it is built, else
# the stand-in.
. tests/harness/lib.sh

if ! command -v valgrind >/dev/null 2>&1; then
    fail "valgrind is not installed (make deps installs it)"; finish
fi
SWEEP=$(cd "$(dirname "$SWEEP")" && pwd)/$(basename "$SWEEP")
if [ -x "$BIN/gcbench" ]; then
    W=gcbench; BD=$(cd "$BIN" && pwd)
else
    W=fake-ok; BD=$FAKE_BIN
fi
PLAN="--backends sim --bin-dir $BD --workloads $W --sim-size $W=1 --periods 64K --time-hz none --seed 7 --sim-runs 3
    --sim-jobs 1 --no-progress"
echo "simulated sweeps of $W"

# 1: nothing but PATH, a short directory.
mkdir -p "$WORK/a/tmp"
(cd "$WORK/a" && env -i PATH=/usr/bin:/bin FREECHECK_LOCK_DIR="$FREECHECK_LOCK_DIR" \
    "$SWEEP" $PLAN --tmp "$WORK/a/tmp" --out "$WORK/a/res" >"$WORK/a/out" 2>"$WORK/a/err")
expect "sweep from env -i" "$?" 0

# 2: many long variables, SGC_* ones too, a long working directory and a
# long TMPDIR.
long="$WORK/b/$(printf 'd%.0s' $(seq 1 120))/$(printf 'e%.0s' $(seq 1 60))"
ltmp="$WORK/b/$(printf 't%.0s' $(seq 1 100))/tmp"
mkdir -p "$long" "$ltmp"
pad=$(printf 'x%.0s' $(seq 1 300))
(cd "$long" && i=0 && while [ $i -lt 40 ]; do export "LONG_VARIABLE_$i=$pad$i"; i=$((i + 1)); done &&
    SGC_NURSERY=1M SGC_TIME_HZ=100 GLIBC_TUNABLES=glibc.malloc.tcache_count=3 LD_LIBRARY_PATH=/nonexistent \
    TMPDIR="$ltmp" "$SWEEP" $PLAN --out "$WORK/b/res" >"$WORK/b/out" 2>"$WORK/b/err")
expect "sweep from a long environment" "$?" 0
expect "the shell's SGC_* variables named once, with --env" "$(grep -c 'warning: the environment' "$WORK/b/err")|$(grep 'warning: the environment' "$WORK/b/err")" \
    "1|sweep: warning: the environment's SGC_NURSERY, SGC_TIME_HZ are not passed to the runs (the sweep sets each run's runtime settings itself); give a runtime setting for every run with --env NAME=VALUE (docs/HARNESS.md)"

# 3: killed after its first simulated run, resumed from yet another shell.
mkdir -p "$WORK/c/tmp"
(cd "$WORK/c" && exec env -i PATH=/usr/bin:/bin HOME=/ FREECHECK_LOCK_DIR="$FREECHECK_LOCK_DIR" \
    "$SWEEP" $PLAN --tmp "$WORK/c/tmp" --out "$WORK/c/res" >"$WORK/c/out" 2>"$WORK/c/err") &
pid=$!
DB=""
i=0
while [ $i -lt 3000 ]; do
    [ -z "$DB" ] && [ -e "$WORK/c/res/latest/results.db" ] && DB="$WORK/c/res/latest/results.db"
    if [ -n "$DB" ]; then
        n=$(q "$DB" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)
        [ "${n:-0}" -ge 1 ] && break
    fi
    sleep 0.1
    i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
n=$(q "$DB" 'SELECT count(*) FROM runs')
echo "killed after $n runs"
[ "$n" -ge 1 ] && [ "$n" -lt 6 ] || fail "the kill landed outside the sweep ($n runs)"
(cd "$long" && export A_VARIABLE="$pad$pad" && SGC_SEED=5 "$SWEEP" --resume "$WORK/c/res/latest" --no-progress \
    >"$WORK/c/out2" 2>"$WORK/c/err2")
expect "the resume from another shell" "$?" 0

counts() { q "$1/res/latest/results.db" "SELECT c.label, r.round, k.event, k.raw FROM run_counters k
    JOIN runs r USING(run_id) JOIN cells c USING(cell_id) ORDER BY c.label, r.round, k.event"; }
expect "every run counted" "$(counts "$WORK/a" | wc -l)" 60
expect "the runs of a cell repeat every count" "$(q "$WORK/a/res/latest/results.db" "SELECT count(*) FROM
    (SELECT r.cell_id, k.event FROM run_counters k JOIN runs r USING(run_id) GROUP BY r.cell_id, k.event
    HAVING max(k.raw) = min(k.raw) AND count(*) = 3)")" 20
expect "the long environment's counts are env -i's, exactly" "$(counts "$WORK/b")" "$(counts "$WORK/a")"
expect "the killed and resumed sweep's counts too" "$(counts "$WORK/c")" "$(counts "$WORK/a")"
finish
