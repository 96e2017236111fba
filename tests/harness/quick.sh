#!/bin/sh
# quick.sh - the quick sweep end to end (what "make sweep QUICK=1" runs) in
# the default blocked design,
# into a private results root: on the real workloads when they are built
# (workloads/workloads.list and $BIN/<workload>), else on stand-ins.
. tests/harness/lib.sh

set --
if [ -f workloads/workloads.list ]; then
    first2=$(sed 's/#.*//' workloads/workloads.list | awk 'NF {print $1}' | head -n 2)
    missing=0
    for w in $first2; do [ -x "$BIN/$w" ] || missing=1; done
    if [ "$missing" -eq 0 ] && [ -n "$first2" ]; then
        echo "quick sweep on the real workloads: $(echo $first2)"
    else
        echo "workloads not built: quick sweep on stand-ins"
        set -- --bin-dir "$FAKE_BIN" --workloads fake-ok,fake-alt
    fi
else
    echo "no workloads/workloads.list: quick sweep on stand-ins"
    set -- --bin-dir "$FAKE_BIN" --workloads fake-ok,fake-alt
fi
start=$(date +%s)
"$SWEEP" --quick --no-progress --out "$WORK/res" "$@" >"$WORK/out" 2>"$WORK/err"
rc=$?
echo "quick sweep took $(( $(date +%s) - start )) s"
cat "$WORK/err" | grep -v '^sweep: run ' | head -n 30
expect "exit status" "$rc" 0
DB="$WORK/res/latest/results.db"
dir=$(readlink "$WORK/res/latest")
expect "latest is a relative link to the sweep" "$(echo "$dir" | grep -c '^[0-9]\{8\}-[0-9]\{6\}')" 1
expect "prints where the results are" "$(cat "$WORK/out")" \
    "results: $WORK/res/$dir/results.db and $WORK/res/$dir/runs.csv"
expect "plan: 2 workloads x 5 cells, 1 + 5 rounds of 10 blocks of 2 runs; the same 10 cells simulated, 2 runs each" \
    "$(q "$DB" "SELECT (SELECT count(*) FROM cells WHERE backend = 'native'), (SELECT count(*) FROM cells WHERE backend = 'sim'),
    (SELECT count(DISTINCT workload) FROM cells), (SELECT count(*) FROM schedule),
    (SELECT count(DISTINCT block) FROM schedule WHERE block > 0), (SELECT value FROM meta WHERE key = 'design')")" \
    "10|10|2|140|60|blocked"
# The time sampler's mode by the default rule (docs/HARNESS.md): thread
# when the sweep may use two or more CPUs (its affinity, which nproc
# reports too), else signal; recorded with its reason.
cpus=$(nproc)
if [ "$cpus" -ge 2 ]; then mode=thread sfx=-thread why="default: thread, since the sweep may use $cpus CPUs (its CPU affinity, sched_getaffinity): the sampler thread runs on another CPU than the run's"
else mode=signal sfx= why="default: signal, since the sweep may use 1 CPU (its CPU affinity, sched_getaffinity): a sampler thread would share the run's CPU"; fi
expect "the time modes' default and its reason in meta" "$(q "$DB" "SELECT group_concat(value, '|') FROM
    (SELECT value FROM meta WHERE key IN ('time_modes', 'time_modes_reason', 'time_modes_cpus') ORDER BY key)")" \
    "$mode|$cpus|$why"
expect "cells" "$(q "$DB" "SELECT group_concat(substr(label, instr(label, '/') + 1) || ':' || time_mode, ' ') FROM
    (SELECT label, time_mode FROM cells WHERE cell_id <= 5 ORDER BY cell_id)")" \
    "baseline: alloc-fixed-32K: alloc-fixed-1M: alloc-fixed-32M: time-1000Hz$sfx:$mode"
expect "simulated cells" "$(q "$DB" "SELECT group_concat(substr(label, instr(label, '/') + 1), ' ') FROM
    (SELECT label FROM cells WHERE cell_id BETWEEN 11 AND 15 ORDER BY cell_id)")" \
    "sim/baseline sim/alloc-fixed-32K sim/alloc-fixed-1M sim/alloc-fixed-32M sim/time-1000Hz"
expect "every run ok" "$(q "$DB" "SELECT status, count(*) FROM runs GROUP BY status")" "ok|140"
# Blocks: two adjacent runs, one of role 1 (the cell's, or a baseline's in an
# A/A block) and one of role 0 (always its own workload's baseline).
expect "every block: two adjacent runs, roles 0 and 1, same round" "$(q "$DB" "SELECT count(*) FROM runs a JOIN runs b
    ON a.block = b.block AND a.block_pos = 1 AND b.block_pos = 2 AND b.seq = a.seq + 1 AND a.round = b.round
    AND a.block_role + b.block_role = 1")" 60
