#!/bin/sh
# compare.sh - build/bin/compare end to end on synthetic sweeps built with the sqlite3 shell from
# the results database schema ($SCHEMA, contracts/schema.sql): an injected 10% slowdown in exactly one cell is found (its
# size inside its interval), an A/A pair gives none, an injected speed-up is "faster" and exit 0,
# cells only in A or only in B are listed, exit statuses 0/1/2, different machines said loudly,
# the JSON parsed and checked against the CSV, outputs identical on a second run; --gate overhead
# on a sweep whose every run is 10% slower with one cell's sampling 5% of the baseline dearer
# (the ratio gate flags every cell, the overhead gate exactly that one, and so does the ratio gate
# on CPU times, --time cpu, which the busier machine does not move); the simulated cells
# compared exactly (one cell with a known injected difference, shifts within the repeat spread
# "same", sweeps with only simulated cells, the default --sim-threshold 0.01%); the paired overhead
# gate on blocked sweeps (tests/compare/mkblocked.py: an injected overhead change found in exactly
# one cell with its size in the interval, none in an A/A pair, slow episodes shared by a block's two
# runs resolved paired and not unpaired, the fallback to unpaired medians said in a column); in-process
# sweeps paired by their ABBA blocks.
# Usage: SCHEMA=contracts/schema.sql COMPARE=build/bin/compare sh tests/compare/compare.sh WORKDIR
set -u
W=${1:?work directory}
: "${SCHEMA:?}" "${COMPARE:?}"
rm -rf "$W" && mkdir -p "$W"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# mk DIR K HOST REV [CELL FACTOR]...: a sweep of 2 workloads x {baseline, alloc 64K, alloc 1M,
# time 1000 Hz}, 12 measured rounds and a warm-up round 0 (10x slower: never used).  Wall time of
# round r: base * factor / 1000 + 200000 * ((r * K) % 12) ns, so within a cell the offsets are a
# permutation of 0..11 for any K coprime to 12 and the median is the same for every such K.
# CELL FACTOR pairs override a cell's factor (per mille); CELL=-label drops a cell; CELL=+label
# adds microbench/alloc-fixed-256K.  SCALE (per mille, default 1000) multiplies every wall time
# (a machine uniformly slower or faster).  CPU time of round r: user base * factor / 1000 +
# 150000 * ((r * K + 5) % 12) ns (another permutation; SCALE leaves it alone), sys 1 ms.
mk() {
    d=$1 k=$2 host=$3 rev=$4; shift 4
    mkdir -p "$d"
    {
        cat "$SCHEMA"
        echo "INSERT INTO meta(key, value) VALUES ('host', '$host'), ('cpu_model', 'fixture cpu'), ('git_revision', '$rev'), ('status', 'complete');"
        echo "CREATE TEMP TABLE f(cell_id INTEGER, workload TEXT, kind TEXT, period INTEGER, mode TEXT, hz INTEGER, clock TEXT, size INTEGER, label TEXT, base INTEGER, factor INTEGER);"
        echo "INSERT INTO f VALUES
 (1, 'gcbench', 'baseline', 0, '', 0, '', 100, 'gcbench/baseline', 200000000, 1000),
 (2, 'gcbench', 'alloc', 65536, 'fixed', 0, '', 100, 'gcbench/alloc-fixed-64K', 200000000, 1300),
 (3, 'gcbench', 'alloc', 1048576, 'fixed', 0, '', 100, 'gcbench/alloc-fixed-1M', 200000000, 1020),
 (4, 'gcbench', 'time', 0, '', 1000, 'wall', 100, 'gcbench/time-wall-1000', 200000000, 1010),
 (5, 'microbench', 'baseline', 0, '', 0, '', 50, 'microbench/baseline', 100000000, 1000),
 (6, 'microbench', 'alloc', 65536, 'fixed', 0, '', 50, 'microbench/alloc-fixed-64K', 100000000, 1500),
 (7, 'microbench', 'alloc', 1048576, 'fixed', 0, '', 50, 'microbench/alloc-fixed-1M', 100000000, 1030),
 (8, 'microbench', 'time', 0, '', 1000, 'wall', 50, 'microbench/time-wall-1000', 100000000, 1005);"
        while [ $# -ge 2 ]; do
            case $1 in
            -*) echo "DELETE FROM f WHERE label = '${1#-}';" ;;
            +*) echo "INSERT INTO f VALUES (9, 'microbench', 'alloc', 262144, 'fixed', 0, '', 50, '${1#+}', 100000000, 1100);" ;;
            *) echo "UPDATE f SET factor = $2 WHERE label = '$1';" ;;
            esac
            shift 2
        done
        echo "INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label)
  SELECT cell_id, workload, kind, period, mode, hz, clock, size, label FROM f;"
        echo "WITH RECURSIVE r(round) AS (SELECT 0 UNION ALL SELECT round + 1 FROM r WHERE round < 12)
INSERT INTO runs(run_id, cell_id, round, seq, status, wall_ns, user_ns, sys_ns, maxrss_kb)
SELECT f.cell_id * 100 + r.round, f.cell_id, r.round, r.round * 10 + f.cell_id, 'ok',
       (f.base * f.factor / 1000 + 200000 * ((r.round * $k) % 12)) * ${SCALE:-1000} / 1000 * CASE WHEN r.round = 0 THEN 10 ELSE 1 END,
       f.base * f.factor / 1000 + 150000 * ((r.round * $k + 5) % 12), 1000000, 5000
FROM f, r;"
    } | sqlite3 "$d/results.db" || { echo "cannot build $d"; exit 1; }
}

