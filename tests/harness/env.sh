#!/bin/sh
# env.sh - --env: refused names and malformed items exit 2 with a message;
# the settings reach every run (the stats record's nursery_size), are stored
# in meta and meta.config and shown by --plan; a value the runtime refuses
# exits 2 with the runtime's message before anything is created; a stats
# record whose nursery_size differs from the setting fails the run, and so
# does one whose hugepages_in_effect is 0 with SGC_HUGEPAGES=1, a time
# cell's whose time_mode is not the --env SGC_TIME_MODE, and one whose
# major_growth, stress_every, verify or poison is not the --env value (a
# factor compared in thousandths: 2 is 2.000); gcbench's own records
# confirm all four.
. tests/harness/lib.sh
: "${BIN:?BIN must name the build's bin directory}"

for item in SGC_SEED=3 SGC_ALLOC_PERIOD=4K SGC_STATS=/tmp/x; do
    "$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env "$item" >/dev/null 2>"$WORK/err"
    expect "--env $item: exit 2" "$?" 2
    expect "--env $item: the sweep sets it" \
        "$(grep -c "env: ${item%%=*} is set by the sweep for each cell and run, not by --env" "$WORK/err")" 1
done
"$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env SGC_BOGUS=1 >/dev/null 2>"$WORK/err"
expect "--env SGC_BOGUS=1: exit 2" "$?" 2
expect "--env SGC_BOGUS=1: message" "$(grep -c 'env: SGC_BOGUS is not a runtime setting --env may pass (allowed: SGC_NURSERY' "$WORK/err")" 1
"$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env PATH=/bin >/dev/null 2>"$WORK/err"
expect "--env PATH=/bin: exit 2" "$?" 2
expect "--env PATH=/bin: message" "$(grep -c 'env: PATH is not a runtime setting (SGC_\*)' "$WORK/err")" 1
"$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env SGC_NURSERY >/dev/null 2>"$WORK/err"
expect "--env without '=': exit 2" "$?" 2
expect "--env without '=': message" "$(grep -c "env: expected NAME=VALUE (e.g. SGC_NURSERY=256K), got 'SGC_NURSERY'" "$WORK/err")" 1
printf 'env = SGC_VERIFY=1 SGC_TIME_HZ=5\n' >"$WORK/bad.conf"
"$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --config "$WORK/bad.conf" >/dev/null 2>"$WORK/err"
expect "config env = ...SGC_TIME_HZ: exit 2 naming the line" "$?:$(grep -c 'bad.conf line 1: env: SGC_TIME_HZ' "$WORK/err")" "2:1"

"$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env SGC_NURSERY=1M --env SGC_VERIFY=1,SGC_NURSERY=256K \
    >"$WORK/plan" 2>&1
expect "plan shows the settings" "$(grep '^env ' "$WORK/plan")" "env SGC_NURSERY=256K SGC_VERIFY=1"

"$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env SGC_SAMPLE_SPIN_NS=10000 >"$WORK/plan" 2>"$WORK/err"
expect "--env SGC_SAMPLE_SPIN_NS (validation) accepted" "$?:$(grep '^env ' "$WORK/plan")" "0:env SGC_SAMPLE_SPIN_NS=10000"
# Stand-ins: the nursery_size check (fake-ok writes SGC_NURSERY unrounded).
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --periods none --time-hz 1000 --runs 1 --size 2 \
    --counters none --env SGC_NURSERY=4100 --out "$WORK/fres" --no-progress >/dev/null 2>"$WORK/err"
expect "stand-in sweep: exit 3 (its runs failed)" "$?" 3
expect "a nursery_size other than the setting fails the run" \
    "$(q "$WORK/fres/latest/results.db" "SELECT DISTINCT status, failure FROM runs")" \
    "failed|the stats record says nursery_size 4100 but --env SGC_NURSERY set 4096"
# fake-ok has no heap: it says hugepages_in_effect 0, as the runtime does
# on a machine without THP.
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --periods none --time-hz 1000 --runs 1 --size 2 \
    --counters none --env SGC_HUGEPAGES=1 --out "$WORK/hres" --no-progress >/dev/null 2>"$WORK/err"
expect "stand-in sweep without huge pages: exit 3 (its runs failed)" "$?" 3
expect "hugepages_in_effect 0 with SGC_HUGEPAGES=1 fails the run" \
    "$(q "$WORK/hres/latest/results.db" "SELECT DISTINCT status, failure FROM runs")" \
    'failed|the stats record says hugepages_in_effect 0 but --env SGC_HUGEPAGES=1 asked for huge pages (docs/RUNTIME.md, "Huge pages")'
