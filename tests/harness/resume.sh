#!/bin/sh
# resume.sh - kill -9 in the middle of a sweep (blocked design), then
# --resume: every planned run is stored exactly once, in its planned
# position, the runs stored before the kill are kept unchanged, and no block
# is ever stored half (its two runs are committed together, so the resumed
# sweep reruns an interrupted block whole, adjacent).
. tests/harness/lib.sh

"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-ok,fake-alt --periods 64K,1M --time-hz 1000 \
    --runs 6 --warmup 1 --size 250 --seed 11 --counters perf::task-clock --out "$WORK/res" \
    >"$WORK/out1" 2>"$WORK/err1" &
pid=$!
DB=""
# Wait (at most 10 minutes: a busy machine only makes it slower) until a
# dozen runs are committed, then kill -9.
i=0
while [ $i -lt 6000 ]; do
    [ -z "$DB" ] && [ -e "$WORK/res/latest/results.db" ] && DB="$WORK/res/latest/results.db"
    if [ -n "$DB" ]; then
        n=$(q "$DB" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)
        [ "${n:-0}" -ge 12 ] && break
    fi
    sleep 0.1
    i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
[ -n "$DB" ] || { fail "the sweep never created its database"; cat "$WORK/err1"; finish; }
before=$(q "$DB" 'SELECT run_id, cell_id, round, seq, status, wall_ns FROM runs ORDER BY run_id')
nbefore=$(echo "$before" | wc -l)
echo "killed after $nbefore committed runs"
[ "$nbefore" -ge 12 ] && [ "$nbefore" -lt 112 ] || fail "kill -9 landed outside the sweep ($nbefore runs)"
expect "no half block stored at the kill" "$(q "$DB" "SELECT count(*) FROM (SELECT block FROM runs GROUP BY block
    HAVING count(*) != 2)")|$((nbefore % 2))" "0|0"
# The run in flight dies with the harness (PR_SET_PDEATHSIG); allow the
# kernel a moment to deliver that (at most 20 s, on a busy machine).
left=1
i=0
while [ $i -lt 100 ]; do
    i=$((i + 1))
    left=$(ps -eo args | grep -c "^$FAKE_BIN/fake-[a-z]* --size 250")
    [ "$left" -eq 0 ] && break
    sleep 0.2
done
expect "no workload left running after the kill" "$left" 0

"$SWEEP" --resume "$WORK/res/latest" --no-progress >"$WORK/out2" 2>"$WORK/err2"
expect "resume exit status" "$?" 0
expect "resume ran exactly the missing runs" "$(grep -c "^sweep: 112 runs planned, $((112 - nbefore)) to run (resuming)" "$WORK/err2")" 1
expect "every planned run exactly once" "$(q "$DB" "SELECT count(*), count(DISTINCT seq), count(DISTINCT block),
    count(DISTINCT block || '/' || block_pos) FROM runs")" "112|112|56|112"
expect "each run in its planned position and block" "$(q "$DB" "SELECT count(*) FROM runs r JOIN schedule s
    ON s.cell_id = r.cell_id AND s.round = r.round AND s.seq = r.seq AND s.block = r.block
    AND s.block_pos = r.block_pos AND s.block_role = r.block_role")" 112
expect "every block's runs adjacent (seq differs by 1)" "$(q "$DB" "SELECT count(*) FROM runs a JOIN runs b
    ON a.block = b.block AND a.block_pos = 1 AND b.block_pos = 2 AND b.seq = a.seq + 1")" 56
expect "all ok" "$(q "$DB" "SELECT status, count(*) FROM runs GROUP BY status")" "ok|112"
expect "runs from before the kill unchanged" "$(q "$DB" "SELECT run_id, cell_id, round, seq, status, wall_ns
    FROM runs ORDER BY run_id LIMIT $nbefore")" "$before"
expect "rounds: one warm-up (0) and 1..6" "$(q "$DB" "SELECT DISTINCT round FROM runs ORDER BY round" | tr '\n' ' ')" \
    "0 1 2 3 4 5 6 "
expect "status complete" "$(q "$DB" "SELECT value FROM meta WHERE key = 'status'")" complete
expect "csv has every run" "$(wc -l < "$WORK/res/latest/runs.csv")" 113

"$SWEEP" --resume "$WORK/res/latest" --no-progress >"$WORK/out3" 2>"$WORK/err3"
expect "resuming a finished sweep runs nothing" "$?|$(grep -c '^sweep: 112 runs planned, 0 to run' "$WORK/err3")|$(q "$DB" 'SELECT count(*) FROM runs')" "0|1|112"

# A program rebuilt between an interruption and --resume: refused, naming
# it; the same bytes again: resumed.  (A copy of the stand-ins, so the
# shared ones are not touched.)
cp -a "$FAKE_BIN" "$WORK/bin"
"$SWEEP" --bin-dir "$WORK/bin" --no-progress --workloads fake-ok,fake-alt --periods 64K --time-hz none \
    --runs 10 --warmup 0 --size 100 --seed 12 --counters none --out "$WORK/res5" >/dev/null 2>"$WORK/err5" &
pid=$!
DB5=""
i=0
while [ $i -lt 6000 ]; do
    [ -z "$DB5" ] && [ -e "$WORK/res5/latest/results.db" ] && DB5="$WORK/res5/latest/results.db"
    if [ -n "$DB5" ]; then
        n=$(q "$DB5" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)
        [ "${n:-0}" -ge 4 ] && break
    fi
    sleep 0.05
    i=$((i + 1))
done
kill -INT $pid
wait $pid
expect "interrupted sweep: exit 1" "$?" 1
expect "the programs' hashes are recorded" "$(q "$DB5" "SELECT key, value = '$(sha256sum < "$WORK/bin/fakework" |
    cut -d' ' -f1)' FROM meta WHERE key LIKE 'sha256:%' ORDER BY key")" "sha256:fake-alt|1
sha256:fake-ok|1
sha256:harness/sweep|0
sha256:harness/valgrind|0
sha256:libsgc.a|0"
expect "the harness's own hash is the sweep's" "$(q "$DB5" "SELECT value FROM meta WHERE key = 'sha256:harness/sweep'")" \
    "$(sha256sum < "$SWEEP" | cut -d' ' -f1)"
n5=$(q "$DB5" 'SELECT count(*) FROM runs')
cp "$WORK/bin/fakework" "$WORK/fakework.orig"
printf 'x' >> "$WORK/bin/fakework" # a different build of the same program
"$SWEEP" --resume "$WORK/res5/latest" --no-progress >/dev/null 2>"$WORK/err6"
expect "resume with a changed program: exit 2" "$?" 2
expect "the message names what changed" "$(grep -c "^  $WORK/bin/fake-ok (fake-ok): sha256 [0-9a-f]\{64\} when the sweep started, [0-9a-f]\{64\} now" "$WORK/err6")|$(grep -c 'resuming would mix two builds' "$WORK/err6")" "1|1"
expect "nothing run" "$(q "$DB5" 'SELECT count(*) FROM runs')" "$n5"
cp "$WORK/fakework.orig" "$WORK/bin/fakework"
"$SWEEP" --resume "$WORK/res5/latest" --no-progress >/dev/null 2>"$WORK/err7"
expect "the same program again: resumed" "$?|$(q "$DB5" 'SELECT count(*) = (SELECT count(*) FROM schedule) FROM runs')" "0|1"
finish