# mksim DIR [LABEL DIR DCYC]...: adds simulated cells (backend 'sim') of gcbench at --size 10 to
# DIR/results.db (creating it with only them if missing), two runs each: the baseline (1e9
# instructions, 2e9 estimated cycles), alloc-fixed-64K (+905000 / +1510000, repeats identical),
# alloc-fixed-1M (+95000 / +160000, its cycles repeat 10 apart) and time-1000Hz (+200000 and
# +202000 instructions, +400000 and +404000 cycles: the spread of a time cell).  LABEL DIR DCYC
# add DIR instructions and DCYC cycles to both runs of a cell.
mksim() {
    d=$1; shift
    mkdir -p "$d"
    {
        [ -f "$d/results.db" ] || { cat "$SCHEMA"; echo "INSERT INTO meta(key, value) VALUES ('host', 'fixture-host'), ('cpu_model', 'fixture cpu'), ('status', 'complete');"; }
        echo "CREATE TEMP TABLE s(cell_id INTEGER, kind TEXT, period INTEGER, mode TEXT, hz INTEGER, clock TEXT, label TEXT,
  ir1 INTEGER, ir2 INTEGER, cyc1 INTEGER, cyc2 INTEGER, asamples INTEGER, tsamples INTEGER);"
        echo "INSERT INTO s VALUES
 (101, 'baseline', 0, '', 0, '', 'gcbench/sim/baseline', 1000000000, 1000000000, 2000000000, 2000000000, 0, 0),
 (102, 'alloc', 65536, 'fixed', 0, '', 'gcbench/sim/alloc-fixed-64K', 1000905000, 1000905000, 2001510000, 2001510000, 1000, 0),
 (103, 'alloc', 1048576, 'fixed', 0, '', 'gcbench/sim/alloc-fixed-1M', 1000095000, 1000095000, 2000160000, 2000160010, 100, 0),
 (104, 'time', 0, '', 1000, 'wall', 'gcbench/sim/time-1000Hz', 1000200000, 1000202000, 2000400000, 2000404000, 0, 200);"
        while [ $# -ge 3 ]; do
            echo "UPDATE s SET ir1 = ir1 + $2, ir2 = ir2 + $2, cyc1 = cyc1 + $3, cyc2 = cyc2 + $3 WHERE label = '$1';"
            shift 3
        done
        echo "INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, backend)
  SELECT cell_id, 'gcbench', kind, period, mode, hz, clock, 10, label, 'sim' FROM s;
CREATE TEMP TABLE v AS SELECT s.cell_id * 100 + r.round AS run_id, s.cell_id, r.round,
  CASE r.round WHEN 1 THEN ir1 ELSE ir2 END AS ir, CASE r.round WHEN 1 THEN cyc1 ELSE cyc2 END AS cyc, asamples, tsamples
  FROM s, (SELECT 1 AS round UNION ALL SELECT 2) r;
INSERT INTO runs(run_id, cell_id, round, seq, status, wall_ns, user_ns, sys_ns, maxrss_kb)
  SELECT run_id, cell_id, round, run_id, 'ok', 9000000000, 8000000000, 1000000, 10000 FROM v;
INSERT INTO run_stats SELECT run_id, 'alloc_samples', asamples FROM v;
INSERT INTO run_stats SELECT run_id, 'time_samples', tsamples FROM v;
INSERT OR IGNORE INTO events(event, supported, reason) VALUES ('sim::Ir', 1, NULL), ('sim::I1mr', 1, NULL),
  ('sim::ILmr', 1, NULL), ('sim::Dr', 1, NULL), ('sim::D1mr', 1, NULL), ('sim::DLmr', 1, NULL), ('sim::Dw', 1, NULL),
  ('sim::D1mw', 1, NULL), ('sim::DLmw', 1, NULL), ('sim::est-cycles', 1, NULL);
INSERT INTO run_counters SELECT run_id, 'sim::Ir', ir, 1, 1, ir FROM v;
INSERT INTO run_counters SELECT run_id, 'sim::est-cycles', cyc, 1, 1, cyc FROM v;
INSERT INTO run_counters SELECT run_id, e.event, 7, 1, 1, 7 FROM v,
  (SELECT event FROM events WHERE event LIKE 'sim::%' AND event NOT IN ('sim::Ir', 'sim::est-cycles')) e;"
    } | sqlite3 "$d/results.db" || { echo "cannot add simulated cells to $d"; exit 1; }
}

# run NAME A B [ARGS]: compare --out $W/NAME, exit status in $W/NAME.rc, stderr in $W/NAME.err
run() {
    n=$1 a=$2 b=$3; shift 3
    "$COMPARE" --out "$W/$n" "$@" "$a" "$b" 2>"$W/$n.err"
    echo $? > "$W/$n.rc"
}
rc() { cat "$W/$1.rc"; }

# The checks on one output directory, in Python: JSON parsed and every CSV field equal to it,
# the verdict counts, and per-test expectations given as arguments.
# check NAME SLOWER FASTER SAME [COMPARED]: COMPARED defaults to every matched cell.
check() {
    python3 - "$W/$1" "$2" "$3" "$4" "${5:-}" <<'PY'
import csv, json, sys, math
d, want_slower, want_faster, want_same = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
j = json.load(open(d + "/compare.json"))
rows = list(csv.DictReader(open(d + "/compare.csv")))
bad = []
simrows = list(csv.DictReader(open(d + "/compare_sim.csv")))
for rows_, cells_ in ((rows, j["cells"]), (simrows, j["sim"]["cells"])):
    if len(rows_) != len(cells_):
        bad.append("csv has %d rows, json %d cells" % (len(rows_), len(cells_)))
    for r, c in zip(rows_, cells_):
        if set(r) != set(c): bad.append("%s: csv columns %r, json names %r" % (r["label"], sorted(r), sorted(c)))
        for k, v in r.items():
            jv = c.get(k)
            if v == "":
                if jv not in (None, ""): bad.append("%s %s: csv empty, json %r" % (r["label"], k, jv))
            elif isinstance(jv, str):
                if jv != v: bad.append("%s %s: csv %r, json %r" % (r["label"], k, v, jv))
            elif float(v) != float(jv):
                bad.append("%s %s: csv %s, json %r" % (r["label"], k, v, jv))
def names(verdict): return ",".join(sorted(c["label"] for c in j["cells"] if c["verdict"] == verdict))
if names("slower") != want_slower: bad.append("slower: %r, expected %r" % (names("slower"), want_slower))
if names("faster") != want_faster: bad.append("faster: %r, expected %r" % (names("faster"), want_faster))
same = sum(c["verdict"] == "same" for c in j["cells"])
if same != want_same: bad.append("same: %d cells, expected %d" % (same, want_same))
n = j["counts"]
if n["slower"] != len([x for x in want_slower.split(",") if x]) or n["cells"] != len(rows):
    bad.append("counts %r" % n)
want_compared = int(sys.argv[5]) if sys.argv[5] else len(rows)
if n["compared"] != want_compared: bad.append("compared %d, expected %d" % (n["compared"], want_compared))
q = "ratio" if j["gate"] == "ratio" else "overhead_change"
for c in j["cells"]:
    if c["verdict"] in ("slower", "faster"):
        if not (c["mw_p_adjusted"] <= 0.05): bad.append("%s: adjusted p %r" % (c["label"], c["mw_p_adjusted"]))
        if not (c[q + "_lo"] <= c[q] <= c[q + "_hi"]): bad.append("%s: %s outside its interval" % (c["label"], q))
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
}

# The exact change injected into a cell, from the databases themselves (medians of used runs).
truth() {
    python3 - "$1" "$2" "$3" <<'PY'
import sqlite3, statistics, sys
def med(db, label, base=False):
    con = sqlite3.connect(db)
    q = "SELECT wall_ns FROM runs JOIN cells USING(cell_id) WHERE round > 0 AND status = 'ok' AND label = ?"
    return statistics.median(v for (v,) in con.execute(q, (label,)))
a, b, label = sys.argv[1:4]
wl = label.split("/")[0] + "/baseline"
ratio = med(b, label) / med(a, label)
dov = med(b, label) / med(b, wl) - med(a, label) / med(a, wl)
print(ratio, dov)
PY
}

mk "$W/A" 5 fixture-host rev-a
mksim "$W/A"
mk "$W/A2" 7 fixture-host rev-a
mksim "$W/A2"
mk "$W/SLOW" 7 fixture-host rev-b gcbench/alloc-fixed-64K 1430
mk "$W/FAST" 7 fixture-host rev-b microbench/time-wall-1000 905
mk "$W/MIS" 7 fixture-host rev-a -microbench/alloc-fixed-1M x +microbench/alloc-fixed-256K x
mk "$W/OTHER" 7 other-host rev-a

# 1. One injected slowdown (gcbench/alloc-fixed-64K 10% slower): exactly that cell, exit 1.
run slow "$W/A" "$W/SLOW"
[ "$(rc slow)" = 1 ] && ok "injected slowdown: exit 1" || fail "injected slowdown: exit $(rc slow), expected 1"
check slow gcbench/alloc-fixed-64K "" 7 && ok "injected slowdown: exactly that cell slower, the rest same, JSON = CSV" \
    || fail "injected slowdown: verdicts or JSON/CSV"
