#!/bin/sh
# merge.sh - sweep --shard K/N and sweep --merge on stand-in workloads: the
# shards' plans partition the unsharded plan; the merged sweep equals the
# same plan run unsharded (cells, schedule, every run's position, block,
# role and SGC_SEED), with the node of every run; merges of shards that do
# not belong together are refused with the reason (exit 2) and create
# nothing.
. tests/harness/lib.sh

ARGS="--backends native --bin-dir $FAKE_BIN --no-progress --workloads fake-ok,fake-alt,fake-min --periods 64K
    --time-hz 1000 --depths none --runs 2 --warmup 1 --size 150 --counters perf::task-clock"
HOST=$(hostname)

# The plan: the shards' runs are the unsharded plan's, each exactly once.
"$SWEEP" $ARGS --seed 7 --plan | grep '^run ' | sort >"$WORK/plan-all"
: >"$WORK/plan-shards"
for k in 1 2 3; do
    "$SWEEP" $ARGS --seed 7 --shard $k/3 --plan >"$WORK/plan$k" || fail "--plan --shard $k/3"
    grep '^run ' "$WORK/plan$k" >>"$WORK/plan-shards"
done
expect "--plan: the three shards' runs are the plan's runs, each once" "$(sort "$WORK/plan-shards" | md5sum)" \
    "$(md5sum <"$WORK/plan-all")"
expect "--plan: shard 1 names its workload" "$(grep -c '^shard 1/3: 18 of the plan.s 54 runs: fake-ok$' "$WORK/plan1")" 1

# Bad --shard settings (exit 2, before anything is created).
for bad in "--shard 1/3" "--seed 7 --shard 4/3" "--seed 7 --shard 0/3" "--seed 7 --shard 1/4" \
    "--seed 7 --shard 1/3 --halfwidth 2%" "--seed 7 --shard x"; do
    "$SWEEP" $ARGS $bad --out "$WORK/bad" >/dev/null 2>"$WORK/err"
    expect "refused: $bad" "$?" 2
done
expect "nothing created by the refused settings" "$(ls "$WORK/bad" 2>/dev/null | wc -l)" 0
expect "--shard without --seed says why" "$("$SWEEP" $ARGS --shard 1/3 --out "$WORK/bad" 2>&1 |
    grep -c 'give the seed (--seed N, the same for every shard)')" 1
expect "--shard 1/4 of three workloads says why" "$("$SWEEP" $ARGS --seed 7 --shard 1/4 --plan 2>&1 |
    grep -c 'the plan has 3 groups of cells')" 1

# The unsharded sweep and its three shards (given in another order to merge).
"$SWEEP" $ARGS --seed 7 --out "$WORK/ref" >/dev/null 2>"$WORK/err" || fail "unsharded sweep: $(tail -n 3 "$WORK/err")"
REF="$WORK/ref/latest/results.db"
for k in 3 1 2; do
    "$SWEEP" $ARGS --seed 7 --shard $k/3 --out "$WORK/s$k" >/dev/null 2>"$WORK/err" || fail "shard $k: $(tail -n 3 "$WORK/err")"
done
expect "shard 2's meta" "$(q "$WORK/s2/latest/results.db" "SELECT value FROM meta WHERE key IN ('shard', 'shard_groups')
    ORDER BY key")" "2/3
fake-alt"
expect "shard 2 holds every cell of the plan, sizes only for its own" "$(q "$WORK/s2/latest/results.db" "SELECT
    group_concat(workload || ':' || size, ' ') FROM cells WHERE kind = 'baseline'")" "fake-ok:0 fake-alt:150 fake-min:0"
expect "shard 2 calibrated only its workload" "$(q "$WORK/s2/latest/results.db" "SELECT group_concat(workload)
    FROM calibration")" fake-alt
