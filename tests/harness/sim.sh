#!/bin/sh
# sim.sh - the simulated backend with real valgrind runs: two runs of one cell
# agree in every count (determinism: the runtime records the virtual clock's
# times, SGC_VIRTUAL_CLOCK, which the harness sets), every count is stored, a
# failing run under valgrind is recorded as failed with its reason, a missing
# valgrind is bad input.  Uses gcbench at --size 1 when it is built, else the
# stand-in.
. tests/harness/lib.sh
: "${ANALYZE:?ANALYZE must name the analyze binary}"

if ! command -v valgrind >/dev/null 2>&1; then
    fail "valgrind is not installed (make deps installs it)"; finish
fi
if [ -x "$BIN/gcbench" ]; then
    set -- --bin-dir "$BIN" --workloads gcbench --sim-size gcbench=1; W=gcbench S=1
else
    set -- --bin-dir "$FAKE_BIN" --workloads fake-ok --sim-size fake-ok=1; W=fake-ok S=1
fi
echo "simulated sweep of $W"
"$SWEEP" --backends sim --periods 64K --time-hz none --seed 7 --no-progress --out "$WORK/res" "$@" \
    >"$WORK/out" 2>"$WORK/err"
rc=$?
cat "$WORK/err"
expect "exit status" "$rc" 0
DB="$WORK/res/latest/results.db"
expect "two simulated cells, no native one" \
    "$(q "$DB" "SELECT group_concat(label || ':' || backend, ' ') FROM (SELECT * FROM cells ORDER BY cell_id)")" \
    "$W/sim/baseline:sim $W/sim/alloc-fixed-64K:sim"
expect "two runs each, all ok" "$(q "$DB" "SELECT cell_id, round, status FROM runs ORDER BY cell_id, round" | tr '\n' ' ')" \
    "1|1|ok 1|2|ok 2|1|ok 2|2|ok "
expect "ten counts per run" "$(q "$DB" "SELECT count(*) FROM run_counters WHERE event LIKE 'sim::%' AND raw > 0")" 40
expect "the events are listed as supported" \
    "$(q "$DB" "SELECT count(*) FROM events WHERE event LIKE 'sim::%' AND supported = 1 AND encoding LIKE 'valgrind --tool=cachegrind%'")" 10
expect "the fixed SGC_SEED" "$(q "$DB" "SELECT DISTINCT sgc_seed FROM runs")" 1592652782
# Determinism: the two runs of each cell agree in all ten counts, to the count.
expect "every run with the virtual clock" \
    "$(q "$DB" "SELECT count(*) FROM run_stats WHERE key = 'virtual_clock_ns' AND value = '1000'")" 4
expect "repeated counts agree exactly" "$(q "$DB" "SELECT count(*) FROM (SELECT r.cell_id, k.event,
    max(k.raw) - min(k.raw) AS spread, count(*) AS n FROM run_counters k JOIN runs r USING(run_id)
    WHERE k.event LIKE 'sim::%' GROUP BY r.cell_id, k.event) WHERE spread = 0 AND n = 2")" 20
expect "est-cycles >= instructions" "$(q "$DB" "SELECT count(*) FROM run_counters a JOIN run_counters b USING(run_id)
    WHERE a.event = 'sim::est-cycles' AND b.event = 'sim::Ir' AND a.raw >= b.raw")" 4
expect "sampling adds instructions" "$(q "$DB" "SELECT (SELECT min(raw) FROM run_counters JOIN runs USING(run_id) WHERE cell_id = 2
    AND event = 'sim::Ir') > (SELECT max(raw) FROM run_counters JOIN runs USING(run_id) WHERE cell_id = 1 AND event = 'sim::Ir')")" 1
expect "calibration keyed sim:" "$(q "$DB" "SELECT workload, size, method, status FROM calibration")" "sim:$W|$S|fixed|ok"
expect "native rate measured" "$(q "$DB" "SELECT workload, size, runs, cpu_ns > 0 FROM sim_native")" "sim:$W|$S|3|1"
expect "valgrind recorded" "$(q "$DB" "SELECT count(*) FROM meta WHERE key IN ('valgrind', 'valgrind_version', 'sim') AND value != ''")" 3
expect "runs.csv carries the counts" \
    "$(head -n 1 "$WORK/res/latest/runs.csv" | tr ',' '\n' | grep -c '^ctr_sim__\(Ir\|est_cycles\|D1mr\)$')" 3
"$ANALYZE" --quiet "$WORK/res/latest" 2>"$WORK/aerr"
expect "analyze" "$?" 0
expect "analyze finds both cells deterministic" \
    "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["label"] ":" $c["deterministic"] }' \
        "$WORK/res/latest/sim.csv" | tr '\n' ' ')" "$W/sim/baseline:1 $W/sim/alloc-fixed-64K:1 "
expect "summary.md says they repeated exactly" "$(grep -c '^Determinism: of the 2 checked cells (those without time sampling), 2 repeated every count exactly\.$' "$WORK/res/latest/summary.md")" 1

# A run that fails under valgrind is a failed run with its reason.
"$SWEEP" --backends sim --bin-dir "$FAKE_BIN" --workloads fake-crash --sim-size fake-crash=1 --periods 64K \
    --time-hz none --no-progress --out "$WORK/crash" >"$WORK/out" 2>"$WORK/err"
expect "crash sweep exit status (complete, with failed runs)" "$?" 3
DB="$WORK/crash/latest/results.db"
expect "the crashing cell's runs failed with the signal" \
    "$(q "$DB" "SELECT c.label, r.status, r.failure FROM runs r JOIN cells c USING(cell_id) ORDER BY r.cell_id, r.round" | tr '\n' ' ')" \
    "fake-crash/sim/baseline|ok| fake-crash/sim/baseline|ok| fake-crash/sim/alloc-fixed-64K|failed|killed by signal 11 (SIGSEGV) fake-crash/sim/alloc-fixed-64K|failed|killed by signal 11 (SIGSEGV) "
# valgrind writes its counts when the program dies of a signal: they are
# stored, like a native run's counters, and analyze uses only ok runs.
expect "a failed run keeps the counts of what it ran" "$(q "$DB" "SELECT count(*) FROM run_counters JOIN runs USING(run_id) WHERE status = 'failed'")" 20
expect "its output tail is kept" "$(q "$DB" "SELECT count(*) FROM runs WHERE status = 'failed' AND output_tail LIKE '%stderr%'")" 2

# No valgrind: bad input, nothing created.
"$SWEEP" --backends sim --valgrind /nonexistent/valgrind --bin-dir "$FAKE_BIN" --workloads fake-ok \
    --out "$WORK/none" >"$WORK/out" 2>"$WORK/err"
expect "missing valgrind exits 2" "$?" 2
expect "its message" "$(cat "$WORK/err")" "sweep: valgrind: '/nonexistent/valgrind' is not an executable program (the simulated backend runs every sim cell under valgrind: install it with make deps, or run --backends native)"
expect "nothing created" "$(ls "$WORK/none" 2>/dev/null | wc -l)" 0
"$SWEEP" --backends nothing --workloads fake-ok --bin-dir "$FAKE_BIN" --out "$WORK/none" >"$WORK/out" 2>"$WORK/err"
expect "a bad backend exits 2" "$?:$(cat "$WORK/err")" "2:sweep: option --backends: backends: 'nothing' is not native or sim"
"$SWEEP" --sim-runs 1 --workloads fake-ok --bin-dir "$FAKE_BIN" --out "$WORK/none" >"$WORK/out" 2>"$WORK/err"
expect "one simulated run is refused" "$?" 2
finish
