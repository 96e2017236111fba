#!/bin/sh
# failures.sh - the sweep records crashing, hanging, wrong-checksum, failing
# --check and stats-less workloads as failed runs with exact reasons, goes
# on, and says so; bad arguments and unusable output dirs exit 2.
. tests/harness/lib.sh

mkdir -p "$WORK/tmp"
# --timeout 2: the good runs take milliseconds of CPU, but a busy machine
# can stretch that much; the hanging run is killed at 2 s of wall time.
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress \
    --workloads fake-ok,fake-crash,fake-hang,fake-badsum,fake-badcheck,fake-nostats \
    --periods 64K --time-hz 1000 --time-modes signal --runs 2 --warmup 1 --size 20 --timeout 2 --design independent \
    --counters perf::task-clock,cycles --seed 5 --out "$WORK/res" --tmp "$WORK/tmp" \
    >"$WORK/out" 2>"$WORK/err"
expect "exit status 3: complete, with failed runs" "$?" 3
DB="$WORK/res/latest/results.db"
[ -f "$DB" ] || { fail "no results.db behind results/latest"; cat "$WORK/err"; finish; }
expect "each failure reason once, with its count and the workload's last words" \
    "$(sed -n '/^sweep: failed runs, by reason/,/^sweep: harness/p' "$WORK/err" | grep '^  ' |
       sed 's/ (first: run [0-9]* [^ ]* round [0-9]*)//' | sort)" \
"  3 runs: killed by signal 11 (SIGSEGV)
  3 runs: timed out after 2 s (killed)
  3 runs: wrong checksum: printed 176390318, --check run printed 176390317
  9 runs: no stats record was written (SGC_STATS)
  9 runs: not run: the workload is unusable: --check at --size 20 failed: exit status 1; its last words: fake-badcheck: checksum mismatch (on purpose)"

expect "runs stored" "$(q "$DB" 'SELECT count(*) FROM runs')" 54
expect "outcomes per cell" "$(q "$DB" "SELECT c.label, r.status, coalesce(r.failure, '-'), count(*)
    FROM runs r JOIN cells c USING(cell_id) GROUP BY c.label, r.status, r.failure ORDER BY c.label")" \
"fake-badcheck/alloc-fixed-64K|failed|not run: the workload is unusable: --check at --size 20 failed: exit status 1|3
fake-badcheck/baseline|failed|not run: the workload is unusable: --check at --size 20 failed: exit status 1|3
fake-badcheck/time-1000Hz|failed|not run: the workload is unusable: --check at --size 20 failed: exit status 1|3
fake-badsum/alloc-fixed-64K|failed|wrong checksum: printed 176390318, --check run printed 176390317|3
fake-badsum/baseline|ok|-|3
fake-badsum/time-1000Hz|ok|-|3
fake-crash/alloc-fixed-64K|failed|killed by signal 11 (SIGSEGV)|3
fake-crash/baseline|ok|-|3
fake-crash/time-1000Hz|ok|-|3
fake-hang/alloc-fixed-64K|ok|-|3
fake-hang/baseline|ok|-|3
fake-hang/time-1000Hz|failed|timed out after 2 s (killed)|3
fake-nostats/alloc-fixed-64K|failed|no stats record was written (SGC_STATS)|3
fake-nostats/baseline|failed|no stats record was written (SGC_STATS)|3
fake-nostats/time-1000Hz|failed|no stats record was written (SGC_STATS)|3
fake-ok/alloc-fixed-64K|ok|-|3
fake-ok/baseline|ok|-|3
fake-ok/time-1000Hz|ok|-|3"
expect "crash: signal and tail kept" "$(q "$DB" "SELECT DISTINCT r.term_signal, r.exit_code IS NULL, r.output_tail
    FROM runs r JOIN cells c USING(cell_id) WHERE c.label = 'fake-crash/alloc-fixed-64K'")" "11|1|(no output)"
