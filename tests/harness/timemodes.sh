#!/bin/sh
# timemodes.sh - sweep --time-modes signal,thread end to end: a quick sweep
# of gcbench whose time cell is made once per time sampler's mode (cells,
# labels, every time run's stats record), analyze's comparisons of
# allocation sampling against each mode (summary.csv, summary.md,
# normalized.dat), --resume verifying the modes; the refusals (exact
# messages, exit 2); the default rule by the sweep's CPU affinity (--plan,
# pinned with taskset to one CPU and unpinned); an older sweep's cells
# without the time_mode column resumed and read as its one mode.
. tests/harness/lib.sh
: "${BIN:?BIN must name the build's bin directory}"
: "${ANALYZE:?ANALYZE must name the analyze binary}"

# ---- Refusals: exit 2, the message, nothing created ----------------------
refused() {
    name=$1 msg=$2
    shift 2
    "$SWEEP" --bin-dir "$FAKE_BIN" --workloads fake-ok --no-progress --out "$WORK/nothing" "$@" >/dev/null 2>"$WORK/err"
    expect "$name: refused" "$?|$(cat "$WORK/err")|$(ls "$WORK/nothing" 2>/dev/null | wc -l)" "2|sweep: $msg|0"
}
refused "a mode listed twice" "option --time-modes: time-modes: 'thread' is listed twice (name each item once)" \
    --time-modes thread,signal,thread
refused "an unknown mode" "option --time-modes: time-modes: 'timer' is not signal or thread" --time-modes signal,timer
refused "no mode" "option --time-modes: time-modes: name at least one mode of the time sampler (signal, thread)" \
    --time-modes none
refused "--time-modes with --env SGC_TIME_MODE" \
    "--time-modes and --env SGC_TIME_MODE both set the time sampler's mode: give --time-modes alone (it makes every time cell once per mode)" \
    --time-modes signal,thread --env SGC_TIME_MODE=signal
refused "thread with the cpu clock" \
    "--time-modes thread: the sampler thread samples the wall clock only, so the cpu clock's time cells cannot be made in thread mode; drop cpu from --time-clock, or thread from --time-modes" \
    --time-modes signal,thread --time-clock wall,cpu
printf 'time-modes = signal\ntime-modes = thread\n' >"$WORK/twice.conf"
refused "a config file setting the modes twice" \
    "$WORK/twice.conf line 2: 'time-modes' is set again (first on line 1); a config file sets each setting once" \
    --config "$WORK/twice.conf"

# ---- The default rule: the CPUs the sweep may use (its affinity) ---------
defaults() { "$@" --plan --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --periods none --time-hz 1000 \
    --seed 1 | grep -e '^time modes' -e '^cell '; }
expect "pinned to one CPU: signal, and why" "$(defaults taskset -c 0 "$SWEEP")" \
    "time modes signal: default: signal, since the sweep may use 1 CPU (its CPU affinity, sched_getaffinity): a sampler thread would share the run's CPU
cell 1 fake-ok/baseline
cell 2 fake-ok/time-1000Hz"
cpus=$(nproc)
if [ "$cpus" -ge 2 ]; then
    expect "on $cpus CPUs: thread, and why" "$(defaults "$SWEEP")" \
        "time modes thread: default: thread, since the sweep may use $cpus CPUs (its CPU affinity, sched_getaffinity): the sampler thread runs on another CPU than the run's
cell 1 fake-ok/baseline
cell 2 fake-ok/time-1000Hz-thread"
else
    echo "one CPU here: the two-CPU default is checked by the unit test (opts::time_modes_default_rule)"
fi
expect "with the cpu clock: signal, and why" "$(defaults "$SWEEP" --time-clock cpu | head -n 1)" \
    "time modes signal: default: signal, since --time-clock has cpu and the sampler thread samples the wall clock only"

if [ ! -x "$BIN/gcbench" ]; then
    fail "gcbench is not built (make builds it)"
    finish
fi