# fake-ok ignores the debug settings: its record says major_growth 2.000,
# stress_every 0, verify 0 and poison 0, whatever --env set.
for item in "SGC_MAJOR_GROWTH=1.5|major_growth 2.000" "SGC_GC_STRESS=7|stress_every 0" "SGC_VERIFY=1|verify 0" \
    "SGC_POISON=1|poison 0"; do
    set="${item%%|*}" says="${item#*|}"
    rm -rf "$WORK/dres"
    "$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --periods none --time-hz none --runs 1 --size 2 \
        --counters none --env "$set" --out "$WORK/dres" --no-progress >/dev/null 2>"$WORK/err"
    expect "--env $set on a stand-in that ignores it: exit 3 (its runs failed)" "$?" 3
    expect "--env $set: a record that says ${says% *} ${says#* } fails the run" \
        "$(q "$WORK/dres/latest/results.db" "SELECT DISTINCT status, failure FROM runs")" \
        "failed|the stats record says $says but --env ${set%%=*} set ${set#*=}"
done
rm -rf "$WORK/dres"
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --periods none --time-hz none --runs 1 --size 2 \
    --counters none --env SGC_MAJOR_GROWTH=2 --out "$WORK/dres" --no-progress >/dev/null 2>"$WORK/err"
expect "--env SGC_MAJOR_GROWTH=2 against the record's 2.000: exit 0" "$?" 0
expect "--env SGC_MAJOR_GROWTH=2: every run ok" \
    "$(q "$WORK/dres/latest/results.db" "SELECT DISTINCT status FROM runs")" "ok"
# fake-ok with FAKE_TIME_MODE=signal writes time_mode signal (it ignores
# SGC_TIME_MODE): a time cell whose record does not show the --env
# SGC_TIME_MODE fails; its baseline (no time sampling) does not.
FAKE_TIME_MODE=signal "$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-ok --periods none --time-hz 1000 \
    --runs 1 --size 2 --counters none --env SGC_TIME_MODE=thread --out "$WORK/tres" --no-progress >/dev/null 2>"$WORK/err"
expect "stand-in sweep that ignores SGC_TIME_MODE: exit 3 (its time runs failed)" "$?" 3
expect "a time cell whose record does not show SGC_TIME_MODE's mode fails; the baseline does not" \
    "$(q "$WORK/tres/latest/results.db" "SELECT c.label, r.status, coalesce(r.failure, ''), count(*) FROM runs r
        JOIN cells c USING(cell_id) GROUP BY 1, 2, 3 ORDER BY 1")" \
    "fake-ok/baseline|ok||6
fake-ok/time-1000Hz|failed|the stats record says time_mode signal but --env SGC_TIME_MODE set thread|2"
"$SWEEP" --backends native --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env SGC_TIME_MODE=thread \
    --time-clock wall,cpu >/dev/null 2>"$WORK/err"
expect "--env SGC_TIME_MODE=thread with cpu-clock cells: exit 2, said" "$?:$(grep -c \
    'env SGC_TIME_MODE=thread: the sampler thread samples the wall clock only; drop cpu from --time-clock' "$WORK/err")" "2:1"

if [ ! -x "$BIN/gcbench" ]; then
    echo "gcbench not built: the real sweep checks are skipped"
    finish
fi
"$SWEEP" --backends native --bin-dir "$BIN" --workloads gcbench --periods none --time-hz none --depths none --runs 1 --target 0.05 \
    --counters none --env SGC_NURSERY=abc --out "$WORK/bad" --no-progress >/dev/null 2>"$WORK/err"
expect "SGC_NURSERY=abc: exit 2" "$?" 2
expect "SGC_NURSERY=abc: the runtime's message" \
    "$(grep -c 'the runtime refused the --env settings.*freecheck: SGC_NURSERY=abc: expected a byte count' "$WORK/err")" 1
expect "SGC_NURSERY=abc: nothing created" "$(ls "$WORK/bad" 2>/dev/null | wc -l)" 0

"$SWEEP" --backends native --bin-dir "$BIN" --workloads gcbench --periods none --time-hz 1000 --depths none --runs 1 --target 0.05 --design independent \
    --counters none --env SGC_NURSERY=256K --out "$WORK/res" --no-progress >/dev/null 2>"$WORK/err"
