#!/bin/sh
# refusals.sh - settings that would make every run of a cell fail, and
# inputs of which a part would be silently dropped, refused before anything
# is created (exit 2, the message exact): a --size beyond the workload's own
# range, a sample spin that with a time rate needs all of the program's
# time, a timeout below the calibration target; an item listed twice in any
# list, a setting twice in a config file; a workload list line with more
# than a name, a config file too long or holding a NUL byte, a --sim-size
# of no workload.  256T, the largest period, is accepted as the docs say.
. tests/harness/lib.sh

# refused NAME MESSAGE ARGS...: exit 2 with exactly that message, nothing created.
refused() {
    name=$1 msg=$2
    shift 2
    rm -rf "$WORK/out"
    "$SWEEP" --bin-dir "$FAKE_BIN" --no-progress --out "$WORK/out" "$@" >/dev/null 2>"$WORK/err"
    expect "$name: refused" "$?|$(cat "$WORK/err")" "2|sweep: $msg"
    expect "$name: nothing created" "$(ls -d "$WORK/out" 2>/dev/null | wc -l)" 0
}

# Every run would fail.
if [ -x "$BIN/gcbench" ]; then
    B=$(cd "$BIN" && pwd)
    refused "a size beyond gcbench's range" \
        "size: gcbench=2000000 is outside gcbench's own range of --size, 1..1048576 ($B/gcbench --help); choose a size in it" \
        --bin-dir "$B" --workloads gcbench --size gcbench=2000000
    refused "a simulated size beyond it" \
        "sim-size: gcbench=1048577 is outside gcbench's own range of --size, 1..1048576 ($B/gcbench --help); choose a size in it" \
        --bin-dir "$B" --workloads gcbench --sim-size gcbench=1048577
    "$SWEEP" --plan --bin-dir "$B" --workloads gcbench --size gcbench=1048576 >/dev/null 2>"$WORK/err"
    expect "the range's end is accepted" "$?|$(cat "$WORK/err")" "0|"
else
    fail "gcbench is not built (make builds it)"
fi
refused "a spin with a time rate" \
    "env: SGC_SAMPLE_SPIN_NS=999999999 with the 1000 Hz of cell fake-ok/time-1000Hz: the time samples alone would spin for all of the program's time (rate x spin must be under 1 s per s, the runtime's rule, docs/RUNTIME.md), so every run of it would be refused; lower the spin or the rate" \
    --workloads fake-ok --env SGC_SAMPLE_SPIN_NS=999999999 --time-hz 1000 --time-modes signal
refused "a spin with a combined cell's rate" \
    "env: SGC_SAMPLE_SPIN_NS=10000000 with the 100 Hz of cell fake-ok/alloc-fixed-64K+time-100Hz: the time samples alone would spin for all of the program's time (rate x spin must be under 1 s per s, the runtime's rule, docs/RUNTIME.md), so every run of it would be refused; lower the spin or the rate" \
    --workloads fake-ok --env SGC_SAMPLE_SPIN_NS=10000000 --time-hz none --combined 64K@100 --time-modes signal
refused "the same in --plan" \
    "env: SGC_SAMPLE_SPIN_NS=999999999 with the 1000 Hz of cell fake-ok/time-1000Hz: the time samples alone would spin for all of the program's time (rate x spin must be under 1 s per s, the runtime's rule, docs/RUNTIME.md), so every run of it would be refused; lower the spin or the rate" \
    --plan --workloads fake-ok --env SGC_SAMPLE_SPIN_NS=999999999 --time-hz 1000 --time-modes signal
"$SWEEP" --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --env SGC_SAMPLE_SPIN_NS=999999 --time-hz 1000 >/dev/null 2>"$WORK/err"
expect "a spin below the rule is accepted" "$?|$(cat "$WORK/err")" "0|"
refused "a timeout below the target" \
    "timeout: 0.2 s is at most --target 0.28 s, the CPU time every calibrated run takes: every run of fake-ok would time out; give a longer --timeout (or auto)" \
    --workloads fake-ok --timeout 0.2 --backends native
refused "a timeout below the simulated target" \
    "timeout: 1 s is at most --sim-target 2 s, the CPU time every calibrated simulated run takes: every simulated run of fake-ok would time out; give a longer --timeout (or auto)" \
    --workloads fake-ok --timeout 1 --backends sim

