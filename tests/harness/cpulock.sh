#!/bin/sh
# cpulock.sh - one sweep per CPU at a time: a sweep whose CPU is held by
# another waits for it with a message, creating nothing meanwhile, then
# runs and records the wait; the sweeps running on other CPUs at its start
# are recorded in meta (and a warning printed).
. tests/harness/lib.sh

CPU=$(awk '/^Cpus_allowed_list/ { n = split($2, r, /[,-]/); print r[n] }' /proc/self/status)
LOCK="$FREECHECK_LOCK_DIR/freecheck-cpu$CPU.lock"
# Another "sweep" holds this CPU until told to stop ($WORK/release); another
# one holds CPU 999 until the end ($WORK/release-999).  Every step waits for the state it needs
# (poll), never for a fixed time, so a busy machine only makes it slower.
# poll CMD...: runs CMD every 50 ms until it succeeds, for at most 120 s.
poll() {
    i=0
    until "$@"; do
        i=$((i + 1))
        [ $i -lt 2400 ] || return 1
        sleep 0.05
    done
}
held() { ! flock -n "$1" true; }
echo "pid 4242, started 2026-01-01T00:00:00Z" > "$LOCK"
flock -o "$LOCK" sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done' sh "$WORK/release" &
holder=$!
echo "pid 777, started 2026-01-02T00:00:00Z" > "$FREECHECK_LOCK_DIR/freecheck-cpu999.lock"
flock -o "$FREECHECK_LOCK_DIR/freecheck-cpu999.lock" sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done' sh "$WORK/release-999" &
other=$!
poll held "$LOCK" || fail "the stand-in sweep did not take $LOCK"
poll held "$FREECHECK_LOCK_DIR/freecheck-cpu999.lock" || fail "the stand-in sweep did not take the CPU 999 lock"
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-ok --periods none --time-hz none --runs 2 \
    --size 1 --counters none --cpu "$CPU" --out "$WORK/res" >/dev/null 2>"$WORK/err" &
pid=$!
poll grep -q 'is in use by another sweep' "$WORK/err"
expect "while waiting: nothing created" "$([ -e "$WORK/res" ] && echo created || echo nothing)" nothing
expect "while waiting: the message names the CPU and the holder" "$(head -n 1 "$WORK/err")" \
    "sweep: CPU $CPU is in use by another sweep (pid 4242, started 2026-01-01T00:00:00Z); waiting until it ends (Ctrl-C and --cpu N to use another CPU)"
# The sweep has waited since before its message: 2 s more, then the lock is free.
sleep 2
expect "still waiting after 2 s: nothing created" "$([ -e "$WORK/res" ] && echo created || echo nothing)" nothing
touch "$WORK/release"
wait $pid
expect "then it runs: exit 0" "$?" 0
DB="$WORK/res/latest/results.db"
expect "the wait is recorded (2 s or more)" "$(q "$DB" "SELECT value >= 2 AND value < 60 FROM meta WHERE key = 'cpu_lock_wait_s'")" 1
expect "the other sweep running is recorded" "$(q "$DB" "SELECT value FROM meta WHERE key = 'other_sweeps_at_start'")" \
    "cpu 999: pid 777, started 2026-01-02T00:00:00Z"
expect "and warned about" "$(grep -c '^sweep: warning: other sweeps are running on this machine (cpu 999: pid 777' "$WORK/err")" 1
expect "the lock now names this sweep's process" "$(sed 's/, started .*//' "$LOCK")" "pid $pid"
wait $holder
touch "$WORK/release-999"
wait $other
# Alone: no wait, no other sweep.
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-ok --periods none --time-hz none --runs 1 \
    --size 1 --counters none --cpu "$CPU" --out "$WORK/res2" >/dev/null 2>"$WORK/err2"
expect "alone: exit 0, no wait, no other sweep" "$?|$(q "$WORK/res2/latest/results.db" "SELECT group_concat(value, '|')
    FROM (SELECT value FROM meta WHERE key IN ('cpu_lock_wait_s', 'other_sweeps_at_start') ORDER BY key)")" "0|0.0|none"
finish
