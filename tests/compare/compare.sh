#!/bin/sh
# compare.sh - build/bin/compare end to end on synthetic sweeps built with the sqlite3 shell from
# the results database schema ($SCHEMA, harness/schema.sql): an injected 10% slowdown in exactly one cell is found (its
# size inside its interval), an A/A pair gives none, an injected speed-up is "faster" and exit 0,
# cells only in A or only in B are listed, exit statuses 0/1/2, different machines said loudly,
# the JSON parsed and checked against the CSV, outputs identical on a second run.
# Usage: SCHEMA=harness/schema.sql COMPARE=build/bin/compare sh tests/compare/compare.sh WORKDIR
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
# adds microbench/alloc-fixed-256K.
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
       (f.base * f.factor / 1000 + 200000 * ((r.round * $k) % 12)) * CASE WHEN r.round = 0 THEN 10 ELSE 1 END,
       f.base * f.factor / 1000, 1000000, 5000
FROM f, r;"
    } | sqlite3 "$d/results.db" || { echo "cannot build $d"; exit 1; }
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
check() {
    python3 - "$W/$1" "$2" "$3" "$4" <<'PY'
import csv, json, sys, math
d, want_slower, want_faster, want_same = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
j = json.load(open(d + "/compare.json"))
rows = list(csv.DictReader(open(d + "/compare.csv")))
bad = []
if len(rows) != len(j["cells"]):
    bad.append("csv has %d rows, json %d cells" % (len(rows), len(j["cells"])))
for r, c in zip(rows, j["cells"]):
    for k, v in r.items():
        jv = c[k]
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
if n["compared"] != len(rows): bad.append("compared %d of %d cells" % (n["compared"], len(rows)))
for c in j["cells"]:
    if c["verdict"] in ("slower", "faster"):
        if not (c["mw_p_adjusted"] <= 0.05): bad.append("%s: adjusted p %r" % (c["label"], c["mw_p_adjusted"]))
        if not (c["ratio_lo"] <= c["ratio"] <= c["ratio_hi"]): bad.append("%s: ratio outside its interval" % c["label"])
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
mk "$W/A2" 7 fixture-host rev-a
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
grep -q "None\." "$W/aa/compare.md" && ok "A/A: no metadata differs" || fail "A/A: metadata differences reported"

# 3. A speed-up is not a regression: exit 0, one cell faster.
run fast "$W/A" "$W/FAST"
[ "$(rc fast)" = 0 ] && ok "speed-up: exit 0" || fail "speed-up: exit $(rc fast), expected 0"
check fast "" microbench/time-wall-1000 7 && ok "speed-up: exactly that cell faster" || fail "speed-up: verdicts"

# 4. Mismatched plans: listed, the rest compared.
run mis "$W/A" "$W/MIS"
[ "$(rc mis)" = 0 ] && ok "mismatched cells: exit 0" || fail "mismatched cells: exit $(rc mis)"
check mis "" "" 7 && ok "mismatched cells: 7 compared, all same" || fail "mismatched cells: verdicts"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["only_in_a"] == ["microbench/alloc-fixed-1M"] and j["only_in_b"] == ["microbench/alloc-fixed-256K"] else 1)
' "$W/mis/compare.json" && ok "mismatched cells: only_in_a and only_in_b exact" || fail "mismatched cells: lists"
grep -q "only in A: microbench/alloc-fixed-1M" "$W/mis/compare.md" && grep -q "only in B: microbench/alloc-fixed-256K" "$W/mis/compare.md" \
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

# 9. Bad input: exit 2 with a message naming the thing.
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
mk "$W/DISJOINT" 5 fixture-host rev-a gcbench/baseline 1000
sqlite3 "$W/DISJOINT/results.db" "UPDATE cells SET label = 'x/' || label;"
expect2 "no cell in common" "$W/A" "$W/DISJOINT"
grep -q "no cell in common" "$W/bad.err" || fail "no cell in common: message"

echo "$fails failed"
[ $fails -eq 0 ]
