#!/bin/sh
# summary_json.sh - analyze's summary.json against its summary.csv on the small fixture sweep
# (tests/stats/fixtures/small.sql on the results database schema $SCHEMA): the same columns in
# the same order, the same rows, every field equal (numbers as numbers with the CSV's digits,
# empty number fields null; text as in the CSV but for the commas and line breaks the CSV
# replaces), a unit for every number column, the seed, resamples and confidence of the CSV's
# comment line.
# Usage: SCHEMA=... ANALYZE=build/bin/analyze FIXTURE=tests/stats/fixtures/small.sql sh tests/compare/summary_json.sh WORKDIR
set -u
W=${1:?work directory}
: "${SCHEMA:?}" "${ANALYZE:?}" "${FIXTURE:?}"
rm -rf "$W" && mkdir -p "$W"
cat "$SCHEMA" "$FIXTURE" | sqlite3 "$W/results.db" || exit 1
"$ANALYZE" --quiet --resamples 1000 "$W" || { echo "analyze failed"; exit 1; }
python3 - "$W" <<'PY'
import json, sys
d = sys.argv[1]
lines = open(d + "/summary.csv").read().split("\n")
comment, header, rows = lines[0], lines[1].split(","), [l.split(",") for l in lines[2:] if l]
j = json.load(open(d + "/summary.json"))
bad = []
want = "# analyze seed=%d resamples=%d confidence=%g" % (j["seed"], j["resamples"], j["confidence"])
if want != comment: bad.append("seed/resamples/confidence %r vs the CSV's %r" % (want, comment))
names = [c["name"] for c in j["columns"]]
if names != header: bad.append("columns differ: %r" % sorted(set(names) ^ set(header)))
if len(j["cells"]) != len(rows) or len(rows) < 8: bad.append("%d cells, %d rows" % (len(j["cells"]), len(rows)))
types = {c["name"]: c for c in j["columns"]}
for r, c in zip(rows, j["cells"]):
    if list(c.keys()) != header: bad.append("cell keys differ from the header")
    for k, v in zip(header, r):
        x = c[k]
        if v == "" and types[k]["type"] == "number":
            if x is not None: bad.append("%s %s: empty in CSV, %r in JSON" % (r[1], k, x))
        elif types[k]["type"] == "number":
            if not isinstance(x, (int, float)) or isinstance(x, bool) or float(v) != x:
                bad.append("%s %s: %s in CSV, %r in JSON" % (r[1], k, v, x))
        elif x.replace(",", ";").replace("\n", " ").replace("\r", " ") != v:
            bad.append("%s %s: %r in CSV, %r in JSON" % (r[1], k, v, x))
numeric = [c["name"] for c in j["columns"] if c["type"] == "number"]
nounit = [n for n in numeric if not types[n]["unit"]]
if nounit: bad.append("number columns without a unit: %s" % nounit)
for must in ("wall_median_ns", "overhead", "overhead_lo", "mw_p", "alloc_sps", "runs"):
    if types.get(must, {}).get("type") != "number": bad.append("%s is not a number column" % must)
if types["wall_median_ns"]["unit"] != "ns" or types["alloc_sps"]["unit"] != "samples/s":
    bad.append("units: %r %r" % (types["wall_median_ns"]["unit"], types["alloc_sps"]["unit"]))
print("%d columns (%d numbers), %d cells" % (len(names), len(numeric), len(j["cells"])))
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
