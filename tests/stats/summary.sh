#!/bin/sh
# summary.sh ANALYZE SCHEMA FIXTURES WORKDIR - what summary.md and summary.csv tell the reader
# (make test-stats-summary; docs/STATISTICS.md, "Headlines"):
#  1. a sweep of poisson-mode allocation cells only (the peers sweep's shape: command workloads
#     of other systems, no time cells): headline 1 has a row per mode and period, headline 2 a row
#     per workload with its poisson cell, never "no ... cell with a baseline";
#  2. one verdict per cell: in a blocked sweep every cell's verdict in summary.csv is its
#     paired_verdict, and the per-workload table of summary.md says the same as the paired table;
#  3. plain numbers: no exponent (4.8e-15) anywhere in summary.md of the fixtures;
#  4. the time sampler's mode: summary.csv ends with a time_mode column ("signal" / "thread" for
#     time cells), and headline 2's time cell names its mode.
set -u
analyze=$1 schema=$2 fixtures=$3 w=$4
rm -rf "$w" && mkdir -p "$w" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
mk() { mkdir -p "$1" && { cat "$schema"; cat; } | sqlite3 "$1/results.db" || { echo "cannot build $1"; exit 1; }; }
# runs_of: every cell's runs in rounds 0..6 (round 0 a warm-up), wall 100 ms + 10 ms per cell id.
runs_of="WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < 6)
INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb)
SELECT 100 * c.cell_id + k, c.cell_id, k, 100 * k + c.cell_id, 'ok',
  100000000 + 10000000 * (c.cell_id - 1) + 1000000 * ((k * 5) % 7), 90000000, 1000000, 5000 FROM r, cells c;
INSERT INTO run_stats SELECT run_id,'alloc_samples',CASE WHEN c.kind = 'alloc' THEN 1000 ELSE 0 END FROM runs JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT run_id,'alloc_sample_points',CASE WHEN c.kind = 'alloc' THEN 1000 ELSE 0 END FROM runs JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT run_id,'sampled_bytes',CASE WHEN c.kind = 'alloc' THEN 65536000 ELSE 0 END FROM runs JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT run_id,'time_samples',CASE WHEN c.kind = 'time' THEN 100 ELSE 0 END FROM runs JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT run_id,'bytes_allocated',65536000 FROM runs JOIN cells c USING (cell_id);"
A="--quiet --resamples 1000 --fit-resamples 100"

# ---- 1. poisson cells only ------------------------------------------------------------
mk "$w/poisson" <<SQL
INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES
 (1,'w','baseline',0,'',0,'',10,'w/base'),(2,'w','alloc',65536,'poisson',0,'',10,'w/alloc-poisson-64K'),
 (3,'w','alloc',1048576,'poisson',0,'',10,'w/alloc-poisson-1M');
$runs_of
SQL
"$analyze" $A "$w/poisson" || fail "analyze poisson: exit $?"
md=$w/poisson/summary.md
grep -q "^| poisson | 64K | w | 1.09[0-9] \[" "$md" && grep -q "^| poisson | 1M | w | 1.19[0-9] \[" "$md" &&
    ok "headline 1: a row per poisson period" || fail "headline 1 has no poisson rows: $(grep -A4 '^| mode | period' "$md")"
grep -q "^| w | alloc poisson 1M | " "$md" && ok "headline 2: the poisson cell" ||
    fail "headline 2 has no poisson row: $(grep -A3 '^| workload | allocation cell' "$md")"
grep -q "no .*cell with .*a baseline" "$md" && fail "a headline says there is no cell" || ok "no empty headline"
grep -q "^No workload has both an allocation and a time cell" "$md" && ok "headline 2 says why there is no verdict" ||
    fail "headline 2's line: $(grep 'Resolved on\|No workload' "$md")"

# ---- 2. one verdict per cell ----------------------------------------------------------
# Slow episodes shared by a block's two runs (--episodes 0.3) and two cells without an effect:
# the paired intervals resolve what the ratio of medians does not, so a rule per table would
# give such a cell two verdicts.
mkdir -p "$w/blocked"
python3 tests/compare/mkblocked.py "$schema" "$w/blocked/results.db" 1 --rounds 12 --episodes 0.3 \
    gcbench/alloc-fixed-1M=1000 microbench/time-wall-1000=1000 || fail "mkblocked"