set -- $(truth "$W/A/results.db" "$W/SLOW/results.db" gcbench/alloc-fixed-64K)
python3 - "$W/slow/compare.json" "$1" "$2" <<'PY' && ok "injected slowdown: size $1 and overhead change $2 inside their intervals" || fail "injected slowdown: size outside its interval"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cells"] if c["label"] == "gcbench/alloc-fixed-64K"][0]
r, d = float(sys.argv[2]), float(sys.argv[3])
ok = abs(c["ratio"] - r) < 1e-9 and c["ratio_lo"] <= r <= c["ratio_hi"] and c["ratio_lo"] > 1.02
ok = ok and abs(c["overhead_change"] - d) < 1e-9 and c["overhead_change_lo"] <= d <= c["overhead_change_hi"]
ok = ok and c["ratio_method"] == "bca" and c["overhead_change_method"] == "bca"
print(c); sys.exit(0 if ok else 1)
PY
grep -q "REGRESSION gcbench/alloc-fixed-64K" "$W/slow.err" && ok "regression named on stderr" || fail "no REGRESSION line on stderr"
grep -q "git_revision" "$W/slow/compare.md" && grep -q "rev-a" "$W/slow/compare.md" && ok "differing revision listed" \
    || fail "the differing revision is not listed in compare.md"

# 2. A/A: same cells, same distributions in another order: no change anywhere, exit 0.
run aa "$W/A" "$W/A2"
[ "$(rc aa)" = 0 ] && ok "A/A: exit 0" || fail "A/A: exit $(rc aa), expected 0"
check aa "" "" 8 && ok "A/A: all 8 cells same" || fail "A/A: verdicts"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["sim"]
ok = s["counts"] == {"cells": 4, "differ": 0, "only_in_a": 0, "only_in_b": 0}
ok = ok and all(c[q + "_verdict"] == "same" and c[q + "_diff"] == 0 for c in s["cells"] for q in ("Ir", "est_cycles"))
sys.exit(0 if ok else 1)
' "$W/aa/compare.json" && ok "A/A: 4 simulated cells, all same" || fail "A/A: simulated cells"
grep -q "None\." "$W/aa/compare.md" && ok "A/A: no metadata differs" || fail "A/A: metadata differences reported"

# 3. A speed-up is not a regression: exit 0, one cell faster.
run fast "$W/A" "$W/FAST"
[ "$(rc fast)" = 0 ] && ok "speed-up: exit 0" || fail "speed-up: exit $(rc fast), expected 0"
check fast "" microbench/time-wall-1000 7 && ok "speed-up: exactly that cell faster" || fail "speed-up: verdicts"

# 4. Mismatched plans: listed, the rest compared; the cell B lacks is missing, which fails the gate (exit 3).
run mis "$W/A" "$W/MIS"
[ "$(rc mis)" = 3 ] && ok "mismatched cells: exit 3 (a cell of A missing from B)" || fail "mismatched cells: exit $(rc mis), expected 3"
grep -qx "compare: MISSING IN B microbench/alloc-fixed-1M: the cell is in A, B has no such cell" "$W/mis.err" \
    && ok "mismatched cells: the missing cell named on stderr" || fail "mismatched cells: stderr $(cat "$W/mis.err")"
check mis "" "" 7 && ok "mismatched cells: 7 compared, all same" || fail "mismatched cells: verdicts"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["only_in_a"] == ["microbench/alloc-fixed-1M"] and j["only_in_b"] == ["microbench/alloc-fixed-256K"] and (j["counts"]["missing"], j["counts"]["failed"]) == (1, 0) else 1)
' "$W/mis/compare.json" && ok "mismatched cells: only_in_a and only_in_b exact" || fail "mismatched cells: lists"
grep -q "only in A: microbench/alloc-fixed-1M (\*\*missing from B\*\*: the gate fails)" "$W/mis/compare.md" && grep -q "only in B: microbench/alloc-fixed-256K" "$W/mis/compare.md" \
    && ok "mismatched cells: listed in compare.md" || fail "mismatched cells: not in compare.md"

# 5. Different machines: said loudly (stderr, report, JSON), host listed first.
run other "$W/A" "$W/OTHER"
grep -q "DIFFERENT MACHINES" "$W/other.err" && grep -q "DIFFERENT MACHINES" "$W/other/compare.md" \
    && python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j["different_machines"] and j["metadata_differences"][0]["key"] == "host" else 1)' "$W/other/compare.json" \
    && ok "different machines said loudly" || fail "different machines not reported"

# 6. Markdown on stdout by default; the same report as compare.md.
"$COMPARE" "$W/A" "$W/SLOW" > "$W/stdout.md" 2>/dev/null
sed "s#$W/slow##" "$W/slow/compare.md" > /dev/null
cmp -s "$W/stdout.md" "$W/slow/compare.md" && ok "stdout report = compare.md" || fail "stdout report differs from compare.md"

# 7. Deterministic: a second run writes the same bytes.
run slow2 "$W/A" "$W/SLOW"
cmp -s "$W/slow/compare.json" "$W/slow2/compare.json" && cmp -s "$W/slow/compare.csv" "$W/slow2/compare.csv" \
    && ok "same inputs, same outputs" || fail "outputs differ between two runs"

# 8. The forest plot (plots/compare.gp) draws from compare.dat: a PNG and an SVG with every row.
if [ -n "${GP:-}" ]; then
    for t in png svg; do
        gnuplot -e "dat='$W/slow/compare.dat'; out='$W/slow/compare.$t'; term='$t'; thr=2; nrows=8" "$GP" 2>"$W/gp.err"
    done
    if [ -s "$W/slow/compare.png" ] && [ "$(grep -c 'gcbench/alloc-fixed-64K\|microbench/time-wall-1000' "$W/slow/compare.svg")" -ge 2 ] && [ ! -s "$W/gp.err" ]; then
        ok "forest plot drawn"; else fail "forest plot: $(cat "$W/gp.err")"; fi
fi

# 9. The overhead gate.  BUSY: every run 10% slower, baselines too (a busier machine);
# BUSY5: the same, and gcbench/alloc-fixed-64K's sampling 5% of the baseline's time dearer
# (overhead 1.30 -> 1.35).  The ratio gate flags every cell; the overhead gate exactly that one.
SCALE=1100 mk "$W/BUSY" 7 fixture-host rev-b
SCALE=1100 mk "$W/BUSY5" 7 fixture-host rev-b gcbench/alloc-fixed-64K 1350
run busy5-ratio "$W/A" "$W/BUSY5"
[ "$(rc busy5-ratio)" = 1 ] && ok "10% slower machine, ratio gate: exit 1" || fail "ratio gate: exit $(rc busy5-ratio), expected 1"
check busy5-ratio "gcbench/alloc-fixed-1M,gcbench/alloc-fixed-64K,gcbench/baseline,gcbench/time-wall-1000,microbench/alloc-fixed-1M,microbench/alloc-fixed-64K,microbench/baseline,microbench/time-wall-1000" "" 0 \
    && ok "10% slower machine, ratio gate: all 8 cells slower" || fail "ratio gate: verdicts"
grep -q "Level: B/A's interval covers the runs of each sweep, not the machine's state" "$W/busy5-ratio/compare.md" \
    && grep -q "the baselines' B/A here: median 1.1000 over 2, 1.1000 to 1.1000" "$W/busy5-ratio/compare.md" \
    && ok "ratio gate: the report gives B/A's level and the baselines' B/A (1.1000, the machine's 10%)" \
    || fail "ratio gate: no level paragraph or a wrong baselines' B/A: $(grep "^Level" "$W/busy5-ratio/compare.md")"
run busy5-ovh "$W/A" "$W/BUSY5" --gate overhead
! grep -q "^Level: B/A" "$W/busy5-ovh/compare.md" && ok "overhead gate: no ratio-level paragraph" \
    || fail "overhead gate: the ratio gate's level paragraph printed"