"$SWEEP" --merge "$WORK/merged" "$WORK/s2/latest" "$WORK/s3/latest" "$WORK/s1/latest" >"$WORK/out" 2>"$WORK/err"
expect "merge exit status" "$?" 0
M="$WORK/merged/results.db"
expect "merge says what it merged" "$(grep -c "^sweep: merged 3 shards ($HOST, $HOST, $HOST): 9 cells, 54 runs, every planned run once" "$WORK/err")" 1
expect "merge prints where" "$(cat "$WORK/out")" "results: $WORK/merged/results.db and $WORK/merged/runs.csv"
for sql in "SELECT * FROM schedule ORDER BY seq" \
    "SELECT cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, args, depth, backend
     FROM cells ORDER BY cell_id" \
    "SELECT seq, cell_id, round, block, block_pos, block_role, sgc_seed, status, cpu FROM runs ORDER BY seq" \
    "SELECT workload, size, method, status FROM calibration ORDER BY workload" \
    "SELECT r.seq, s.key, s.value FROM run_stats s JOIN runs r USING(run_id) WHERE s.key IN ('alloc_period',
     'time_hz', 'bytes_allocated') ORDER BY r.seq, s.key" \
    "SELECT count(*) FROM run_counters"; do
    expect "merged equals unsharded: $(echo "$sql" | head -n 1 | cut -c1-60)" "$(q "$M" "$sql" | md5sum)" \
        "$(q "$REF" "$sql" | md5sum)"
done
expect "every run's node is kept" "$(q "$M" "SELECT count(*), count(DISTINCT node), min(node) FROM runs")" "54|1|$HOST"
expect "run ids follow the start times" "$(q "$M" "SELECT count(*) FROM runs a JOIN runs b ON b.run_id = a.run_id + 1
    WHERE b.started_ns < a.started_ns")" 0
expect "merged meta" "$(q "$M" "SELECT key || '=' || value FROM meta WHERE key IN ('shards', 'status', 'seed',
    'nodes', 'shard') ORDER BY key")" "nodes=$HOST
seed=7
shards=3
status=complete"
expect "merged config is the unsharded plan's" "$(q "$M" "SELECT value FROM meta WHERE key = 'config'" | grep '^shard')" \
    "shard = none"
expect "every shard's meta kept" "$(q "$M" "SELECT group_concat(value, ' ') FROM shard_meta WHERE key = 'shard'")" \
    "1/3 2/3 3/3"
expect "runs.csv holds every run" "$(($(wc -l <"$WORK/merged/runs.csv") - 1))" 54
"$SWEEP" --resume "$WORK/merged" --no-progress >/dev/null 2>"$WORK/err"
expect "resuming the merged sweep runs nothing" "$(grep -c '54 runs planned, 0 to run' "$WORK/err")" 1
if [ -n "${ANALYZE:-}" ]; then
    "$ANALYZE" --quiet --resamples 1000 --fit-resamples 100 "$WORK/merged" || fail "analyze of the merged sweep"
    "$ANALYZE" --quiet --resamples 1000 --fit-resamples 100 "$WORK/ref/latest" || fail "analyze of the unsharded sweep"
    expect "analyze: the same cells and run counts" "$(cut -d, -f1-12 "$WORK/merged/summary.csv")" \
        "$(cut -d, -f1-12 "$WORK/ref/latest/summary.csv")"
    expect "analyze: a Nodes section" "$(grep -c '^Every group (a baseline and its cells) ran on one node' \
        "$WORK/merged/summary.md")" 1
fi

# A shard interrupted and resumed (its last block lost) merges like the others.
cp -r "$(cd "$WORK/s2/latest" && pwd -P)" "$WORK/s2-resumed"
q "$WORK/s2-resumed/results.db" "CREATE TEMP TABLE gone AS SELECT run_id FROM runs WHERE block = (SELECT max(block)
    FROM runs); DELETE FROM run_stats WHERE run_id IN gone; DELETE FROM run_counters WHERE run_id IN gone;
    DELETE FROM runs WHERE run_id IN gone; UPDATE meta SET value = 'interrupted' WHERE key = 'status'"
"$SWEEP" --resume "$WORK/s2-resumed" --no-progress >/dev/null 2>"$WORK/err"
expect "the interrupted shard resumes its last block" "$(grep -c '18 runs planned, 2 to run (resuming)' "$WORK/err")" 1
"$SWEEP" --merge "$WORK/merged2" "$WORK/s1/latest" "$WORK/s2-resumed" "$WORK/s3/latest" >/dev/null 2>&1
expect "the resumed shard merges" "$?" 0
expect "merged with the resumed shard equals unsharded" "$(q "$WORK/merged2/results.db" "SELECT seq, cell_id, round,
    block, block_pos, block_role, sgc_seed FROM runs ORDER BY seq" | md5sum)" "$(q "$REF" "SELECT seq, cell_id, round,
    block, block_pos, block_role, sgc_seed FROM runs ORDER BY seq" | md5sum)"