"$analyze" $A "$w/blocked" || fail "analyze blocked: exit $?"
python3 - "$w/blocked" <<'PY' || fails=$((fails + 1))
import csv, re, sys
d = sys.argv[1]
rows = list(csv.DictReader(l for l in open(d + "/summary.csv") if not l.startswith("#")))
cells = [r for r in rows if r["kind"] != "baseline"]
bad = [(r["label"], r["verdict"], r["paired_verdict"]) for r in cells if r["verdict"] != r["paired_verdict"]]
if len(cells) != 6 or any(int(r["pairs"]) != 12 for r in cells) or bad:
    print("FAIL: summary.csv: %d cells, verdict != paired_verdict: %s" % (len(cells), bad)); sys.exit(1)
md = open(d + "/summary.md").read()
per_cell = md.split("### Per cell")[1].split("\n## ")[0]
paired = [f[7].strip() for f in (l.split("|") for l in per_cell.splitlines() if l.startswith("| "))
          if len(f) > 8 and f[2].strip().isdigit() and f[7].strip() != "A/A"]
wl = []
for l in md.split("## Per workload")[1].splitlines():
    f = l.split("|")
    if l.startswith("| ") and len(f) >= 13 and f[1].strip() not in ("cell", "baseline") and f[11].strip() != "baseline":
        wl.append(f[11].strip())
want = [r["verdict"] for r in cells]
if paired != want or wl != want:
    print("FAIL: verdicts: summary.csv %s, paired table %s, per-workload tables %s" % (want, paired, wl)); sys.exit(1)
if len(set(want)) < 2:
    print("FAIL: the fixture gives one verdict to every cell (%s): it tests nothing" % want); sys.exit(1)
print("ok: one verdict for each of %d cells in summary.csv, the paired table and the per-workload tables: %s" % (len(want), want))
PY

# ---- 3. plain numbers -----------------------------------------------------------------
mk "$w/small" < "$fixtures/small.sql"
"$analyze" $A "$w/small" 2> /dev/null || fail "analyze small: exit $?"
for d in small blocked poisson; do
    e=$(grep -oE '[0-9]e[-+][0-9]+' "$w/$d/summary.md" | head -3 | tr '\n' ' ')
    [ -z "$e" ] && ok "$d: no exponent in summary.md" || fail "$d: summary.md prints exponents: $e"
done

# ---- 4. the time sampler's mode -------------------------------------------------------
mk "$w/modes" <<SQL
INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label,time_mode) VALUES
 (1,'w','baseline',0,'',0,'',10,'w/base',''),(2,'w','alloc',65536,'fixed',0,'',10,'w/alloc-fixed-64K',''),
 (3,'w','time',0,'',1000,'wall',10,'w/time-wall-1000',''),(4,'w','time',0,'',1000,'wall',10,'w/time-thread-wall-1000','');
UPDATE cells SET time_mode = CASE cell_id WHEN 3 THEN 'signal' WHEN 4 THEN 'thread' ELSE '' END;
$runs_of
SQL
"$analyze" $A "$w/modes" || fail "analyze modes: exit $?"
head -2 "$w/modes/summary.csv" | tail -1 | grep -q ',paired_rule,time_mode,paired_se$' && ok "summary.csv ends with time_mode, paired_se" ||
    fail "summary.csv's header ends: $(head -2 "$w/modes/summary.csv" | tail -1 | tail -c 60)"
grep -q '^w,w/time-thread-wall-1000,.*,thread,[^,]*$' "$w/modes/summary.csv" && grep -q '^w,w/time-wall-1000,.*,signal,[^,]*$' "$w/modes/summary.csv" &&
    grep -q '^w,w/alloc-fixed-64K,.*,,[^,]*$' "$w/modes/summary.csv" && ok "time_mode per cell" || fail "time_mode values"
grep -q '^| w | alloc fixed 64K | .* | time signal wall 1000 Hz | ' "$w/modes/summary.md" &&
    grep -q '^| w/thread | alloc fixed 64K | .* | time thread wall 1000 Hz | ' "$w/modes/summary.md" &&
    ok "headline 2's time cell names its mode" || fail "headline 2: $(grep -A4 '^| workload | allocation cell' "$w/modes/summary.md")"

echo "summary: $fails failed"
[ $fails -eq 0 ]