[ "$(rc busy5-ovh)" = 1 ] && ok "overhead gate: exit 1 (one regression)" || fail "overhead gate: exit $(rc busy5-ovh), expected 1"
check busy5-ovh gcbench/alloc-fixed-64K "" 5 6 && ok "overhead gate: exactly gcbench/alloc-fixed-64K slower, 5 same, 6 compared" \
    || fail "overhead gate: verdicts"
set -- $(truth "$W/A/results.db" "$W/BUSY5/results.db" gcbench/alloc-fixed-64K)
python3 - "$W/busy5-ovh/compare.json" "$2" <<'PY' && ok "overhead gate: change $2 inside its interval, baselines ungated, gate in JSON" || fail "overhead gate: change, ungated baselines or JSON"
import json, sys
j = json.load(open(sys.argv[1]))
c = [c for c in j["cells"] if c["label"] == "gcbench/alloc-fixed-64K"][0]
d = float(sys.argv[2])
ok = abs(c["overhead_change"] - d) < 1e-9 and c["overhead_change_lo"] <= d <= c["overhead_change_hi"]
ok = ok and c["overhead_change_lo"] > 0.02 and abs(d - 0.05) < 0.002
ok = ok and j["gate"] == "overhead" and j["counts"]["ungated"] == 2
ok = ok and sorted(c["label"] for c in j["cells"] if c["verdict"] == "ungated") == ["gcbench/baseline", "microbench/baseline"]
ok = ok and all(c["mw_p"] is None for c in j["cells"] if c["verdict"] == "ungated")
sys.exit(0 if ok else 1)
PY
grep -q "REGRESSION gcbench/alloc-fixed-64K: overhead change" "$W/busy5-ovh.err" && [ "$(grep -c REGRESSION "$W/busy5-ovh.err")" = 1 ] \
    && ok "overhead gate: the one regression named on stderr" || fail "overhead gate: stderr $(cat "$W/busy5-ovh.err")"
[ "$(grep -vc '^#' "$W/busy5-ovh/compare.dat")" = 6 ] && grep -q "gate overhead" "$W/busy5-ovh/compare.dat" \
    && ok "overhead gate: forest plot data without the baselines" || fail "overhead gate: compare.dat"
run busy-ovh "$W/A" "$W/BUSY" --gate overhead
run busy-ratio "$W/A" "$W/BUSY"
[ "$(rc busy-ovh)" = 0 ] && [ "$(rc busy-ratio)" = 1 ] && ok "uniformly slower machine: overhead gate exit 0, ratio gate exit 1" \
    || fail "uniformly slower machine: exit $(rc busy-ovh) (overhead), $(rc busy-ratio) (ratio)"
check busy-ovh "" "" 6 6 && ok "uniformly slower machine, overhead gate: 6 cells same" || fail "uniformly slower machine: overhead verdicts"

# 9b. --time cpu: the runs' CPU times (user + sys), which SCALE leaves alone.  The 10% busier
# machine with one cell's sampling dearer (BUSY5): the ratio gate on wall times flagged every
# cell, on CPU times exactly that cell (CPU 1300 -> 1350 per mille: B/A 1.038).
run busy5-cpu "$W/A" "$W/BUSY5" --time cpu
[ "$(rc busy5-cpu)" = 1 ] && ok "--time cpu, busier machine: exit 1" || fail "--time cpu: exit $(rc busy5-cpu), expected 1"
check busy5-cpu gcbench/alloc-fixed-64K "" 7 && ok "--time cpu, busier machine: exactly gcbench/alloc-fixed-64K slower, 7 same" \
    || fail "--time cpu: verdicts"
python3 - "$W/busy5-cpu/compare.json" "$W/A/results.db" "$W/BUSY5/results.db" <<'PY' && ok "--time cpu: medians and ratio of user + sys, time in JSON and compare.dat" || fail "--time cpu: medians, JSON or compare.dat"
import json, sqlite3, statistics, sys
j = json.load(open(sys.argv[1]))
def med(db, label):
    q = "SELECT user_ns + sys_ns FROM runs JOIN cells USING(cell_id) WHERE round > 0 AND status = 'ok' AND label = ?"
    return statistics.median(v for (v,) in sqlite3.connect(db).execute(q, (label,)))
ok = j["time"] == "cpu"
for c in j["cells"]:
    a, b = med(sys.argv[2], c["label"]), med(sys.argv[3], c["label"])
    ok = ok and c["a_median_ns"] == a and c["b_median_ns"] == b and abs(c["ratio"] - b / a) < 1e-9
c = [c for c in j["cells"] if c["label"] == "gcbench/alloc-fixed-64K"][0]
# medians: base * factor / 1000 + 150000 * 5.5 (the middle of the offsets 0..11) + 1 ms of sys
ok = ok and abs(c["ratio"] - 271825000 / 261825000) < 1e-9 and c["ratio_lo"] > 1.02
ok = ok and " time cpu" in open(sys.argv[1].replace("compare.json", "compare.dat")).readline()
sys.exit(0 if ok else 1)
PY
grep -q "gate ratio, cpu time" "$W/busy5-cpu.err" && grep -q "Run times: \*\*CPU time" "$W/busy5-cpu/compare.md" \
    && ok "--time cpu: said on stderr and in compare.md" || fail "--time cpu: stderr or compare.md"
# A run without a CPU time is left out under --time cpu, kept under --time wall.
cp -r "$W/BUSY5" "$W/NOCPU"
sqlite3 "$W/NOCPU/results.db" "UPDATE runs SET user_ns = NULL, sys_ns = NULL WHERE run_id IN (201, 202)"
run nocpu "$W/A" "$W/NOCPU" --time cpu
run nocpu-wall "$W/A" "$W/NOCPU"
python3 - "$W/nocpu/compare.json" "$W/nocpu-wall/compare.json" <<'PY' && ok "--time cpu: runs without a CPU time left out (10 of 12)" || fail "--time cpu: runs without a CPU time"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cells"] if c["label"] == "gcbench/alloc-fixed-64K"][0]
w = [c for c in json.load(open(sys.argv[2]))["cells"] if c["label"] == "gcbench/alloc-fixed-64K"][0]
sys.exit(0 if (c["b_runs"], w["b_runs"], c["a_runs"]) == (10, 12, 12) else 1)
PY

# 10. The simulated cells.  SIMB: the native cells of A2; among the simulated ones, exactly
# gcbench/sim/alloc-fixed-64K costs 12345 instructions and 23456 cycles more; the time cell's
# instructions shifted by 1500 and the 1M cell's cycles by 5, both within their repeat spread.
mk "$W/SIMB" 7 fixture-host rev-a
mksim "$W/SIMB" gcbench/sim/alloc-fixed-64K 12345 23456 gcbench/sim/time-1000Hz 1500 0 gcbench/sim/alloc-fixed-1M 0 5
run sim "$W/A" "$W/SIMB" --sim-threshold 0
[ "$(rc sim)" = 0 ] && ok "simulated difference: exit 0 (simulated cells do not gate)" || fail "simulated difference: exit $(rc sim)"
check sim "" "" 8 && ok "simulated difference: native cells all same, compare_sim.csv = JSON" || fail "simulated difference: native verdicts or CSV/JSON"
python3 - "$W/sim/compare.json" <<'PY' && ok "simulated difference: exactly that cell, +12345 instructions, +23456 cycles, overheads +1.2345e-05 and +1.1728e-05; shifts within the spread same" || fail "simulated difference: verdicts or sizes"
import json, sys
s = json.load(open(sys.argv[1]))["sim"]
bad = []
if s["counts"] != {"cells": 4, "differ": 1, "only_in_a": 0, "only_in_b": 0}: bad.append("counts %r" % s["counts"])
cells = {c["label"]: c for c in s["cells"]}
c = cells["gcbench/sim/alloc-fixed-64K"]
want = {"Ir_diff": 12345, "Ir_diff_lo": 12345, "Ir_diff_hi": 12345, "Ir_verdict": "higher",
        "est_cycles_diff": 23456, "est_cycles_diff_lo": 23456, "est_cycles_diff_hi": 23456, "est_cycles_verdict": "higher",
        "a_Ir": 1000905000, "b_Ir": 1000917345, "overhead_Ir_verdict": "higher", "overhead_est_cycles_verdict": "higher"}