# ---- A sweep of both modes, end to end ---------------------------------------
ARGS="--backends native --bin-dir $BIN --workloads gcbench --periods 1M --time-hz 1000 --time-modes signal,thread
    --runs 3 --target 0.05 --counters none --seed 5 --no-progress"
"$SWEEP" $ARGS --out "$WORK/res" >/dev/null 2>"$WORK/err"
expect "sweep: exit 0" "$?" 0
D=$(cd "$WORK/res/latest" && pwd -P)
DB=$D/results.db
expect "cells: the time cell once per mode, thread's label suffixed" \
    "$(q "$DB" "SELECT cell_id, label, kind, time_hz, time_mode FROM cells ORDER BY cell_id")" \
    "1|gcbench/baseline|baseline|0|
2|gcbench/alloc-fixed-1M|alloc|0|
3|gcbench/time-1000Hz|time|1000|signal
4|gcbench/time-1000Hz-thread|time|1000|thread"
expect "every run ok: 4 rounds of 4 blocks of 2 runs" "$(q "$DB" "SELECT status, count(*) FROM runs GROUP BY 1")" "ok|32"
expect "every time run's stats record shows its cell's mode" "$(q "$DB" "SELECT c.label, s.value, count(*) FROM runs r
    JOIN cells c USING(cell_id) JOIN run_stats s ON s.run_id = r.run_id AND s.key = 'time_mode' WHERE c.time_hz > 0
    GROUP BY 1, 2 ORDER BY 1")" "gcbench/time-1000Hz|signal|4
gcbench/time-1000Hz-thread|thread|4"
expect "the thread mode's sampler thread left the run's CPU" "$(q "$DB" "SELECT count(*) FROM runs r
    JOIN cells c USING(cell_id) JOIN run_stats s ON s.run_id = r.run_id AND s.key = 'time_sampler_cpu'
    WHERE c.time_mode = 'thread' AND s.value != '-1' AND s.value != r.cpu")" "$([ "$cpus" -ge 2 ] && echo 4 || echo 0)"
expect "meta: the modes and why" "$(q "$DB" "SELECT key, value FROM meta WHERE key LIKE 'time_modes%' ORDER BY key")" \
    "time_modes|signal,thread
time_modes_cpus|$cpus
time_modes_reason|given (--time-modes)"
expect "stored config: the modes" "$(q "$DB" "SELECT value FROM meta WHERE key = 'config'" | grep '^time-modes')" \
    "time-modes = signal,thread"

"$ANALYZE" --quiet --resamples 1000 "$D" >/dev/null 2>"$WORK/aerr"
expect "analyze: exit 0" "$?" 0
col() { sed -n 2p "$D/summary.csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1; }
expect "summary.csv: a row per cell, both time modes' labels" \
    "$(awk -F, -v l="$(col label)" 'NR > 2 { print $l }' "$D/summary.csv")" "gcbench/baseline
gcbench/alloc-fixed-1M
gcbench/time-1000Hz
gcbench/time-1000Hz-thread"
expect "summary.md: the allocation-vs-time verdict of each mode" \
    "$(awk '/^### Allocation vs time sampling/ { s = 1; next } /^#/ { s = 0 } s && /^\| gcbench/' "$D/summary.md" |
        awk -F '|' '{ for (i = 2; i <= 12; i++) gsub(/^ +| +$/, "", $i)
            print $2 "|" $3 "|" $7 "|" ($12 ~ /^(allocation cheaper|time cheaper|equivalent within 2%|not resolved)$/) }')" \
    "gcbench|alloc fixed 1M|time signal wall 1000 Hz|1
gcbench/thread|alloc fixed 1M|time thread wall 1000 Hz|1"
expect "summary.md: the resolved line names both" \
    "$(grep -c '^Resolved on [0-9] of 2 workloads with an interval of the difference' "$D/summary.md")" 1
expect "normalized.dat: a row per mode, each with its verdict and difference" \
    "$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF { print $(c["workload"]), $(c["time_mode"]), $(c["time_hz"]), ($(c["resolved"]) ~ /^(alloc_cheaper|time_cheaper|equivalent|not_resolved)$/),
             ($(c["diff"]) !~ /[nN][aA][nN]/) }' "$D/plotdata/normalized.dat")" "gcbench signal 1000 1 1
