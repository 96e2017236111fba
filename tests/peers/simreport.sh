#!/bin/sh
# simreport.sh BIN [SWEEP] - peers-report on a sweep of the simulated part
# alone (build/bin/sweep --backends sim; default results/reference-peers-sim):
# one row per workload with simulated cells, exact exactly when its cells'
# runs repeat every count, its
# instructions per sample and fixed cost equal to a least-squares fit made
# here from results.db (each ok run's sim::Ir on its alloc_samples, the
# baseline's runs at 0; fixed = intercept - the baseline's median; none
# for a workload with one allocation cell, a partial sweep's, or whose
# cells took no sample), and the
# note that the sweep has no timed runs; every row of peers.csv as many
# fields as its header (a row without in-process estimates had one more).
. tests/peers/lib.sh
BIN=${1:?usage: simreport.sh BIN [SWEEP]}
REF=${2:-results/reference-peers-sim}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp "$REF/results.db" "$tmp/" || { fail "cannot copy $REF/results.db"; exit 1; }
"$BIN/peers-report" --quiet "$tmp" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || fail "peers-report of $REF: exit $rc: $(cat "$tmp/err")"
[ -s "$tmp/peers.csv" ] || { fail "peers-report of $REF wrote no peers.csv"; exit 1; }
python3 - "$tmp/results.db" "$tmp/peers.csv" >"$tmp/check" 2>&1 <<'PY'
import csv, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
runs = {}
cells = {}
for w, kind, ir, samp, cid in db.execute("""
    SELECT c.workload, c.kind, k.raw, s.value, c.cell_id FROM runs r JOIN cells c USING (cell_id)
    JOIN run_counters k ON k.run_id = r.run_id AND k.event = 'sim::Ir'
    LEFT JOIN run_stats s ON s.run_id = r.run_id AND s.key = 'alloc_samples'
    WHERE c.backend = 'sim' AND r.status = 'ok' AND c.kind IN ('baseline', 'alloc')"""):
    runs.setdefault(w, []).append((kind, int(ir), 0 if kind == 'baseline' else int(samp)))
    if kind == 'alloc':
        cells.setdefault(w, set()).add(cid)
runs = {w: rs for w, rs in runs.items() if any(k == 'alloc' for k, _, _ in rs)}
rows = {r['workload']: r for r in csv.DictReader(open(sys.argv[2]))}
bad = []
table = list(csv.reader(open(sys.argv[2])))
for line in table[1:]:
    if len(line) != len(table[0]):
        bad.append(f"peers.csv: the row of {line[2]} has {len(line)} fields, the header {len(table[0])}")
if sorted(rows) != sorted(runs):
    bad.append(f"rows {sorted(rows)} where the simulated workloads are {sorted(runs)}")
for w, rs in runs.items():
    r = rows.get(w)
    if r is None:
        continue
    if len(cells[w]) < 2:  # one allocation cell cannot tell the fixed cost from the slope: none
        if r['sim_ir_per_sample'] or r['sim_fixed_ir']:
            bad.append(f"{w}: one allocation cell, yet sim_ir_per_sample '{r['sim_ir_per_sample']}'")
        continue
    xs = [x for _, _, x in rs]; ys = [y for _, y, _ in rs]
    if not any(xs):  # no allocation cell took a sample: no slope (gcbench-hotspot at --size 1)
        if r['sim_ir_per_sample'] or r['sim_fixed_ir']:
            bad.append(f"{w}: no samples in any cell, yet sim_ir_per_sample '{r['sim_ir_per_sample']}'")
        continue
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    fixed = my - b * mx - statistics.median([y for k, y, _ in rs if k == 'baseline'])
    if abs(float(r['sim_ir_per_sample']) - b) > 0.05 + 1e-9 * abs(b):
        bad.append(f"{w}: sim_ir_per_sample {r['sim_ir_per_sample']}, the fit here {b:.2f}")
    if abs(float(r['sim_fixed_ir']) - fixed) > 0.5 + 1e-9 * abs(fixed):
        bad.append(f"{w}: sim_fixed_ir {r['sim_fixed_ir']}, the fit here {fixed:.1f}")
    counts = {}
    for cid, ev, raw in db.execute("""SELECT r.cell_id, k.event, k.raw FROM runs r JOIN cells c USING (cell_id)
            JOIN run_counters k ON k.run_id = r.run_id WHERE c.workload = ? AND c.backend = 'sim' AND r.status = 'ok'
            AND c.kind IN ('baseline', 'alloc') AND k.event LIKE 'sim::%'""", (w,)):
        counts.setdefault((cid, ev), set()).add(raw)
    want = 'exact' if all(len(v) == 1 for v in counts.values()) else 'not repeated'
    if r['sim_exact'] != want:
        bad.append(f"{w}: sim_exact '{r['sim_exact']}', where its cells' runs say '{want}'")
    if 'no timed runs' not in r['note']:
        bad.append(f"{w}: note '{r['note']}' does not say the sweep has no timed runs")
print("\n".join(bad) if bad else f"{len(runs)} rows checked")
PY
grep -q ' rows checked$' "$tmp/check" || fail "peers.csv of $REF: $(cat "$tmp/check")"
n=$(grep -c '(exact; fixed ' "$tmp/peers.md")
want=$(python3 -c 'import csv, sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["sim_ir_per_sample"] and r["sim_exact"] == "exact"))' "$tmp/peers.csv")
[ "$n" = "$want" ] || fail "peers.md: $n rows say exact, peers.csv has $want exact rows"
[ $failures = 0 ] && echo "peers-report of the simulated part alone: $(cat "$tmp/check")"
exit $((failures > 0))
