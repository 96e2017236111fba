#!/bin/sh
# plausible.sh BIN - analyze's implausible-count warning in the in-process
# design (stats/st_peers.h): a run samples only in its B segments, so its
# samples are judged against its sampled segments' bytes over the period,
# not against all it allocated.  On a copy of results/reference-peers-
# inprocess (V8's and HotSpot's samples there agree with their sampled
# segments' bytes / period within 1.2 sd, while they are 2.3-2.6 times fewer
# than bytes_allocated / period: B segments of a costly sampler allocate
# less per ms of CPU than A segments): no warning; with one cell's run
# counts cut to a quarter: that cell's warning, naming those bytes.
. tests/peers/lib.sh
BIN=${1:?usage: plausible.sh BIN}
REF=results/reference-peers-inprocess
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp "$REF/results.db" "$tmp/" || { fail "cannot copy $REF/results.db"; exit 1; }

"$BIN/analyze" "$tmp" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || fail "analyze $REF: exit $rc: $(tail -3 "$tmp/err")"
n=$(grep -c 'samples per run where' "$tmp/err")
[ "$n" = 0 ] || fail "analyze $REF: $n implausible-count warnings (expected none): $(grep 'samples per run where' "$tmp/err")"
n=$(grep -c 'Implausible sample counts' "$tmp/summary.md")
[ "$n" = 0 ] || fail "$REF's summary.md: an implausible-count section (expected none)"

# gcbench-v8 at 32K: runs 25, 42, 75 took 14170, 13705, 13564 samples; their
# sampled segments' bytes / period are 14150, 13621, 13703 (median 13703).
sqlite3 "$tmp/results.db" "UPDATE run_stats SET value = CAST(value AS INTEGER) / 4 WHERE key = 'alloc_samples'
    AND run_id IN (SELECT run_id FROM runs JOIN cells USING (cell_id) WHERE label = 'gcbench-v8/alloc-poisson-32K')" ||
    fail "cannot edit the copy's results.db"
"$BIN/analyze" "$tmp" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || fail "analyze of the edited copy: exit $rc: $(tail -3 "$tmp/err")"
got=$(grep 'samples per run where' "$tmp/err")
want="analyze: warning: gcbench-v8/alloc-poisson-32K (system v8): 3426 samples per run where the sampled segments' bytes / period is 13703 (4 times too few): a count that misses samples makes the per-sample cost far too large (summary.md)"
[ "$got" = "$want" ] || fail "the edited copy's warnings: got '$got', expected '$want'"
got=$(grep -c "^- gcbench-v8/alloc-poisson-32K (system v8): 3426 samples per run where the sampled segments' bytes / period is 13703 (4 times too few)$" "$tmp/summary.md")
[ "$got" = 1 ] || fail "the edited copy's summary.md does not list gcbench-v8/alloc-poisson-32K's count once"
[ $failures = 0 ] && echo "implausible counts in the in-process design: all checks passed"
exit $((failures > 0))