# Twice in a list: refused everywhere, never merged.
refused "a mode twice" "option --modes: modes: 'fixed' is listed twice (name each item once)" --workloads fake-ok --modes fixed,fixed
refused "a period twice" "option --periods: periods: '32K' is listed twice (name each item once)" --workloads fake-ok --periods 32K,32K
refused "a clock twice" "option --time-clock: time-clock: 'wall' is listed twice (name each item once)" --workloads fake-ok --time-clock wall,wall
refused "a backend twice" "option --backends: backends: 'native' is listed twice (name each item once)" --workloads fake-ok --backends native,native
refused "a workload twice" "option --workloads: workloads: 'fake-ok' is listed twice (name each item once)" --workloads fake-ok,fake-ok
refused "a counter twice" "option --counters: counters: 'cycles' is listed twice (name each item once)" --workloads fake-ok --counters cycles,cycles
refused "a setting twice in one --env" \
    "option --env: env: SGC_NURSERY is set twice in one list ('SGC_NURSERY=1M', 'SGC_NURSERY=2M'); give each setting once" \
    --workloads fake-ok --env SGC_NURSERY=1M,SGC_NURSERY=2M
printf 'workloads = fake-ok\nruns = 3\n# later\nruns = 4\n' >"$WORK/twice.conf"
refused "a setting twice in a config file" \
    "$WORK/twice.conf line 4: 'runs' is set again (first on line 2); a config file sets each setting once" \
    --config "$WORK/twice.conf"
printf 'workloads = fake-ok\nsize = fake-ok=2\nsize = fake-ok=3\nenv = SGC_NURSERY=1M\nenv = SGC_VERIFY=1\n' >"$WORK/acc.conf"
"$SWEEP" --plan --bin-dir "$FAKE_BIN" --config "$WORK/acc.conf" >"$WORK/plan" 2>"$WORK/err"
expect "size and env accumulate in a config file" "$?|$(grep '^env ' "$WORK/plan")" "0|env SGC_NURSERY=1M SGC_VERIFY=1"

# The largest period, as the docs and the message say.
"$SWEEP" --plan --bin-dir "$FAKE_BIN" --workloads fake-ok --periods 256T --time-hz none --backends native >"$WORK/plan" 2>"$WORK/err"
expect "256T is a period" "$?|$(grep -c '^cell 2 fake-ok/alloc-fixed-256T$' "$WORK/plan")" "0|1"
refused "beyond 256T" "option --periods: periods: '257T' is not a period in bytes from 1 to 256T (e.g. 4M, 65536)" \
    --workloads fake-ok --periods 257T

# Inputs read whole, every line whole.
printf 'fake-ok extra words\n' >"$WORK/extra.list"
refused "a list line with more than a name" \
    "$WORK/extra.list line 1: 'fake-ok extra words' is more than a workload name (one name per line, or a system or command declaration, docs/WORKLOADS.md)" \
    --list "$WORK/extra.list"
{ printf '# '; head -c 3000 /dev/zero | tr '\0' x; printf '\nfake-ok\n'; } >"$WORK/long.list"
"$SWEEP" --plan --bin-dir "$FAKE_BIN" --list "$WORK/long.list" --backends native --time-hz none --periods none \
    >"$WORK/plan" 2>"$WORK/err"
expect "a long comment line is one line" "$?|$(grep '^cell ' "$WORK/plan")|$(cat "$WORK/err")" "0|cell 1 fake-ok/baseline|"
truncate -s 20M "$WORK/big.conf"
refused "a config file too long" \
    "cannot read config file '$WORK/big.conf': longer than a text file the sweep reads (16 MiB)" --config "$WORK/big.conf"
printf 'workloads = fake-ok\nruns = 3\0junk\n' >"$WORK/nul.conf"
refused "a config file with a NUL byte" \
    "cannot read config file '$WORK/nul.conf': it holds a NUL byte: not a text file" --config "$WORK/nul.conf"
refused "a --sim-size of no workload" \
    "sim-size: fake-alt=3 names no workload of the plan (the plan's workloads: see --plan)" \
    --workloads fake-ok --sim-size fake-alt=3
finish