for k, v in want.items():
    if c[k] != v: bad.append("64K %s: %r, expected %r" % (k, c[k], v))
if abs(c["overhead_Ir_diff"] - 12345 / 1e9) > 1e-15 or abs(c["overhead_est_cycles_diff"] - 23456 / 2e9) > 1e-15:
    bad.append("64K overhead changes %r %r" % (c["overhead_Ir_diff"], c["overhead_est_cycles_diff"]))
t = cells["gcbench/sim/time-1000Hz"]
# A's instructions repeat as 1000200000 and 1000202000, B's 1500 more: bounds [-500, 3500].
if (t["Ir_diff"], t["Ir_diff_lo"], t["Ir_diff_hi"], t["Ir_verdict"]) != (1500, -500, 3500, "same"): bad.append("time cell %r" % t)
m = cells["gcbench/sim/alloc-fixed-1M"]
if (m["est_cycles_diff"], m["est_cycles_diff_lo"], m["est_cycles_diff_hi"], m["est_cycles_verdict"]) != (5, -5, 15, "same"):
    bad.append("1M cell %r" % m)
for l, x in cells.items():
    if l != "gcbench/sim/alloc-fixed-64K" and any(x[q + "_verdict"] not in ("same", None) for q in ("Ir", "est_cycles", "overhead_Ir", "overhead_est_cycles")):
        bad.append("%s differs" % l)
if cells["gcbench/sim/baseline"]["overhead_Ir_verdict"] is not None: bad.append("baseline has an overhead verdict")
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
grep -q "differs: gcbench/sim/alloc-fixed-64K" "$W/sim/compare.md" && grep -q "simulated: 4 cells matched, 1 differ" "$W/sim.err" \
    && ok "simulated difference: named in compare.md and on stderr" || fail "simulated difference: report or stderr"
# --sim-threshold: 12345 more of 1000905000 instructions (0.0012%) is beyond 0.001% and within 0.01%.
run simthr1 "$W/A" "$W/SIMB" --sim-threshold 0.001%
run simthr2 "$W/A" "$W/SIMB" --sim-threshold 0.01%
python3 - "$W/simthr1/compare.json" "$W/simthr2/compare.json" <<'PY' && ok "--sim-threshold: 0.0012% counts beyond 0.001%, not beyond 0.01%" || fail "--sim-threshold"
import json, sys
a, b = (json.load(open(p))["sim"] for p in sys.argv[1:3])
va = {c["label"]: c["Ir_verdict"] for c in a["cells"]}
vb = {c["label"]: c["Ir_verdict"] for c in b["cells"]}
ok = a["counts"]["differ"] == 1 and va["gcbench/sim/alloc-fixed-64K"] == "higher" and a["threshold"] == 1e-05
ok = ok and b["counts"]["differ"] == 0 and vb["gcbench/sim/alloc-fixed-64K"] == "same" and b["threshold"] == 0.0001
sys.exit(0 if ok else 1)
PY
# The default --sim-threshold, 0.01% (above the spread of repeated simulated runs, docs/STATISTICS.md):
# the 0.0012% difference is the same; 150000 instructions more of 1000905000 (0.015%) are higher, 50000
# (0.005%) the same; the JSON gives the default.
run simdef "$W/A" "$W/SIMB"
mk "$W/SIMBIG" 7 fixture-host rev-a
mksim "$W/SIMBIG" gcbench/sim/alloc-fixed-64K 150000 300000 gcbench/sim/alloc-fixed-1M 50000 100000
run simbig "$W/A" "$W/SIMBIG"
python3 - "$W/simdef/compare.json" "$W/simbig/compare.json" <<'PY' && ok "default --sim-threshold 0.01%: 0.0012% and 0.005% same, 0.015% higher" || fail "default --sim-threshold"
import json, sys
d, b = (json.load(open(p))["sim"] for p in sys.argv[1:3])
vb = {c["label"]: (c["Ir_verdict"], c["est_cycles_verdict"], c["Ir_diff"]) for c in b["cells"]}
ok = d["threshold"] == 0.0001 and b["threshold"] == 0.0001 and d["counts"]["differ"] == 0
ok = ok and b["counts"]["differ"] == 1 and vb["gcbench/sim/alloc-fixed-64K"] == ("higher", "higher", 150000)
ok = ok and vb["gcbench/sim/alloc-fixed-1M"] == ("same", "same", 50000)
sys.exit(0 if ok else 1)
PY
grep -q "+-0.01% of A's value" "$W/simbig/compare.md" && grep -q "differs: gcbench/sim/alloc-fixed-64K" "$W/simbig/compare.md" \
    && ok "default --sim-threshold said in compare.md" || fail "default --sim-threshold: compare.md"
# Beyond the spread: the time cell 2500 instructions dearer is higher (bounds [500, 4500]).
mksim "$W/SIMT"
sqlite3 "$W/SIMT/results.db" "UPDATE run_counters SET raw = raw + 2500, scaled = scaled + 2500 WHERE event = 'sim::Ir' AND run_id IN (10401, 10402);"
# Sweeps with only simulated cells compare (exit 0), the native part empty.
mksim "$W/SIMONLY-A"
mksim "$W/SIMONLY-B" gcbench/sim/alloc-fixed-64K 12345 23456
run simonly "$W/SIMONLY-A" "$W/SIMONLY-B" --sim-threshold 0
run simt "$W/SIMONLY-A" "$W/SIMT" --sim-threshold 0
python3 - "$W/simonly/compare.json" "$W/simt/compare.json" "$(rc simonly)" <<'PY' && ok "only simulated cells: compared, exit 0; a shift beyond the spread is higher" || fail "only simulated cells or a shift beyond the spread"
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ok = sys.argv[3] == "0" and a["counts"]["cells"] == 0 and a["sim"]["counts"]["differ"] == 1
c = [c for c in t["sim"]["cells"] if c["label"] == "gcbench/sim/time-1000Hz"][0]
ok = ok and (c["Ir_diff"], c["Ir_diff_lo"], c["Ir_diff_hi"], c["Ir_verdict"]) == (2500, 500, 4500, "higher")
ok = ok and t["sim"]["counts"]["differ"] == 1 and t["counts"]["cells"] == 0
sys.exit(0 if ok else 1)
PY

