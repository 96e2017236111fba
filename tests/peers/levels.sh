#!/bin/sh
# levels.sh BIN SWEEP ROWS NM - peers-report's columns of levels a sweep did
# not run, on a copy of SWEEP that ran no blocked-design runs (the in-process
# design, or the simulated part alone): each of its ROWS rows says "not
# measured" in the four process-level columns of peers.md (per-sample cost
# and the overheads at 32 KiB, 512 KiB and 4 MiB, each header naming the
# process level) and in NM columns in all (with the in-process pair, or the
# simulated column, when the sweep has no segment series or no simulated
# cells), and peers.csv leaves every process-level field (cost_wall_*,
# cost_cpu_*, overhead_*) empty, with a note saying why.
. tests/peers/lib.sh
BIN=${1:?usage: levels.sh BIN SWEEP ROWS NM}
REF=${2:?usage: levels.sh BIN SWEEP ROWS NM}
ROWS=${3:?usage: levels.sh BIN SWEEP ROWS NM}
NM=${4:?usage: levels.sh BIN SWEEP ROWS NM}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp "$REF/results.db" "$tmp/" || { fail "cannot copy $REF/results.db"; exit 1; }
"$BIN/peers-report" --quiet "$tmp" 2>"$tmp/err" || { fail "peers-report of $REF: exit $?: $(cat "$tmp/err")"; exit 1; }
n=$(grep -c '| not measured | not measured | not measured | not measured |$' "$tmp/peers.md")
[ "$n" = "$ROWS" ] || fail "peers.md of $REF: $n rows say the process level was not measured, want $ROWS"
k=$(awk -F' [|] ' -v nm="$NM" '/^[|] / && !/^[|] workload / { n = 0; for (i = 1; i <= NF; i++) n += $i == "not measured" || $i == "not measured |"; k += n == nm } END { print k + 0 }' "$tmp/peers.md")
[ "$k" = "$ROWS" ] || fail "peers.md of $REF: $k rows have $NM columns not measured, want $ROWS"
h=$(grep -c '^| workload |.* process level (CPU) | overhead at 32 KiB, process level, % | overhead at 512 KiB, process level, % | overhead at 4 MiB, process level, % |$' "$tmp/peers.md")
[ "$h" = 1 ] || fail "peers.md of $REF: the header does not name the process level of each of its columns"
python3 - "$tmp/peers.csv" "$ROWS" >"$tmp/check" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [] if len(rows) == int(sys.argv[2]) else [f"{len(rows)} rows, want {sys.argv[2]}"]
for r in rows:
    full = [k for k in r if (k.startswith('cost_') or k.startswith('overhead_')) and r[k] != '']
    if full:
        bad.append(f"{r['workload']}: process-level fields {full} filled where the process level was not run")
    if 'process level' not in r['note'] and 'no timed runs' not in r['note']:
        bad.append(f"{r['workload']}: note '{r['note']}' does not say the process level was not run")
print("\n".join(bad) if bad else f"{len(rows)} rows checked")
PY
grep -q ' rows checked$' "$tmp/check" || fail "peers.csv of $REF: $(cat "$tmp/check")"
[ $failures = 0 ] && echo "peers-report of $REF: $(cat "$tmp/check"), the process level not measured"
exit $((failures > 0))
