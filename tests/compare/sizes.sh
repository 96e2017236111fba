#!/bin/sh
# sizes.sh - build/bin/compare on sweeps that measured different work or differ in long metadata
# (make test-compare-sizes; docs/STATISTICS.md, "Comparing two sweeps"):
#  1. B's cells at other workload sizes than A's: exit 2, the message names the first cell and its
#     two sizes and tells the user to rerun with --sizes-from; nothing written under --out;
#     --allow-different-sizes compares them (exit 0 on an A/A pair) with the note in the cell;
#  2. two config values alike in their first 100 bytes: compare.md shows the part that differs;
#  3. a carriage return in a metadata value: compare.json writes it \r (contracts/ct_json.h).
# Usage: SCHEMA=contracts/schema.sql COMPARE=build/bin/compare sh tests/compare/sizes.sh WORKDIR
set -u
W=${1:?work directory}
: "${SCHEMA:?}" "${COMPARE:?}"
rm -rf "$W" && mkdir -p "$W"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
C="--quiet --resamples 1000"
mkdir -p "$W/a" "$W/b" "$W/c"
python3 tests/compare/mkblocked.py "$SCHEMA" "$W/a/results.db" 1 --rounds 6 &&
    python3 tests/compare/mkblocked.py "$SCHEMA" "$W/b/results.db" 1 --rounds 6 &&
    python3 tests/compare/mkblocked.py "$SCHEMA" "$W/c/results.db" 1 --rounds 6 || { echo "cannot build the sweeps"; exit 1; }
sqlite3 "$W/b/results.db" "UPDATE cells SET size = 40 WHERE workload = 'microbench'" || exit 1

# ---- 1. different sizes ---------------------------------------------------------------
"$COMPARE" $C --out "$W/out" "$W/a" "$W/b" > "$W/stdout" 2> "$W/err"; rc=$?
want="compare: 4 cells ran at different workload sizes in A and B (first microbench/baseline: size 50 in A, 40 in B): they measured different work, so their times do not compare. Rerun B with A's sizes (build/bin/sweep --sizes-from $W/a ...), or pass --allow-different-sizes to compare them anyway (each such cell's note says so)"
[ $rc -eq 2 ] && [ "$(cat "$W/err")" = "$want" ] && ok "different sizes refused: exit 2, the cell and --sizes-from named" ||
    fail "different sizes: exit $rc: $(cat "$W/err")"
[ ! -e "$W/out" ] && ok "nothing written" || fail "--out written: $(ls "$W/out")"
"$COMPARE" $C --allow-different-sizes --out "$W/out" "$W/a" "$W/b" > /dev/null 2> "$W/err"; rc=$?
[ $rc -eq 0 ] && grep -q "workload size differs: 50 in A, 40 in B" "$W/out/compare.md" &&
    ok "--allow-different-sizes: compared, the note in the cell" || fail "--allow-different-sizes: exit $rc: $(cat "$W/err")"
"$COMPARE" $C "$W/a" "$W/c" > /dev/null 2> "$W/err"; rc=$?
[ $rc -eq 0 ] && ok "same sizes: exit 0" || fail "same sizes: exit $rc: $(cat "$W/err")"

# ---- 2. long metadata that differs late -----------------------------------------------
common=$(printf 'x%.0s' $(seq 1 150))
sqlite3 "$W/a/results.db" "INSERT OR REPLACE INTO meta(key, value) VALUES ('config', '${common}runs = 10')" &&
    sqlite3 "$W/c/results.db" "INSERT OR REPLACE INTO meta(key, value) VALUES ('config', '${common}runs = 30')" || exit 1
"$COMPARE" $C "$W/a" "$W/c" > "$W/md" 2> "$W/err"; rc=$?
row=$(grep '^| \*\*config\*\* | ' "$W/md")
tail23=$(printf "x%.0s" $(seq 1 23)) # 30 bytes before the first difference ("1" against "3"): "runs = " and 23 x
[ $rc -eq 0 ] && [ "$row" = "| **config** | ...${tail23}runs = 10 | ...${tail23}runs = 30 |" ] &&
    ok "long metadata: the differing part shown" || fail "long metadata: exit $rc, row: $row"

# ---- 3. a carriage return in metadata: compare.json escapes it as \r (the shared ct_json_str) --
sqlite3 "$W/c/results.db" "INSERT OR REPLACE INTO meta(key, value) VALUES ('host', 'node' || char(13) || 'x')" || exit 1
"$COMPARE" $C --out "$W/cr" "$W/a" "$W/c" > /dev/null 2> "$W/err"
grep -qF '"b": "node\rx"' "$W/cr/compare.json" && ok 'compare.json: a carriage return written as backslash r' ||
    fail "compare.json: $(grep -F '"node' "$W/cr/compare.json")"

echo "sizes: $fails failed"
[ $fails -eq 0 ]
