#!/bin/sh
# san.sh SANBIN BIN WORKDIR - the statistics programs and sgcprof built with
# SANITIZE=address,undefined (make test-stats-san) on the test fixtures and on edge-case sweeps:
# no measured run (only warm-up runs, or no run at all), one run per cell, every run failed, a
# baseline alone, no cell, blocked, in-process, two nodes, simulated only; compare between them,
# inproc-estimate, validation and peers-report on them, sgcprof's commands on a profile and a
# truncated one.  Every command must exit with the status written next to it and no sanitizer
# report.  BIN has the ordinary gcbench that writes the profiles.
set -u
san=$1 bin=$2 w=$3
rm -rf "$w" && mkdir -p "$w" || exit 1
fails=0 runs=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# Distinct statuses for a sanitizer's report, whatever the program's own.
ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS
# expect STATUS PROGRAM ARGS...: PROGRAM from the sanitizer build exits with STATUS, reports nothing.
expect() {
    want=$1 prog=$2; shift 2
    runs=$((runs + 1))
    "$san/$prog" "$@" > "$w/out" 2> "$w/err"
    rc=$?
    if grep -q "runtime error\|Sanitizer" "$w/err"; then
        fail "$prog $*: a sanitizer report (exit $rc):"; grep -m 5 -A 8 "runtime error\|Sanitizer" "$w/err"
    elif [ $rc -ne "$want" ]; then
        fail "$prog $*: exit $rc, want $want: $(tail -n 3 "$w/err")"
    fi
}
mk() { # DIR: a sweep from contracts/schema.sql and SQL on stdin
    mkdir -p "$1" && { cat contracts/schema.sql; cat; } | sqlite3 "$1/results.db" || { echo "cannot build $1"; exit 1; }
}
two_cells="INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES
 (1,'w','baseline',0,'',0,'',10,'w/base'),(2,'w','alloc',65536,'fixed',0,'',10,'w/alloc'),
 (3,'w','time',0,'',1000,'wall',10,'w/time');"
stats="INSERT INTO run_stats SELECT run_id,'alloc_samples',CASE cell_id WHEN 2 THEN 1000 ELSE 0 END FROM runs;
INSERT INTO run_stats SELECT run_id,'alloc_sample_points',CASE cell_id WHEN 2 THEN 1000 ELSE 0 END FROM runs;
INSERT INTO run_stats SELECT run_id,'sampled_bytes',CASE cell_id WHEN 2 THEN 65536000 ELSE 0 END FROM runs;
INSERT INTO run_stats SELECT run_id,'time_samples',CASE cell_id WHEN 3 THEN 100 ELSE 0 END FROM runs;
INSERT INTO run_stats SELECT run_id,'bytes_allocated',65536000 FROM runs;"
runs_of() { # ROUNDS STATUS: every cell's runs in rounds 1..ROUNDS (0: only a warm-up round)
    echo "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < $1)
INSERT INTO runs(run_id,cell_id,round,seq,status,failure,wall_ns,user_ns,sys_ns,maxrss_kb,node)
SELECT 100 * c + k, c, k, 100 * k + c, '$2', CASE '$2' WHEN 'ok' THEN NULL ELSE 'exit status 139' END,
  CASE '$2' WHEN 'ok' THEN 100000000 + 10000000 * (c - 1) + 1000000 * ((k * 5) % 7) ELSE NULL END,
  90000000 + 1000000 * c, 1000000, 5000, CASE WHEN k % 2 THEN 'node-a' ELSE 'node-b' END
FROM r, (SELECT 1 AS c UNION SELECT 2 UNION SELECT 3);"
}
mk "$w/small" < tests/stats/fixtures/small.sql
mk "$w/sim" < tests/stats/fixtures/sim.sql
{ echo "$two_cells"; runs_of 0 ok; echo "$stats"; } | mk "$w/warmonly"
echo "$two_cells" | mk "$w/noruns"
{ echo "$two_cells"; runs_of 1 ok; echo "$stats"; } | mk "$w/onerun"
{ echo "$two_cells"; runs_of 5 failed; echo "$stats"; } | mk "$w/failed"
{ echo "$two_cells"; runs_of 7 ok; echo "$stats DELETE FROM runs WHERE cell_id > 1; DELETE FROM cells WHERE cell_id > 1;"; } | mk "$w/baseonly"
{ echo "$two_cells"; runs_of 7 ok; echo "$stats"; } | mk "$w/nodes"
echo "SELECT 1;" | mk "$w/nocells"
mkdir -p "$w/blocked" "$w/blocked2" "$w/inproc" "$w/inproc2"
python3 tests/compare/mkblocked.py contracts/schema.sql "$w/blocked/results.db" 1 --rounds 6 &&
    python3 tests/compare/mkblocked.py contracts/schema.sql "$w/blocked2/results.db" 2 --rounds 6 gcbench/alloc-fixed-64K=1500 &&
    python3 tests/compare/mkblocked.py contracts/schema.sql "$w/inproc/results.db" 3 --rounds 3 --inprocess &&
    python3 tests/compare/mkblocked.py contracts/schema.sql "$w/inproc2/results.db" 4 --rounds 3 --inprocess ||
    { echo "cannot build the blocked sweeps"; exit 1; }

