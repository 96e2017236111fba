#!/bin/sh
# local.sh - a sharded quick sweep on a real Slurm: starts a single-node
# Slurm on this machine (tests/slurm/cluster.sh, as root, in a temporary
# directory), submits scripts/slurm/sweep.sbatch with plain sbatch (a job
# array of SHARDS tasks and the dependent merge-and-analyze job), waits for
# the merged figures, and checks that the merged sweep equals the same plan
# run unsharded on this machine: the same cells (sizes fixed), the same
# schedule, every run once in its planned position, block and role with the
# same SGC_SEED, the same run counts per cell in analyze's summary.  Slurm is
# stopped at the end, however the test ends.
#
# Needs root, slurm-wlm and munge (make deps); without them it says SKIP and
# exits 0.  Environment: SWEEP, ANALYZE (the programs; the sbatch script runs
# build/bin of this repository), SLURM_TEST_ARGS (the sweep options; default
# below), SHARDS (2), SLURM_TEST_TIMEOUT (seconds to wait for the jobs, 900).
set -u
: "${SWEEP:?SWEEP must name the sweep binary}"
repo=$(pwd)
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the local Slurm test needs root (slurmd runs as root); run make test-slurm as root"
    exit 0
fi
for p in munged slurmctld slurmd sbatch; do
    if ! command -v "$p" >/dev/null; then
        echo "SKIP: $p is not installed (Debian packages slurm-wlm and munge: make deps)"
        exit 0
    fi
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slurm-test.XXXXXX")
chmod 755 "$WORK"
trap 'sh "$repo/tests/slurm/cluster.sh" stop "$WORK/cluster"; rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM HUP
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else
        fail "$1"; echo "  expected: $3" | head -n 20; echo "  actual:   $2" | head -n 20; fi
}
q() { sqlite3 -batch "$1" "$2"; }
# Private CPU locks: the test's sweeps do not queue behind other sweeps on this machine.
FREECHECK_LOCK_DIR="$WORK/locks"
export FREECHECK_LOCK_DIR
mkdir -p "$FREECHECK_LOCK_DIR"

ARGS=${SLURM_TEST_ARGS:-"--quick --backends native --runs 2 --size gcbench=120 --size microbench=300"}
SHARDS=${SHARDS:-2}
SEED=20261130

sh tests/slurm/cluster.sh start "$WORK/cluster" || { echo "FAIL: the local Slurm did not start"; exit 1; }
. "$WORK/cluster/env"

# The same plan, unsharded, on this machine.
t0=$(date +%s)
"$SWEEP" $ARGS --seed $SEED --no-progress --out "$WORK/ref" >/dev/null 2>"$WORK/ref.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || { fail "the unsharded sweep: exit $rc"; tail -n 5 "$WORK/ref.err"; }
echo "unsharded sweep: $(($(date +%s) - t0)) s"

# Plain sbatch of the script: it submits the array and the merge job.
OUT="$WORK/slurm"
t0=$(date +%s)
job=$(env FREECHECK="$repo" FREECHECK_BIN="$(dirname "$SWEEP")" SHARDS="$SHARDS" SEED=$SEED OUT="$OUT" SWEEP_ARGS="$ARGS" PARTITION=test \
    TIME_LIMIT=00:30:00 MERGE_TIME=00:10:00 sbatch --parsable --output="$WORK/submit.out" scripts/slurm/sweep.sbatch)
[ -n "$job" ] || { fail "sbatch refused scripts/slurm/sweep.sbatch"; exit 1; }
echo "submitted job $job"
limit=${SLURM_TEST_TIMEOUT:-900}
while [ $(($(date +%s) - t0)) -lt "$limit" ]; do
    grep -q 'merged, analysed and drawn\|merge refused or failed' "$OUT/slurm.log" 2>/dev/null &&
        [ -z "$(squeue -h -o %i)" ] && break
    # The submission job ended without submitting (its error is in submit.out):
    # nothing more will come, so do not wait out the limit.
    [ -z "$(squeue -h -o %i)" ] && [ -s "$WORK/submit.out" ] &&
        ! grep -q '^sweep.sbatch: shards: job array' "$WORK/submit.out" && break
    sleep 1
done
secs=$(($(date +%s) - t0))
echo "submission to merged figures: $secs s"
[ -f "$OUT/slurm.log" ] && sed 's/^/  slurm.log: /' "$OUT/slurm.log"
grep -q '^sweep.sbatch: shards: job array' "$WORK/submit.out" 2>/dev/null ||
    sed 's/^/  submit.out: /' "$WORK/submit.out" 2>/dev/null
expect "the submission job ran" "$(grep -c '^sweep.sbatch: shards: job array' "$WORK/submit.out" 2>/dev/null)" 1
expect "every shard ran as a task of the array" "$(grep -c "shard [0-9]*/$SHARDS ended on .*: exit status 0" "$OUT/slurm.log")" \
    "$SHARDS"
expect "merged, analysed and drawn" "$(grep -c 'merged, analysed and drawn: exit status 0' "$OUT/slurm.log")" 1
if [ "$(grep -c 'merged, analysed and drawn: exit status 0' "$OUT/slurm.log")" != 1 ]; then
    for f in "$OUT"/*.out "$WORK/submit.out"; do [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done
    echo "$FAILS checks failed"
    exit 1
fi

M="$OUT/merged/results.db"
R="$WORK/ref/latest/results.db"
for sql in "SELECT * FROM schedule ORDER BY seq" \
    "SELECT cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, args, depth, backend
     FROM cells ORDER BY cell_id" \
    "SELECT seq, cell_id, round, block, block_pos, block_role, sgc_seed, cpu FROM runs ORDER BY seq" \
    "SELECT c.label, count(*) FROM runs r JOIN cells c USING(cell_id) WHERE r.round >= 1 GROUP BY c.label"; do
    expect "merged equals unsharded: $(echo "$sql" | head -n 1 | cut -c1-60)" "$(q "$M" "$sql" | md5sum)" \
        "$(q "$R" "$sql" | md5sum)"
done
expect "run count" "$(q "$M" "SELECT count(*) FROM runs")" "$(q "$R" "SELECT count(*) FROM schedule")"
expect "every run's node" "$(q "$M" "SELECT count(DISTINCT node), min(node) FROM runs")" "1|$(hostname)"
expect "shards recorded" "$(q "$M" "SELECT value FROM meta WHERE key = 'shards'")" "$SHARDS"
"${ANALYZE:-build/bin/analyze}" --quiet "$WORK/ref/latest" || fail "analyze of the unsharded sweep"
expect "analyze: the same cells and run counts (summary.csv)" "$(cut -d, -f1-12 "$OUT/merged/summary.csv")" \
    "$(cut -d, -f1-12 "$WORK/ref/latest/summary.csv")"
expect "figures drawn" "$(ls "$OUT/merged/figures/"*.png 2>/dev/null | wc -l | tr -d ' ' | sed 's/^[1-9][0-9]*$/some/')" some
expect "summary.md: every group on one node" "$(grep -c '^Every group (a baseline and its cells) ran on one node' \
    "$OUT/merged/summary.md")" 1
if [ "$FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
echo "$FAILS checks failed"
exit 1