expect "every role-0 run is the baseline of its partner's workload" "$(q "$DB" "SELECT count(*) FROM runs z
    JOIN runs o ON o.block = z.block AND o.block_role = 1 JOIN cells cz ON cz.cell_id = z.cell_id
    JOIN cells co ON co.cell_id = o.cell_id WHERE z.block_role = 0 AND cz.kind = 'baseline' AND cz.workload = co.workload")" 60
expect "one block per cell per round (A/A blocks for the baselines)" "$(q "$DB" "SELECT count(*), min(n), max(n) FROM
    (SELECT o.cell_id, o.round, count(*) n FROM runs o WHERE o.block_role = 1 GROUP BY o.cell_id, o.round)")" "60|1|1"
expect "A/A blocks: both runs of the baseline" "$(q "$DB" "SELECT count(*) FROM runs a JOIN runs b ON a.block = b.block
    AND a.block > 0 AND a.run_id < b.run_id AND a.cell_id = b.cell_id JOIN cells c ON c.cell_id = a.cell_id WHERE c.kind = 'baseline'")" 12
expect "order balanced: each cell first in 2 or 3 of its 5 measured blocks" "$(q "$DB" "SELECT count(*) FROM
    (SELECT cell_id, sum(block_pos = 1) f FROM runs WHERE block_role = 1 AND round >= 1 GROUP BY cell_id) WHERE f IN (2, 3)")" 10
expect "noise covariates for every run" "$(q "$DB" "SELECT count(*) FROM runs WHERE steal_ns >= 0 AND other_busy_ns >= 0
    AND nivcsw >= 0 AND minflt > 0 AND loadavg1 >= 0")" 120
expect "calibrated sizes recorded, natively and under valgrind" "$(q "$DB" "SELECT count(*) FROM calibration WHERE status = 'ok' AND size > 0
    AND seconds > 0 AND checksum IS NOT NULL"), $(q "$DB" "SELECT count(*) FROM calibration WHERE workload LIKE 'sim:%'")" "4, 2"
expect "each cell's settings in its stats records" "$(q "$DB" "SELECT count(*) FROM runs r JOIN cells c USING(cell_id)
    JOIN run_stats s ON s.run_id = r.run_id AND s.key = 'alloc_period' WHERE s.value = c.alloc_period")" 140
expect "every time run's stats record shows its cell's mode (the simulated ones signal)" "$(q "$DB" "SELECT count(*),
    sum(s.value = c.time_mode), sum(c.backend = 'sim' AND s.value = 'signal') FROM runs r JOIN cells c USING(cell_id)
    JOIN run_stats s ON s.run_id = r.run_id AND s.key = 'time_mode' WHERE c.time_hz > 0")" "16|16|4"
expect "ten counts for every simulated run, none for the others" "$(q "$DB" "SELECT c.backend, count(*) FROM run_counters k
    JOIN runs r USING(run_id) JOIN cells c USING(cell_id) WHERE k.event LIKE 'sim::%' GROUP BY c.backend")" "sim|200"
expect "task-clock counted for every run" "$(q "$DB" "SELECT count(*) FROM run_counters WHERE event = 'perf::task-clock'
    AND raw > 0 AND scaled > 0")" 120
expect "eight counters probed, cpu-migrations among them; ten simulated metrics" "$(q "$DB" "SELECT count(*), sum(event = 'perf::cpu-migrations'), sum(event LIKE 'sim::%') FROM events")" "18|1|10"
expect "metadata" "$(q "$DB" "SELECT count(*) FROM meta WHERE key IN ('host','cpu_model','kernel','governor','aslr',
    'loadavg_start','virtualization','perf_event_paranoid','compiler','cflags','git_revision','git_dirty',
    'libpfm4_version','gsl_version','sqlite_version','seed','plan','config','harness_overhead_median_ns')")" 19
expect "csv: header + 140 runs" "$(wc -l < "$WORK/res/latest/runs.csv")" 141
expect "csv: block and noise columns" "$(head -n 1 "$WORK/res/latest/runs.csv" | tr ',' '\n' | grep -c -x -e block -e block_pos -e block_role -e steal_ns -e other_busy_ns -e nivcsw -e minflt -e loadavg1)" 8
# The statistics of the blocked quick sweep: paired estimates over the 5
# measured blocks of every cell, A/A blocks for every baseline.
if [ -x "$BIN/analyze" ]; then
    "$BIN/analyze" --quiet --resamples 1000 "$WORK/res/latest" >/dev/null 2>"$WORK/aerr"
    expect "analyze exit status" "$?" 0
    S="$WORK/res/latest/summary.csv"
    # summary.csv: a "# analyze ..." line, then the header
    col() { sed -n 2p "$S" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1; }
    expect "every cell paired over 5 blocks with an interval" "$(awk -F, -v p="$(col pairs)" -v c="$(col paired_ci)" \
        'NR > 2 && $p == 5 && ($c == "bca" || $c == "percentile" || $c == "degenerate") { n++ } END { print n + 0 }' "$S")" 10
    expect "summary.md: paired section and the noise section" \
        "$(grep -c -e '^## Paired comparisons (blocked design)' -e '^## Noise' "$WORK/res/latest/summary.md")" 2
fi
finish