A="--quiet --resamples 1000 --fit-resamples 100"
expect 0 analyze $A "$w/small"
expect 0 analyze $A "$w/sim"
expect 1 analyze $A "$w/warmonly"
expect 1 analyze $A "$w/noruns"
expect 0 analyze $A "$w/onerun"
expect 1 analyze $A "$w/failed"
expect 0 analyze $A "$w/baseonly"
expect 0 analyze $A "$w/nodes"
expect 2 analyze $A "$w/nocells"
expect 0 analyze $A "$w/blocked"
expect 0 analyze $A "$w/inproc"
expect 2 analyze $A "$w/missing"
C="--quiet --resamples 1000"
expect 0 compare $C "$w/small" "$w/small"
expect 0 compare $C "$w/sim" "$w/sim"
expect 3 compare $C "$w/onerun" "$w/failed"
expect 3 compare $C "$w/onerun" "$w/warmonly"
expect 3 compare $C "$w/onerun" "$w/noruns"
expect 0 compare $C "$w/failed" "$w/onerun"
expect 0 compare $C "$w/noruns" "$w/warmonly"
expect 0 compare $C --gate overhead "$w/onerun" "$w/onerun"
expect 3 compare $C "$w/nodes" "$w/baseonly"
expect 2 compare $C "$w/small" "$w/nodes"
expect 1 compare $C --gate overhead --out "$w/cmp-blocked" "$w/blocked" "$w/blocked2"
expect 0 compare $C --gate overhead --time cpu "$w/inproc" "$w/inproc2"
expect 2 compare $C "$w/small" "$w/nocells"
expect 0 inproc-estimate --resamples 1000 tests/inproc/fixtures/run1.seg tests/inproc/fixtures/run2.seg
expect 0 inproc-estimate --resamples 1000 tests/inproc/fixtures/iter.seg
printf 'sgc-segments 1\nalternate alloc\ncolumns block pos kind end cpu_ns bytes iterations alloc_samples time_samples\nsegments 0\n' > "$w/empty.series"
expect 1 inproc-estimate --resamples 1000 "$w/empty.series"
printf 'sgc-segments 1\nalternate alloc\ncolumns block pos kind end cpu_ns bytes iterations alloc_samples time_samples\nseg 1 0 A gc 10 10 0 0 0\n' > "$w/cut.series"
expect 2 inproc-estimate "$w/cut.series"
mkdir -p "$w/ip" && cp tests/inproc/fixtures/run1.seg "$w/ip/run-1.series" &&
    printf 'workload gcbench\ntime_mode thread\ntime_hz 1000\nspin_ns 0\nspin_clock cpu\n' > "$w/ip/params"
expect 0 validation --quiet --resamples 200 --inproc "$w/ip" "$w/vout" "$w/small" "$w/onerun"
expect 0 validation --quiet --resamples 200 "$w/vout2" "$w/failed"
printf 'workload gcbench\ntime_mode thread\ntime_hz 1000\nspin_ns 0\nspin_clock cpu\ncolour blue\n' > "$w/ip/params"
expect 2 validation --quiet --resamples 200 --inproc "$w/ip" "$w/vout3" "$w/small"
expect 2 validation --quiet --resamples 200 "$w/vout4" "$w/small" "$w/nocells"
: > "$w/vfile"
expect 2 validation --quiet --resamples 200 "$w/vfile" "$w/small"
expect 2 compare $C --out "$w/vfile" "$w/small" "$w/small"
mkdir -p "$w/cmpfifo" && mkfifo "$w/cmpfifo/compare.json"
expect 2 compare $C --out "$w/cmpfifo" "$w/small" "$w/small"
mv "$w/small/summary.json" "$w/summary.json" && mkfifo "$w/small/summary.json"
expect 2 analyze $A "$w/small"
rm "$w/small/summary.json" && mv "$w/summary.json" "$w/small/summary.json"
expect 2 validation --bogus
expect 2 validation --quiet "$w/vout5" "$w/missing"
expect 2 inproc-estimate --bogus
expect 2 peers-report "$w/missing"
expect 0 peers-report --quiet "$w/small"
expect 1 peers-report --quiet "$w/noruns"
expect 1 peers-report --quiet "$w/baseonly"

# sgcprof: a profile with both samplers, its truth, a truncated copy.
SGC_ALLOC_PERIOD=4096 SGC_TIME_HZ=1000 SGC_PROFILE="$w/p.prof" "$bin/gcbench" --size 5 > /dev/null || fail "gcbench exited $?"
SGC_ALLOC_PERIOD=4096 SGC_ALLOC_MODE=poisson SGC_PROFILE="$w/pp.prof" "$bin/gcbench" --size 5 > /dev/null || fail "gcbench exited $?"
SGC_ALLOC_PERIOD=8 SGC_PROFILE="$w/t.prof" "$bin/gcbench" --size 5 > /dev/null || fail "gcbench exited $?"
head -c 2000 "$w/p.prof" > "$w/cut.prof"
for c in dump report "folded --alloc" "folded --time" speedscope; do
    # shellcheck disable=SC2086
    expect 0 sgcprof $c "$w/p.prof"
    # shellcheck disable=SC2086
    expect 0 sgcprof $c "$w/cut.prof"
    # shellcheck disable=SC2086
    expect 2 sgcprof $c --strict "$w/cut.prof"
done
expect 0 sgcprof pprof "$w/p.prof" -o "$w/p.pb.gz"
expect 2 sgcprof pprof "$w/p.prof" -o "$w/p.prof"
expect 0 sgcprof accuracy --csv "$w/t.prof" "$w/p.prof" "$w/pp.prof"
expect 0 sgcprof accuracy "$w/t.prof"
expect 2 sgcprof accuracy "$w/p.prof"
expect 2 sgcprof dump /dev/zero

echo "$runs commands under address and undefined-behaviour sanitizers, $fails failed"
[ $fails -eq 0 ]