gcbench/thread thread 1000 1 1"
expect "time_cells.dat: each mode its own series" \
    "$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
        NF { print $(c["time_mode"]), $(c["time_series"]), $(c["series_no"]) }' "$D/plotdata/time_cells.dat")" \
    "signal wall 0
thread wall-thread 2"

# ---- --resume verifies the modes -------------------------------------------
q "$DB" "CREATE TEMP TABLE gone AS SELECT run_id FROM runs WHERE block = (SELECT max(block) FROM runs);
    DELETE FROM run_stats WHERE run_id IN gone; DELETE FROM runs WHERE run_id IN gone;
    UPDATE meta SET value = 'interrupted' WHERE key = 'status'"
rm -rf "$WORK/edited" && cp -r "$D" "$WORK/edited"
q "$WORK/edited/results.db" "UPDATE cells SET time_mode = 'signal' WHERE cell_id = 4"
"$SWEEP" --resume "$WORK/edited" --no-progress >/dev/null 2>"$WORK/err"
expect "a cell's mode edited: --resume refused" "$?|$(cat "$WORK/err")|$(q "$WORK/edited/results.db" "SELECT count(*) FROM runs")" \
    "2|sweep: --resume $WORK/edited: cell 4 (gcbench/time-1000Hz-thread) has time_mode signal, but the plan of its settings makes it in thread: the database does not hold the plan it claims|30"
"$SWEEP" --resume "$D" --no-progress >/dev/null 2>"$WORK/err"
expect "the untouched sweep resumes" "$?|$(q "$DB" "SELECT count(*), sum(status = 'ok') FROM runs")" "0|32|32"

# ---- An older sweep: no time_mode column, --env SGC_TIME_MODE ------------
# (the older form: one mode for the whole sweep, today's labels)
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --periods none --time-hz 1000 --runs 2 --size 2 \
    --seed 3 --counters none --env SGC_TIME_MODE=thread --no-progress --out "$WORK/old" >/dev/null 2>"$WORK/err"
expect "older form: exit 0" "$?" 0
O=$(cd "$WORK/old/latest" && pwd -P)
expect "older form: one mode, today's labels, the mode through --env" \
    "$(q "$O/results.db" "SELECT label, time_mode FROM cells ORDER BY cell_id")|$(q "$O/results.db" "SELECT value FROM meta
    WHERE key = 'config'" | grep -c '^time-modes')|$(q "$O/results.db" "SELECT value FROM meta WHERE key = 'time_modes_reason'")" \
    "fake-ok/baseline|
fake-ok/time-1000Hz|thread|0|given (--env SGC_TIME_MODE=thread: the older form, one mode for the whole sweep)"
q "$O/results.db" "CREATE TEMP TABLE gone AS SELECT run_id FROM runs WHERE block = (SELECT max(block) FROM runs);
    DELETE FROM run_stats WHERE run_id IN gone; DELETE FROM runs WHERE run_id IN gone;
    UPDATE meta SET value = 'interrupted' WHERE key = 'status'; ALTER TABLE cells DROP COLUMN time_mode"
"$ANALYZE" --quiet --resamples 1000 "$O" >/dev/null 2>"$WORK/aerr"
expect "analyze reads a sweep without the column as its --env mode" "$?|$(awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
    NF { print $(c["time_mode"]) }' "$O/plotdata/time_cells.dat")" "0|thread"
"$SWEEP" --resume "$O" --no-progress >/dev/null 2>"$WORK/err"
expect "--resume of a sweep without the column: completes, the column added and filled" \
    "$?|$(q "$O/results.db" "SELECT group_concat(ifnull(time_mode, 'NULL'), ',') FROM cells")|$(q "$O/results.db" "SELECT
    count(*), sum(status = 'ok') FROM runs")" "0|,thread|12|12"

finish
