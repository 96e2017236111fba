#!/bin/sh
# e2e.sh WORKDIR - make validate's pipeline on a small plan (see tests/validate/module.mk).
work=$1
rm -rf "$work" && mkdir -p "$work/locks" || exit 1
# Private CPU locks: the test's sweeps must not wait for (or hold up) a
# real sweep pinned to the same CPU.
FREECHECK_LOCK_DIR="$work/locks"
export FREECHECK_LOCK_DIR
fail=0
expect() { # what got wanted
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: got '$2', want '$3'"; fail=1; fi
}

printf '# a small plan\ngcbench 0 256K,1M 1000,2000\ngcbench 200000 256K,1M 1000,2000 wall\ngcbench 200000 256K,1M 1000,2000 cpu\n' > "$work/plan"
# In-process: thread-mode time samples whose spin the program pays (1000 Hz,
# 20 ms segments, about 10 blocks a run). The spins take rate x D = 5% of the
# wall time: a program that gets less of a CPU than that could never finish.
printf '# small\ninterp 300000 thread 1000 0,50000\n' > "$work/inproc"
VALIDATE_PLAN="$work/plan" VALIDATE_ARGS="--runs 5 --size gcbench=200 --counters none" VALIDATE_RESAMPLES=500 \
    VALIDATE_INPROC="$work/inproc" VALIDATE_INPROC_RUNS=3 sh scripts/validate.sh "$work/out" > "$work/log" 2>&1
expect "validate.sh exit status" "$?" 0
for f in validation.md validation.csv validation.dat aa.csv validation.png validation.svg README.md \
    inproc.csv inproc.dat inproc.png inproc.svg; do
    expect "$f written" "$([ -s "$work/out/$f" ] && echo yes)" yes
done
# The sweep whose settings match: ids are start times, so sweeps started in
# the same second sort by suffix, not by order.
sweep_with() {
    for d in "$work"/out/sweeps/*/; do
        sqlite3 "$d/results.db" "SELECT value FROM meta WHERE key = 'env'" | grep -q "$1" && echo "${d%/}"
    done | head -n 1
}
d0=$(sweep_with 'SGC_SAMPLE_SPIN_NS=0 ')
dwall=$(sweep_with 'SGC_SAMPLE_SPIN_NS=200000 SGC_SAMPLE_SPIN_CLOCK=wall')
expect "three sweeps, each analysed" "$(ls "$work"/out/sweeps/*/summary.md 2>/dev/null | wc -l)" 3
# validation.csv: workload,kind,spin_clock,metric,injected_ns,...,recovered_ns (10th)
row() { awk -F, -v c="$1" -v m="$2" '$2 == "alloc" && $3 == c && $4 == m && $5 == 200000 { print $10 }' "$work/out/validation.csv"; }
cpu=$(row cpu cpu)
wall=$(row wall wall)
echo "recovered: cpu spin on CPU time ${cpu:-none} ns, wall spin on wall time ${wall:-none} ns (injected 200000)"
expect "cpu spin, CPU time: within 25% of 200 us" \
    "$(awk -v r="$cpu" 'BEGIN { print (r != "" && r >= 150000 && r <= 250000) ? "yes" : "no" }')" yes
expect "wall spin, wall time: at least 75% of 200 us" \
    "$(awk -v r="$wall" 'BEGIN { print (r != "" && r >= 150000) ? "yes" : "no" }')" yes
# inproc.csv: workload,time_mode,time_hz,injected_ns,...,recovered_ns (9th)
thr=$(awk -F, '$2 == "thread" && $4 == 50000 { print $9 }' "$work/out/inproc.csv")
echo "recovered in-process: thread mode ${thr:-none} ns of the program's CPU time (injected 50000)"
expect "thread mode, in-process: within 25% of 50 us" \
    "$(awk -v r="$thr" 'BEGIN { print (r != "" && r >= 37500 && r <= 62500) ? "yes" : "no" }')" yes