# Merges that must be refused (exit 2, the reason, nothing created).
refuse() { # NAME PATTERN DIR...
    name=$1 pat=$2
    shift 2
    rm -rf "$WORK/m"
    "$SWEEP" --merge "$WORK/m" "$@" >/dev/null 2>"$WORK/err"
    rc=$?
    expect "refused ($name): exit status" "$rc" 2
    expect "refused ($name): the reason" "$(grep -c "$pat" "$WORK/err")" 1
    [ "$(grep -c "$pat" "$WORK/err")" = 1 ] || cat "$WORK/err"
    expect "refused ($name): nothing created" "$(ls -d "$WORK/m" 2>/dev/null | wc -l)" 0
}
S1="$WORK/s1/latest" S2="$WORK/s2/latest" S3="$WORK/s3/latest"
refuse "a shard missing" "the sweep has 3 shards but 2 are given; missing: shard 2" "$S1" "$S3"
refuse "a shard twice" "are both shard 1/3" "$S1" "$S2" "$S3" "$S1"
refuse "not a shard" "is not a shard" "$S1" "$S2" "$WORK/ref/latest"
mkdir -p "$WORK/m"
"$SWEEP" --merge "$WORK/m" "$S1" "$S2" "$S3" >/dev/null 2>"$WORK/err"
expect "refused (OUT exists): exit status" "$?" 2
expect "refused (OUT exists): the reason" "$(grep -c 'exists; the merged sweep goes into a new directory' "$WORK/err")" 1
rmdir "$WORK/m"
# Another seed: another plan.
"$SWEEP" $ARGS --seed 8 --shard 2/3 --out "$WORK/seed8" >/dev/null 2>&1
refuse "another seed" "were run with different settings: 'seed = 7' against 'seed = 8'" "$S1" "$WORK/seed8/latest" "$S3"
# Another build of a workload: the hashes differ.
mkdir -p "$WORK/bin2"
cp "$FAKE_BIN/fakework" "$WORK/bin2/fakework" && printf 'x' >>"$WORK/bin2/fakework"
for n in ok alt min; do ln -s fakework "$WORK/bin2/fake-$n"; done
"$SWEEP" $ARGS --bin-dir "$WORK/bin2" --seed 7 --shard 3/3 --out "$WORK/build2" >/dev/null 2>&1
refuse "another build" "fake-alt differs between shards" "$S1" "$S2" "$WORK/build2/latest"
# A shard with its last block missing (interrupted, not resumed: a block's
# two runs are committed together).
cp -r "$(cd "$S2" && pwd -P)" "$WORK/s2-short"
q "$WORK/s2-short/results.db" "CREATE TEMP TABLE gone AS SELECT run_id FROM runs WHERE block = (SELECT max(block)
    FROM runs); DELETE FROM run_stats WHERE run_id IN gone; DELETE FROM run_counters WHERE run_id IN gone;
    DELETE FROM runs WHERE run_id IN gone"
refuse "a block missing" "misses 2 of its planned runs; finish it with: sweep --resume" "$S1" "$WORK/s2-short" "$S3"
# Half a block: no interruption leaves that (sw_verify.h); --resume refuses
# it too.
cp -r "$(cd "$S2" && pwd -P)" "$WORK/s2-half"
q "$WORK/s2-half/results.db" "DELETE FROM run_stats WHERE run_id = (SELECT max(run_id) FROM runs);
    DELETE FROM run_counters WHERE run_id = (SELECT max(run_id) FROM runs); DELETE FROM runs WHERE run_id =
    (SELECT max(run_id) FROM runs)"
refuse "half a block" "(shard 2): it holds half of block [0-9]* (run [0-9]* without the other): a block's two runs are stored together, so the database was edited; start a new sweep" \
    "$S1" "$WORK/s2-half" "$S3"
# A run present twice: shard 1 holding a copy of one of shard 2's runs.
cp -r "$(cd "$S1" && pwd -P)" "$WORK/s1-extra"
seq2=$(q "$S2/results.db" "SELECT min(seq) FROM runs")
q "$WORK/s1-extra/results.db" "INSERT INTO runs(cell_id, round, seq, status) SELECT 4, 0, $seq2, 'ok'"
refuse "a run twice" "holds 1 runs that its schedule does not plan" "$WORK/s1-extra" "$S2" "$S3"
# A shard that is not done.
cp -r "$(cd "$S3" && pwd -P)" "$WORK/s3-running"
q "$WORK/s3-running/results.db" "UPDATE meta SET value = 'interrupted' WHERE key = 'status'"
refuse "a shard not complete" "is not complete (status interrupted)" "$S1" "$S2" "$WORK/s3-running"
finish