# 11. Bad input: exit 2 with a message naming the thing.
expect2() {
    what=$1; shift
    "$COMPARE" "$@" > /dev/null 2> "$W/bad.err"
    r=$?
    if [ $r = 2 ] && grep -q "compare: " "$W/bad.err"; then ok "bad input ($what): exit 2"; else fail "bad input ($what): exit $r"; cat "$W/bad.err"; fi
}
mkdir -p "$W/empty"
expect2 "missing directory" "$W/A" "$W/nonexistent"
expect2 "no results.db" "$W/empty" "$W/A"
expect2 "one directory" "$W/A"
expect2 "bad threshold" --threshold 2x "$W/A" "$W/A2"
expect2 "unknown option" --frobnicate "$W/A" "$W/A2"
expect2 "bad gate" --gate median "$W/A" "$W/A2"
expect2 "bad run time" --time user "$W/A" "$W/A2"
expect2 "bad simulated threshold" --sim-threshold -1% "$W/A" "$W/A2"
mk "$W/DISJOINT" 5 fixture-host rev-a gcbench/baseline 1000
sqlite3 "$W/DISJOINT/results.db" "UPDATE cells SET label = 'x/' || label;"
expect2 "no cell in common" "$W/A" "$W/DISJOINT"
grep -q "no cell in common" "$W/bad.err" || fail "no cell in common: message"

# 12. The paired overhead gate on blocked sweeps (tests/compare/mkblocked.py: every cell's run next
# to a run of its baseline in one block, +-0.5% noise per run).  BLK-B: gcbench/alloc-fixed-64K's
# factor 1300 -> 1350 per mille (overhead +0.05); BLK-A2: A's distributions, other noise.
MKB="python3 $(dirname "$0")/mkblocked.py $SCHEMA"
mkdir -p "$W/BLK-A" "$W/BLK-A2" "$W/BLK-B" "$W/EP-A" "$W/EP-B"
$MKB "$W/BLK-A/results.db" 1 && $MKB "$W/BLK-A2/results.db" 3 && $MKB "$W/BLK-B/results.db" 2 gcbench/alloc-fixed-64K=1350 \
    && $MKB "$W/EP-A/results.db" 4 --episodes 0.4 && $MKB "$W/EP-B/results.db" 5 --episodes 0.4 microbench/alloc-fixed-1M=1080 \
    || { echo "cannot build the blocked sweeps"; exit 1; }
# pairedcheck NAME A B LABEL INJECTED: every gated cell's paired overheads and change are the medians of
# the per-block ratios read from the databases (to 1e-9), paired over 20 blocks each, and LABEL's
# injected change (if any) lies inside its interval.
pairedcheck() {
    python3 - "$W/$1/compare.json" "$2/results.db" "$3/results.db" "$4" "$5" <<'PY'
import json, sqlite3, statistics, sys
j = json.load(open(sys.argv[1]))
def pairs(db, label):
    q = """SELECT t.wall_ns * 1.0 / b.wall_ns FROM runs t JOIN cells c ON c.cell_id = t.cell_id
           JOIN runs b ON b.block = t.block AND b.block_role = 0
           WHERE c.label = ? AND t.block_role = 1 AND t.round > 0 AND t.status = 'ok' AND b.status = 'ok'"""
    return [v for (v,) in sqlite3.connect(db).execute(q, (label,))]
bad = []
for c in j["cells"]:
    if c["kind"] == "baseline":
        if c["overhead_pairing"] is not None or c["verdict"] != "ungated": bad.append("%s: %r" % (c["label"], c))
        continue
    pa, pb = pairs(sys.argv[2], c["label"]), pairs(sys.argv[3], c["label"])
    ma, mb = statistics.median(pa), statistics.median(pb)
    if c["overhead_pairing"] != "paired" or (c["a_pairs"], c["b_pairs"]) != (20, 20) or len(pa) != 20:
        bad.append("%s: pairing %r %r %r" % (c["label"], c["overhead_pairing"], c["a_pairs"], c["b_pairs"]))
    for k, v in (("a_overhead", ma), ("b_overhead", mb), ("overhead_change", mb - ma)):
        if abs(c[k] - v) > 1e-9: bad.append("%s %s: %r, expected %r" % (c["label"], k, c[k], v))
    if not (c["overhead_change_lo"] <= c["overhead_change"] <= c["overhead_change_hi"]) or c["overhead_change_method"] != "bca":
        bad.append("%s: interval %r" % (c["label"], c))
    if c["label"] == sys.argv[4] and sys.argv[5]:
        d = float(sys.argv[5])
        if not (c["overhead_change_lo"] <= d <= c["overhead_change_hi"]): bad.append("%s: %g outside its interval" % (c["label"], d))
if j["counts"]["paired"] != 6 or j["counts"]["unpaired"] != 0: bad.append("counts %r" % j["counts"])
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
}
run blk "$W/BLK-A" "$W/BLK-B" --gate overhead
[ "$(rc blk)" = 1 ] && ok "paired gate, injected overhead change: exit 1" || fail "paired gate: exit $(rc blk), expected 1"
check blk gcbench/alloc-fixed-64K "" 5 6 && ok "paired gate: exactly gcbench/alloc-fixed-64K slower, 5 same, 6 compared" \
    || fail "paired gate: verdicts"
pairedcheck blk "$W/BLK-A" "$W/BLK-B" gcbench/alloc-fixed-64K 0.05 \
    && ok "paired gate: overheads and changes are the medians of the per-block ratios, +0.05 inside the interval" \
    || fail "paired gate: values"
grep -q "REGRESSION gcbench/alloc-fixed-64K: overhead change .* (paired overhead" "$W/blk.err" \
    && grep -q "overhead paired in 6 cells, unpaired in 0" "$W/blk.err" && grep -q "paired (20/20)" "$W/blk/compare.md" \
    && ok "paired gate: said on stderr and in compare.md" || fail "paired gate: stderr or compare.md"
run blk-aa "$W/BLK-A" "$W/BLK-A2" --gate overhead
[ "$(rc blk-aa)" = 0 ] && check blk-aa "" "" 6 6 && pairedcheck blk-aa "$W/BLK-A" "$W/BLK-A2" "" "" \
    && ok "paired gate, A/A blocked sweeps: exit 0, all 6 gated cells same" || fail "paired gate, A/A: exit $(rc blk-aa) or verdicts"
# Slow episodes shared by the two runs of a block (up to +40%, independent from block to block) and
# microbench/alloc-fixed-1M's overhead +0.05: the paired gate finds exactly that cell; the same data
# without the blocks (unpaired medians) cannot tell (its interval straddles the threshold).
run ep "$W/EP-A" "$W/EP-B" --gate overhead
[ "$(rc ep)" = 1 ] && check ep microbench/alloc-fixed-1M "" 5 6 && pairedcheck ep "$W/EP-A" "$W/EP-B" microbench/alloc-fixed-1M 0.05 \
    && ok "slow episodes: the paired gate finds exactly microbench/alloc-fixed-1M, +0.05 inside its interval" \
    || fail "slow episodes: paired gate exit $(rc ep) or verdicts"
for s in EP-A EP-B; do
    cp -r "$W/$s" "$W/$s-U"
    sqlite3 "$W/$s-U/results.db" "UPDATE runs SET block = NULL, block_pos = NULL, block_role = NULL; UPDATE meta SET value = 'independent' WHERE key = 'design';"
done
run ep-u "$W/EP-A-U" "$W/EP-B-U" --gate overhead
python3 - "$W/ep-u/compare.json" "$W/ep/compare.json" "$(rc ep-u)" <<'PY' && ok "slow episodes, unpaired: no cell slower, the 1M cell inconclusive; unpaired said in a column and note; the paired run's unpaired columns agree" || fail "slow episodes, unpaired fallback"
import json, sys
u, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
if sys.argv[3] != "0" or u["counts"]["slower"] != 0 or (u["counts"]["paired"], u["counts"]["unpaired"]) != (0, 6): bad.append("counts %r" % u["counts"])
for c in u["cells"]:
    if c["kind"] == "baseline": continue
    if c["overhead_pairing"] != "unpaired" or (c["a_pairs"], c["b_pairs"]) != (0, 0) or "not a blocked sweep" not in c["note"]:
        bad.append("%s: %r" % (c["label"], c))
    if (c["overhead_change"], c["overhead_change_lo"], c["overhead_change_hi"]) != (c["unpaired_overhead_change"], c["unpaired_overhead_change_lo"], c["unpaired_overhead_change_hi"]):
        bad.append("%s: change differs from the unpaired columns" % c["label"])
    q = [x for x in p["cells"] if x["label"] == c["label"]][0]
    if (c["overhead_change"], c["overhead_change_lo"], c["overhead_change_hi"]) != (q["unpaired_overhead_change"], q["unpaired_overhead_change_lo"], q["unpaired_overhead_change_hi"]):
        bad.append("%s: the paired run's unpaired columns differ" % c["label"])