expect "gcbench sweep with SGC_NURSERY=256K: exit 0" "$?" 0
DB="$WORK/res/latest/results.db"
expect "meta.env" "$(q "$DB" "SELECT value FROM meta WHERE key = 'env'")" "SGC_NURSERY=256K"
expect "meta.config holds it" "$(q "$DB" "SELECT value FROM meta WHERE key = 'config'" | grep '^env ')" \
    "env = SGC_NURSERY=256K"
expect "every run ok with nursery_size 262144" "$(q "$DB" "SELECT r.status, s.value, count(*) FROM runs r
    JOIN run_stats s USING(run_id) WHERE s.key = 'nursery_size' GROUP BY 1, 2")" "ok|262144|4"

"$SWEEP" --backends native --bin-dir "$BIN" --workloads gcbench --periods none --time-hz none --depths none --runs 1 --target 0.05 \
    --counters none --env SGC_MAJOR_GROWTH=1.5,SGC_GC_STRESS=97,SGC_VERIFY=1,SGC_POISON=1 --out "$WORK/dbg" --no-progress \
    >/dev/null 2>"$WORK/err"
expect "gcbench sweep with the four debug settings: exit 0" "$?" 0
expect "every run ok, its record confirming all four" "$(q "$WORK/dbg/latest/results.db" "SELECT DISTINCT r.status, s.key,
    s.value FROM runs r JOIN run_stats s USING(run_id) WHERE s.key IN ('major_growth', 'stress_every', 'verify', 'poison')
    ORDER BY 2")" "ok|major_growth|1.500
ok|poison|1
ok|stress_every|97
ok|verify|1"

"$SWEEP" --backends native --bin-dir "$BIN" --workloads gcbench --periods none --time-hz 1000 --depths none --runs 1 --target 0.05 \
    --counters none --env SGC_TIME_MODE=thread --out "$WORK/thr" --no-progress >/dev/null 2>"$WORK/err"
expect "gcbench sweep with SGC_TIME_MODE=thread: exit 0" "$?" 0
expect "its time cell's runs sampled in thread mode" "$(q "$WORK/thr/latest/results.db" "SELECT r.status, s.value, count(*)
    FROM runs r JOIN cells c USING(cell_id) JOIN run_stats s USING(run_id) WHERE s.key = 'time_mode' AND c.kind = 'time'
    GROUP BY 1, 2")" "ok|thread|2"
"$SWEEP" --backends native --bin-dir "$BIN" --workloads gcbench --periods none --time-hz 1000 --depths none --runs 1 --target 0.05 \
    --counters none --env SGC_TIME_MODE=thred --out "$WORK/bad" --no-progress >/dev/null 2>"$WORK/err"
expect "SGC_TIME_MODE=thred: the runtime's message, exit 2" "$?:$(grep -c \
    'the runtime refused the --env settings.*freecheck: SGC_TIME_MODE=thred: expected signal or thread' "$WORK/err")" "2:1"
"$SWEEP" --backends native --bin-dir "$BIN" --workloads gcbench --periods none --time-hz none --depths none --runs 1 --target 0.05 \
    --counters none --env SGC_HUGEPAGES=yes --out "$WORK/bad" --no-progress >/dev/null 2>"$WORK/err"
expect "SGC_HUGEPAGES=yes: the runtime's message, exit 2" "$?:$(grep -c \
    'the runtime refused the --env settings.*freecheck: SGC_HUGEPAGES=yes: expected 0 (off) or 1 (on)' "$WORK/err")" "2:1"
# The real runtime: huge pages where the machine has THP, else the fallback
# (docs/RUNTIME.md) and failed runs.
"$SWEEP" --backends native --bin-dir "$BIN" --workloads gcbench --periods none --time-hz none --depths none --runs 1 --target 0.05 \
    --counters none --env SGC_HUGEPAGES=1 --out "$WORK/huge" --no-progress >/dev/null 2>"$WORK/err"
rc=$?
if grep -Eq '\[(always|madvise)\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
    expect "gcbench sweep with SGC_HUGEPAGES=1 (THP here): exit 0" "$rc" 0
    expect "every run ok with hugepages_in_effect 1" "$(q "$WORK/huge/latest/results.db" "SELECT r.status, s.value,
        count(*) FROM runs r JOIN run_stats s USING(run_id) WHERE s.key = 'hugepages_in_effect' GROUP BY 1, 2")" "ok|1|4"
else
    expect "gcbench sweep with SGC_HUGEPAGES=1 (no THP here): exit 3" "$rc" 3
fi
finish
