#!/bin/sh
# replicates.sh - replication as a level: a synthetic replicated sweep in the
# blocked design with a known between-replicate component
# (tests/stats/mkreplicated.py: 8 replicates, SD 0.02 of the log-ratio
# between them, their mean 0.012 above the truth) through analyze.  Every
# cell's interval covers the replicates and the truth; the component is
# recovered (within 10% of 0.02, and 0.02 inside its Q-profile interval);
# the same runs analysed as one replicate (runs.replicate cleared) give
# intervals over blocks only, which miss the truth in every cell.
set -u
: "${ANALYZE:?ANALYZE must name the analyze binary}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stats-replicates.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else
        fail "$1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
D="$WORK/rep"
mkdir -p "$D" "$WORK/pooled"
{ cat contracts/schema.sql; python3 tests/stats/mkreplicated.py; } | sqlite3 -batch "$D/results.db" || fail "building the sweep"
cp "$D/results.db" "$WORK/pooled/results.db"
sqlite3 -batch "$WORK/pooled/results.db" "UPDATE runs SET replicate = NULL" || fail "clearing the replicates"
"$ANALYZE" --quiet --resamples 2000 "$D" 2>"$WORK/err"
expect "analyze exit status" "$?" 0
expect "nothing on stderr" "$(cat "$WORK/err")" ""
"$ANALYZE" --quiet --resamples 2000 "$WORK/pooled" 2>"$WORK/err2"
expect "analyze exit status (one replicate)" "$?" 0
# col DIR NAME LABEL: the field of column NAME in the row of LABEL in DIR/summary.csv.
col() {
    awk -F, -v c="$2" -v l="$3" 'NR == 1 { next } NR == 2 { for (i = 1; i <= NF; i++) k[$i] = i; next }
        $2 == l { print $(k[c]) }' "$1/summary.csv"
}
# The cells and their true log-overheads (mkreplicated.py).
for cm in w/baseline:0 w/alloc-fixed-32K:0.05 w/alloc-fixed-1M:0.01 w/time-wall-1000:0.03; do
    c=${cm%:*} mu=${cm#*:}
    expect "$c: 8 replicates, both levels over them (a baseline has no overhead), random-effects intervals" \
        "$(for x in replicates paired_level overhead_level paired_ci; do col "$D" $x "$c"; done | tr '\n' ' ')" \
        "8 replicates $([ "$c" = w/baseline ] || printf replicates) random-effects "
    expect "$c: the paired interval over replicates covers the truth exp($mu)" \
        "$(awk -v lo="$(col "$D" paired_lo "$c")" -v hi="$(col "$D" paired_hi "$c")" -v m="$mu" \
        'BEGIN { t = exp(m); print (lo < t && t < hi) }')" 1
    expect "$c: the between-replicate SD recovered within 10% of 0.02, and 0.02 in its interval" \
        "$(awk -v t="$(col "$D" rep_paired_tau "$c")" -v lo="$(col "$D" rep_paired_tau_lo "$c")" \
        -v hi="$(col "$D" rep_paired_tau_hi "$c")" 'BEGIN { print (t > 0.018 && t < 0.022) ":" (lo < 0.02 && 0.02 < hi) }')" "1:1"
    expect "$c: the within-replicate error far below it" \
        "$(awk -v w="$(col "$D" rep_paired_within "$c")" 'BEGIN { print (w > 0 && w < 0.003) }')" 1
    expect "$c: as one replicate, the interval covers blocks only and misses the truth" \
        "$(col "$WORK/pooled" replicates "$c"):$(col "$WORK/pooled" paired_level "$c"):$(awk \
        -v lo="$(col "$WORK/pooled" paired_lo "$c")" -v hi="$(col "$WORK/pooled" paired_hi "$c")" -v m="$mu" \
        'BEGIN { t = exp(m); print (lo < t && t < hi) }')" "1:blocks:0"
done
expect "the family of the workload's other cells pools its three cells' components" \
    "$(col "$D" rep_paired_tau_family w/alloc-fixed-32K):$(col "$D" rep_paired_tau_family w/baseline)" \
    "$(col "$D" rep_paired_tau_family w/alloc-fixed-1M):$(col "$D" rep_paired_tau_family w/alloc-fixed-1M)"
expect "summary.md says the sweep's intervals cover 8 replicates" \
    "$(grep -c '^\*\*Levels\.\*\* This sweep holds 8 replicates' "$D/summary.md")" 1
expect "summary.md: a row of components per family" "$(grep -c '^| w/other | 3 | 8 | 0\.0\|^| w/time | 1 | 8 | 0\.0' "$D/summary.md")" 2
expect "one replicate: the levels paragraph says what none of its intervals covers" \
    "$(grep -c '^\*\*Levels\.\*\* Every interval says what varies in it' "$WORK/pooled/summary.md")" 1
if [ "$FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
echo "$FAILS checks failed"
exit 1