c = [c for c in u["cells"] if c["label"] == "microbench/alloc-fixed-1M"][0]
if c["verdict"] != "inconclusive" or not (c["overhead_change_lo"] < 0.02 < c["overhead_change_hi"]): bad.append("1M: %r" % c)
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
grep -q "no pairs: not both sweeps blocked" "$W/ep-u/compare.md" && grep -q "unpaired in 6 (no pairs: not both sweeps blocked)" "$W/ep-u.err" \
    && ok "unpaired fallback said in compare.md and on stderr" || fail "unpaired fallback: compare.md or stderr"
# One blocked sweep against an unblocked one: unpaired, the note names the sweep without pairs.
run mixed "$W/EP-A" "$W/EP-B-U" --gate overhead
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
ok = j["counts"]["unpaired"] == 6 and all("no pairs of adjacent runs in B (not a blocked sweep)" in c["note"] for c in j["cells"] if c["kind"] != "baseline")
sys.exit(0 if ok else 1)' "$W/mixed/compare.json" && ok "blocked against unblocked: unpaired, B named" || fail "blocked against unblocked"

# 13. In-process sweeps (mkblocked.py --inprocess: ABBA blocks of segments inside each run, slow
# episodes up to 40% shared by a block's segments): the overhead from the in-process blocks' ratios
# (CPU with sampling over without); gcbench/alloc-fixed-64K's sampling 1300 -> 1350 per mille.
mkdir -p "$W/IP-A" "$W/IP-B"
$MKB "$W/IP-A/results.db" 6 --inprocess --episodes 0.4 && $MKB "$W/IP-B/results.db" 7 --inprocess --episodes 0.4 gcbench/alloc-fixed-64K=1350 \
    || { echo "cannot build the in-process sweeps"; exit 1; }
run ip "$W/IP-A" "$W/IP-B" --gate overhead
[ "$(rc ip)" = 1 ] && check ip gcbench/alloc-fixed-64K "" 5 6 && ok "in-process sweeps: exactly gcbench/alloc-fixed-64K slower, 5 same" \
    || fail "in-process sweeps: exit $(rc ip) or verdicts"
python3 - "$W/ip/compare.json" "$W/IP-A/results.db" "$W/IP-B/results.db" <<'PY' && ok "in-process sweeps: overheads are the medians of the blocks' CPU ratios (80 a side), +0.05 inside the interval" || fail "in-process sweeps: values"
import json, sqlite3, statistics, sys
from collections import defaultdict
j = json.load(open(sys.argv[1]))
def blocks(db, label):
    q = """SELECT s.run_id, s.block, s.kind, s.cpu_ns FROM segments s JOIN runs r USING(run_id) JOIN cells c USING(cell_id)
           WHERE c.label = ? AND r.round > 0 AND s.block > 0 AND s.end_ != 'exit'"""
    t = defaultdict(lambda: {"A": 0, "B": 0})
    for run, blk, kind, cpu in sqlite3.connect(db).execute(q, (label,)):
        t[run, blk][kind] += cpu
    return [v["B"] / v["A"] for v in t.values()]   # equal bytes in every segment: work cancels
bad = []
for c in j["cells"]:
    if c["kind"] == "baseline": continue
    a, b = blocks(sys.argv[2], c["label"]), blocks(sys.argv[3], c["label"])
    ma, mb = statistics.median(a), statistics.median(b)
    if (c["overhead_pairing"], c["a_pairs"], c["b_pairs"], len(a)) != ("inprocess", 80, 80, 80): bad.append("%s: %r" % (c["label"], c))
    for k, v in (("a_overhead", ma), ("b_overhead", mb), ("overhead_change", mb - ma)):
        if abs(c[k] - v) > 1e-9: bad.append("%s %s: %r, expected %r" % (c["label"], k, c[k], v))
c = [c for c in j["cells"] if c["label"] == "gcbench/alloc-fixed-64K"][0]
if not (c["overhead_change_lo"] <= 0.05 <= c["overhead_change_hi"]): bad.append("64K: %r" % c)
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
grep -q "(in-process overhead" "$W/ip.err" && grep -q "in-process blocks (80/80)" "$W/ip/compare.md" \
    && ok "in-process sweeps: said on stderr and in compare.md" || fail "in-process sweeps: stderr or compare.md"
# An in-process sweep against a blocked one: their blocks measure different things, so unpaired.
run ipmix "$W/IP-A" "$W/BLK-B" --gate overhead
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
ok = j["counts"]["unpaired"] == 6 and all(c["overhead_pairing"] == "unpaired" and "in-process blocks in A only" in c["note"] for c in j["cells"] if c["kind"] != "baseline")
sys.exit(0 if ok else 1)' "$W/ipmix/compare.json" && ok "in-process against blocked: unpaired, said in the note" || fail "in-process against blocked"

# 14. Runs that failed in B.  CRASH: every measured run of gcbench/alloc-fixed-64K failed in B (the
# change makes the program crash): FAILED, exit 3 (it was "inconclusive", exit 0).  SOME: 3 of its 12
# failed, none in A: FAILED too.  BOTH: 2 failed in A and 3 in B (some used): not new, not gated, exit 0.
# GONE: B has the cell but no measured run of it (never ran): MISSING, exit 3.
crash() { # crash DIR LABEL N: the first N measured rounds of LABEL failed
    sqlite3 "$1/results.db" "UPDATE runs SET status = 'failed', failure = 'exit status 139 (SIGSEGV)', wall_ns = NULL
      WHERE round BETWEEN 1 AND $3 AND cell_id = (SELECT cell_id FROM cells WHERE label = '$2');"
}
mk "$W/CRASH" 7 fixture-host rev-b && crash "$W/CRASH" gcbench/alloc-fixed-64K 12
mk "$W/SOME" 7 fixture-host rev-b && crash "$W/SOME" gcbench/alloc-fixed-64K 3
mk "$W/BOTH-A" 5 fixture-host rev-a && crash "$W/BOTH-A" gcbench/alloc-fixed-64K 2
mk "$W/BOTH-B" 7 fixture-host rev-b && crash "$W/BOTH-B" gcbench/alloc-fixed-64K 3
mk "$W/GONE" 7 fixture-host rev-b && sqlite3 "$W/GONE/results.db" "DELETE FROM runs WHERE cell_id = 2 AND round > 0"
run crash "$W/A" "$W/CRASH"
run crash-ovh "$W/A" "$W/CRASH" --gate overhead
run some "$W/A" "$W/SOME"
run both "$W/BOTH-A" "$W/BOTH-B"
run gone "$W/A" "$W/GONE"
"$COMPARE" --quiet "$W/A" "$W/CRASH" > /dev/null 2> "$W/crashq.err"; echo $? > "$W/crashq.rc"
[ "$(rc crash)" = 3 ] && [ "$(rc crash-ovh)" = 3 ] && [ "$(rc some)" = 3 ] && [ "$(rc gone)" = 3 ] && [ "$(rc both)" = 0 ] \
    && [ "$(rc crashq)" = 3 ] && [ ! -s "$W/crashq.err" ] \
    && ok "failed runs in B: exit 3 (every run, 3 of 12, overhead gate, --quiet, never ran); failing in both: exit 0" \
    || fail "failed runs in B: exit $(rc crash) (all), $(rc crash-ovh) (overhead gate), $(rc some) (3 of 12), $(rc gone) (never ran), $(rc both) (both), $(rc crashq) (--quiet)"