expect "3 runs of each D in-process" "$(ls "$work"/out/inproc/interp-thread-1000-*/run-*.series | wc -l)" 6
expect "A/A coverage reported" "$(grep -c '^\*\*A/A coverage: [0-9]* of [0-9]* intervals contain 1' "$work/out/validation.md")" 1
expect "sample_spin_ns in the stats of a D = 200 us run" \
    "$(sqlite3 "$dwall/results.db" "SELECT COUNT(*) FROM run_stats WHERE key = 'sample_spin_ns' AND value = '200000'" | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes

# Bad plans: exit 2 before any sweep.
printf 'gcbench 10us 256K 1000\n' > "$work/bad1"
VALIDATE_PLAN="$work/bad1" sh scripts/validate.sh "$work/bad" > "$work/err" 2>&1
expect "SPIN_NS not a number: exit 2" "$?:$(grep -c "SPIN_NS '10us' is not a whole number" "$work/err")" "2:1"
printf 'gcbench 1000 256K 1000 wall\ngcbench 0 256K 1000\n' > "$work/bad2"
VALIDATE_PLAN="$work/bad2" VALIDATE_ARGS="--runs 1 --size gcbench=50 --counters none" sh scripts/validate.sh "$work/bad" > "$work/err" 2>&1
expect "D > 0 before D = 0: exit 2" "$?:$(grep -c "D = 0 sweep must come before" "$work/err")" "2:1"
printf 'gcbench 1000 256K 1000 tsc\n' > "$work/bad3"
VALIDATE_PLAN="$work/bad3" sh scripts/validate.sh "$work/bad" > "$work/err" 2>&1
expect "unknown spin clock: exit 2" "$?:$(grep -c "spin clock 'tsc' is not wall or cpu" "$work/err")" "2:1"
printf 'interp 1000 thread 1000 1000,2000\n' > "$work/bad4"
VALIDATE_PLAN="$work/plan" VALIDATE_INPROC="$work/bad4" sh scripts/validate.sh "$work/bad" > "$work/err" 2>&1
expect "in-process plan without D = 0: exit 2" "$?:$(grep -c "has no 0" "$work/err")" "2:1"
printf 'interp 1000 timer 1000 0,2000\n' > "$work/bad5"
VALIDATE_PLAN="$work/plan" VALIDATE_INPROC="$work/bad5" sh scripts/validate.sh "$work/bad" > "$work/err" 2>&1
expect "in-process plan, unknown time mode: exit 2" "$?:$(grep -c "time mode 'timer' is not signal or thread" "$work/err")" "2:1"
printf 'gcbench 0 256K 1000\n' > "$work/tiny"
printf 'interp 50000000 thread 1000 0\n' > "$work/long"
VALIDATE_PLAN="$work/tiny" VALIDATE_ARGS="--runs 1 --size gcbench=50 --counters none" VALIDATE_INPROC="$work/long" \
    VALIDATE_INPROC_TIMEOUT=1 sh scripts/validate.sh "$work/late" > "$work/err" 2>&1
expect "an in-process run over VALIDATE_INPROC_TIMEOUT: exit 1, said" "$?:$(grep -c 'interp --size 50000000 (thread, 1000 Hz, D = 0 ns) did not finish in 1 s' "$work/err")" "1:1"
VALIDATE_PLAN="$work/plan" VALIDATE_INPROC_TIMEOUT=10s sh scripts/validate.sh "$work/bad" > "$work/err" 2>&1
expect "VALIDATE_INPROC_TIMEOUT not a number: exit 2" "$?:$(grep -c "VALIDATE_INPROC_TIMEOUT '10s' is not a whole number" "$work/err")" "2:1"
"$BIN/validation" --inproc "$work/out/inproc/interp-thread-1000-50000" "$work/bad" "$d0" > "$work/err" 2>&1
expect "validation --inproc without its D = 0 group: exit 2" "$?:$(grep -c 'no in-process directory has D = 0' "$work/err")" "2:1"
"$BIN/validation" "$work/bad" "$dwall" > "$work/err" 2>&1
expect "validation without a D = 0 sweep: exit 2" "$?:$(grep -c 'no sweep ran with SGC_SAMPLE_SPIN_NS=0' "$work/err")" "2:1"
[ $fail -eq 0 ] || { echo "log:"; tail -n 20 "$work/log"; }
exit $fail
