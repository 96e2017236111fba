#!/bin/sh
# quick.sh - the quick sweep end to end (what "make sweep QUICK=1" runs),
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
expect "plan: 2 workloads x 5 cells, 1 + 5 rounds" \
    "$(q "$DB" "SELECT (SELECT count(*) FROM cells), (SELECT count(DISTINCT workload) FROM cells), (SELECT count(*) FROM schedule)")" \
    "10|2|60"
expect "cells" "$(q "$DB" "SELECT group_concat(substr(label, instr(label, '/') + 1), ' ') FROM
    (SELECT label FROM cells WHERE cell_id <= 5 ORDER BY cell_id)")" \
    "baseline alloc-fixed-32K alloc-fixed-1M alloc-fixed-32M time-1000Hz"
expect "every run ok" "$(q "$DB" "SELECT status, count(*) FROM runs GROUP BY status")" "ok|60"
expect "calibrated sizes recorded" "$(q "$DB" "SELECT count(*) FROM calibration WHERE status = 'ok' AND size > 0
    AND seconds > 0 AND checksum IS NOT NULL")" 2
expect "each cell's settings in its stats records" "$(q "$DB" "SELECT count(*) FROM runs r JOIN cells c USING(cell_id)
    JOIN run_stats s ON s.run_id = r.run_id AND s.key = 'alloc_period' WHERE s.value = c.alloc_period")" 60
expect "task-clock counted for every run" "$(q "$DB" "SELECT count(*) FROM run_counters WHERE event = 'perf::task-clock'
    AND raw > 0 AND scaled > 0")" 60
expect "seven counters probed" "$(q "$DB" "SELECT count(*) FROM events")" 7
expect "metadata" "$(q "$DB" "SELECT count(*) FROM meta WHERE key IN ('host','cpu_model','kernel','governor','aslr',
    'loadavg_start','virtualization','perf_event_paranoid','compiler','cflags','git_revision','git_dirty',
    'libpfm4_version','gsl_version','sqlite_version','seed','plan','config','harness_overhead_median_ns')")" 19
expect "csv: header + 60 runs" "$(wc -l < "$WORK/res/latest/runs.csv")" 61
finish