expect "wrong checksum: printed value and tail kept" "$(q "$DB" "SELECT DISTINCT r.checksum, r.output_tail
    FROM runs r JOIN cells c USING(cell_id) WHERE c.label = 'fake-badsum/alloc-fixed-64K'")" \
"176390318|--- stdout (end) ---
fake workload fake-badsum size 20
checksum 176390318"
expect "hang: killed near the timeout" "$(q "$DB" "SELECT count(*) FROM runs r JOIN cells c USING(cell_id)
    WHERE c.label = 'fake-hang/time-1000Hz' AND r.wall_ns BETWEEN 2000000000 AND 30000000000 AND r.term_signal = 9")" 3
expect "calibration of the failing --check" "$(q "$DB" "SELECT status, method, size FROM calibration
    WHERE workload = 'fake-badcheck'")" "failed|fixed|20"
expect "good runs have their stats joined" "$(q "$DB" "SELECT count(*) FROM run_stats s JOIN runs r USING(run_id)
    JOIN cells c USING(cell_id) WHERE c.label = 'fake-ok/alloc-fixed-64K' AND s.key = 'alloc_period' AND s.value = '65536'")" 3
expect "counters: task-clock for every run that ran, none for cycles" "$(q "$DB" "SELECT
    (SELECT count(*) FROM run_counters WHERE event = 'perf::task-clock'),
    (SELECT count(*) FROM runs WHERE wall_ns IS NOT NULL),
    (SELECT count(*) FROM run_counters WHERE event = 'cycles')")" \
"45|45|0"
if [ -e /sys/bus/event_source/devices/cpu ]; then :; else
    expect "cycles recorded as unsupported with its reason" "$(q "$DB" "SELECT supported, reason LIKE 'perf_event_open: %'
        FROM events WHERE event = 'cycles'")" "0|1"
fi
expect "summary names the failures" "$(grep -c '^sweep: 54 runs, 27 failed' "$WORK/err")" 1
expect "summary names the unsupported counter" "$(grep -c '^sweep: counter cycles not recorded' "$WORK/err")" \
    "$([ -e /sys/bus/event_source/devices/cpu ] && echo 0 || echo 1)"
expect "csv: header + one row per run" "$(wc -l < "$WORK/res/latest/runs.csv")" 55
expect "temporary files removed" "$(ls -A "$WORK/tmp" | wc -l)" 0

# A config file, --keep-profiles, poisson and combined cells.
cat > "$WORK/small.conf" <<CONF
# a small plan
workloads = fake-ok
periods = 1M
modes = fixed, poisson
time-hz = none
combined = 1M@100
time-modes = signal
runs = 1
warmup = 1
design = independent
size = 5
keep-profiles = yes
counters = none
CONF
"$SWEEP" --backends native --config "$WORK/small.conf" --bin-dir "$FAKE_BIN" --no-progress --out "$WORK/res3" >/dev/null 2>"$WORK/err3"
expect "config file sweep" "$?" 0
DB3="$WORK/res3/latest/results.db"
expect "config cells" "$(q "$DB3" "SELECT group_concat(label || ':' || kind, ' ') FROM (SELECT * FROM cells ORDER BY cell_id)")" \
    "fake-ok/baseline:baseline fake-ok/alloc-fixed-1M:alloc fake-ok/alloc-poisson-1M:alloc fake-ok/alloc-fixed-1M+time-100Hz:alloc+time"
expect "profiles kept for the sampling cells only" "$(ls "$WORK/res3/latest/profiles" | wc -l)|$(q "$DB3" \
    "SELECT count(*) FROM runs WHERE profile_bytes > 0")|$(q "$DB3" "SELECT count(*) FROM runs r JOIN cells c USING(cell_id)
    WHERE c.kind = 'baseline' AND r.profile_bytes IS NULL")" "6|6|2"
