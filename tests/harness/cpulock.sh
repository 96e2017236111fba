#!/bin/sh
# cpulock.sh - one sweep per CPU at a time: a sweep whose CPU is held by
# another waits for it with a message, creating nothing meanwhile, then
# runs and records the wait; the sweeps running on other CPUs at its start
# are recorded in meta (and a warning printed).
. tests/harness/lib.sh

CPU=$(awk '/^Cpus_allowed_list/ { n = split($2, r, /[,-]/); print r[n] }' /proc/self/status)
LOCK="$FREECHECK_LOCK_DIR/freecheck-cpu$CPU.lock"
# Another "sweep" holds this CPU for 3 s; another one holds CPU 999.
echo "pid 4242, started 2026-01-01T00:00:00Z" > "$LOCK"
flock -o "$LOCK" sleep 3 &
holder=$!
echo "pid 777, started 2026-01-02T00:00:00Z" > "$FREECHECK_LOCK_DIR/freecheck-cpu999.lock"
flock -o "$FREECHECK_LOCK_DIR/freecheck-cpu999.lock" sleep 8 &
other=$!
sleep 0.5
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-ok --periods none --time-hz none --runs 2 \
    --size 1 --counters none --cpu "$CPU" --out "$WORK/res" >/dev/null 2>"$WORK/err" &
pid=$!
sleep 1.5
expect "while waiting: nothing created" "$([ -e "$WORK/res" ] && echo created || echo nothing)" nothing
expect "while waiting: the message names the CPU and the holder" "$(head -n 1 "$WORK/err")" \
    "sweep: CPU $CPU is in use by another sweep (pid 4242, started 2026-01-01T00:00:00Z); waiting until it ends (Ctrl-C and --cpu N to use another CPU)"
wait $pid
expect "then it runs: exit 0" "$?" 0
DB="$WORK/res/latest/results.db"
expect "the wait is recorded (2 s or more)" "$(q "$DB" "SELECT value >= 2 AND value < 60 FROM meta WHERE key = 'cpu_lock_wait_s'")" 1
expect "the other sweep running is recorded" "$(q "$DB" "SELECT value FROM meta WHERE key = 'other_sweeps_at_start'")" \
    "cpu 999: pid 777, started 2026-01-02T00:00:00Z"
expect "and warned about" "$(grep -c '^sweep: warning: other sweeps are running on this machine (cpu 999: pid 777' "$WORK/err")" 1
expect "the lock now names this sweep's process" "$(sed 's/, started .*//' "$LOCK")" "pid $pid"
wait $holder
kill $other 2>/dev/null
wait $other 2>/dev/null
# Alone: no wait, no other sweep.
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-ok --periods none --time-hz none --runs 1 \
    --size 1 --counters none --cpu "$CPU" --out "$WORK/res2" >/dev/null 2>"$WORK/err2"
expect "alone: exit 0, no wait, no other sweep" "$?|$(q "$WORK/res2/latest/results.db" "SELECT group_concat(value, '|')
    FROM (SELECT value FROM meta WHERE key IN ('cpu_lock_wait_s', 'other_sweeps_at_start') ORDER BY key)")" "0|0.0|none"
finish