python3 - "$W" <<'PY' && ok "failed runs in B: verdicts failed / missing with their notes, counts, the rest same" || fail "failed runs in B: verdicts, notes or counts"
import csv, json, sys
w = sys.argv[1]
bad = []
def cells(name):
    j = json.load(open("%s/%s/compare.json" % (w, name)))
    rows = {r["label"]: r for r in csv.DictReader(open("%s/%s/compare.csv" % (w, name)))}
    return j, {c["label"]: c for c in j["cells"]}, rows
want = {
    "crash": ("failed", "12 of 12 measured runs failed in B (first: exit status 139 (SIGSEGV)), none in A", (1, 0), 7),
    "crash-ovh": ("failed", "12 of 12 measured runs failed in B (first: exit status 139 (SIGSEGV)), none in A", (1, 0), 5),
    "some": ("failed", "3 of 12 measured runs failed in B (first: exit status 139 (SIGSEGV)), none in A", (1, 0), 7),
    "gone": ("missing", "no measured run of the cell in B (12 used in A): B did not run it", (0, 1), 7),
}
for name, (verdict, note, counts, same) in want.items():
    j, c, rows = cells(name)
    x = c["gcbench/alloc-fixed-64K"]
    if x["verdict"] != verdict or rows["gcbench/alloc-fixed-64K"]["verdict"] != verdict: bad.append("%s: verdict %r" % (name, x["verdict"]))
    if note not in x["note"]: bad.append("%s: note %r" % (name, x["note"]))
    if (j["counts"]["failed"], j["counts"]["missing"]) != counts: bad.append("%s: counts %r" % (name, j["counts"]))
    if j["counts"]["same"] != same or j["counts"]["slower"] != 0: bad.append("%s: counts %r" % (name, j["counts"]))
j, c, rows = cells("both")
x = c["gcbench/alloc-fixed-64K"]
if x["verdict"] in ("failed", "missing") or "3 of 12 measured runs failed in B (first: exit status 139 (SIGSEGV)), 2 of 12 in A: not new, not gated" not in x["note"]:
    bad.append("both: %r" % x)
if (j["counts"]["failed"], j["counts"]["missing"]) != (0, 0): bad.append("both: counts %r" % j["counts"])
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
grep -qx "compare: FAILED IN B gcbench/alloc-fixed-64K: 12 of 12 measured runs failed in B (first: exit status 139 (SIGSEGV)), none in A" "$W/crash.err" \
    && grep -qx "compare: 1 cells failed in B, 0 missing from B: the gate fails (exit 3)" "$W/crash.err" \
    && grep -q "\*\*1 FAILED in B\*\*" "$W/crash/compare.md" && grep -q "| \*\*failed\*\* |" "$W/crash/compare.md" \
    && ok "failed runs in B: said on stderr and in compare.md" || fail "failed runs in B: stderr $(cat "$W/crash.err")"
# A baseline whose runs crash in B fails the gate too, even under the overhead gate (where it is not gated).
mk "$W/CRASHBASE" 7 fixture-host rev-b && crash "$W/CRASHBASE" gcbench/baseline 12
run crashbase "$W/A" "$W/CRASHBASE" --gate overhead
python3 -c '
import json, sys
c = {c["label"]: c for c in json.load(open(sys.argv[1]))["cells"]}
sys.exit(0 if c["gcbench/baseline"]["verdict"] == "failed" and sys.argv[2] == "3" else 1)' "$W/crashbase/compare.json" "$(rc crashbase)" \
    && ok "a baseline failing in B: failed, exit 3, under the overhead gate" || fail "a baseline failing in B: exit $(rc crashbase)"

# 15. Outputs that cannot be written are not reported as written; targets that are not regular files
# are refused (exit 2) before anything is written, and what --out held before is kept.
: > "$W/afile"
"$COMPARE" --out "$W/afile/sub" "$W/A" "$W/A2" > /dev/null 2> "$W/unw.err"; r=$?
[ $r = 1 ] && ! grep -q "wrote" "$W/unw.err" && grep -q "compare: --out: cannot create $W/afile/sub: Not a directory; the report was not written" "$W/unw.err" \
    && ok "--out that cannot be created: exit 1, no 'wrote'" || fail "--out that cannot be created: exit $r, $(cat "$W/unw.err")"
"$COMPARE" --out "$W/afile" "$W/A" "$W/A2" > /dev/null 2> "$W/unw.err"; r=$?
[ $r = 2 ] && ! grep -q "wrote" "$W/unw.err" && grep -q "compare: --out $W/afile: not a directory" "$W/unw.err" \
    && ok "--out naming a file: exit 2, no 'wrote'" || fail "--out naming a file: exit $r, $(cat "$W/unw.err")"
grep -q "; wrote $W/aa/compare.md, compare.csv, compare_sim.csv, compare.json, compare.dat$" "$W/aa.err" \
    && ok "a written report names its files" || fail "written report: $(cat "$W/aa.err")"
for kind in fifo dir dev link; do
    d="$W/tgt-$kind"
    rm -rf "$d"
    run "tgt-$kind" "$W/A" "$W/SLOW"   # a report there first: it must survive
    cp -r "$W/tgt-$kind" "$W/tgt-$kind.before"
    case $kind in
    fifo) rm "$d/compare.csv"; mkfifo "$d/compare.csv" ;;
    dir) rm "$d/compare.json"; mkdir "$d/compare.json" ;;
    dev) rm "$d/compare.dat"; mknod "$d/compare.dat" c 1 3 2>/dev/null || { ok "(no character device test: mknod needs root)"; continue; } ;;
    link) rm "$d/compare.md"; ln -s "$W/afile" "$d/compare.md" ;;
    esac
    "$COMPARE" --out "$d" "$W/A" "$W/A2" > /dev/null 2> "$W/tgt.err"; r=$?
    intact=1
    case $kind in
    fifo) [ -p "$d/compare.csv" ] || intact=0 ;;
    dir) [ -d "$d/compare.json" ] || intact=0 ;;
    dev) [ -c "$d/compare.dat" ] || intact=0 ;;
    link) [ -L "$d/compare.md" ] && [ ! -s "$W/afile" ] || intact=0 ;;
    esac
    for f in compare.md compare.csv compare_sim.csv compare.json compare.dat; do
        [ -f "$d/$f" ] && [ ! -L "$d/$f" ] && ! cmp -s "$d/$f" "$W/tgt-$kind.before/$f" && intact=0
    done
    left=$(ls "$d" | grep -c '\.tmp\.')
    if [ $r = 2 ] && [ $intact = 1 ] && [ "$left" = 0 ] && grep -q "not a regular file: refusing to replace it" "$W/tgt.err" && ! grep -q "wrote" "$W/tgt.err"; then
        ok "--out with a $kind in place of a report file: exit 2, it and the earlier report kept, no temporary left"
    else
        fail "--out with a $kind in place of a report file: exit $r, intact $intact, $left temporaries: $(cat "$W/tgt.err")"
    fi
done

echo "$fails failed"
[ $fails -eq 0 ]