expect "poisson runs get SGC_ALLOC_MODE and their own SGC_SEED" "$(q "$DB3" "SELECT count(*), count(DISTINCT s.value)
    FROM run_stats s JOIN runs r USING(run_id) JOIN cells c USING(cell_id) WHERE c.alloc_mode = 'poisson' AND s.key = 'seed'
    AND s.value = CAST(r.sgc_seed AS TEXT)")|$(q "$DB3" "SELECT count(*) FROM run_stats s JOIN runs r USING(run_id)
    JOIN cells c USING(cell_id) WHERE c.alloc_mode = 'poisson' AND s.key = 'alloc_mode' AND s.value = 'poisson'")" "2|2|2"
expect "no counters asked, none stored" "$(q "$DB3" "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM run_counters)")" "0|0"

# Calibration: sizes refused below a minimum are skipped upwards; sizes
# refused above a maximum bound the search, which ends on the maximum.
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-min,fake-max --periods none --time-hz none \
    --runs 1 --target 0.05 --counters none --design independent --out "$WORK/res4" >/dev/null 2>"$WORK/err4"
expect "calibration sweep" "$?" 0
DB4="$WORK/res4/latest/results.db"
expect "fake-max calibrated to its maximum" "$(q "$DB4" "SELECT status, size FROM calibration WHERE workload = 'fake-max'")" "ok|100"
expect "fake-min: three refused sizes, then calibrated" "$(q "$DB4" "SELECT
    (SELECT group_concat(size) FROM calibration_probes WHERE workload = 'fake-min' AND status = 'failed'),
    (SELECT status FROM calibration WHERE workload = 'fake-min'),
    (SELECT size >= 8 FROM calibration WHERE workload = 'fake-min')")" "1,2,4|ok|1"
expect "calibrated runs ok" "$(q "$DB4" "SELECT status, count(*) FROM runs GROUP BY status")" "ok|4"

# Bad input: a message and exit status 2, nothing created.
bad() {
    "$SWEEP" "$@" >"$WORK/bad.out" 2>"$WORK/bad.err"
    rc=$?
    msg=$(head -n 1 "$WORK/bad.err")
    if [ $rc -eq 2 ] && [ -n "$msg" ]; then echo "ok: exit 2 for $* ($msg)"; else
        fail "exit $rc (want 2) for $*: $msg"; fi
}
bad --runs 0
bad --periods 4Q
bad --frobnicate
bad --modes random
bad --combined 4M
bad --bin-dir "$FAKE_BIN" --workloads no-such-workload --out "$WORK/res2"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --out /proc/version/x
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --cpu 4000 --out "$WORK/res2"
bad --bin-dir "$FAKE_BIN" --list /nonexistent --out "$WORK/res2"
bad --resume "$WORK/nonexistent"
bad --resume "$WORK/res/latest" --runs 3
bad --config /nonexistent.conf
# Accepted before, every run then failing or a different plan than asked:
# refused before anything is created (no results root, no latest).
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --time-hz 200000 --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --combined 4M@100001 --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --depth-hz 1000000 --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --periods 512T --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads "" --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads none --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --periods "" --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --time-hz " , " --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --size nosuch=5 --out "$WORK/res9"
bad --bin-dir "$FAKE_BIN" --workloads fake-ok --tmp /proc --out "$WORK/res9"
expect "--tmp /proc: the message" "$(head -n 1 "$WORK/bad.err")" \
    "sweep: tmp: cannot create a directory in /proc: No such file or directory"
expect "nothing created for refused arguments" "$([ -e "$WORK/res9" ] && echo created || echo nothing)" nothing
printf 'runs = 3\nbogus = 1\n' > "$WORK/bad.conf"
bad --config "$WORK/bad.conf"
expect "bad config names its line" "$(head -n 1 "$WORK/bad.err")" \
    "sweep: $WORK/bad.conf line 2: unknown setting 'bogus' (see sweep --help)"
expect "nothing created by bad input" "$(ls "$WORK/res2" 2>/dev/null | wc -l)" 0
finish
