#!/bin/sh
# levels.sh - the levels of the in-process design end to end: a synthetic
# sweep (tests/inproc/mklevels.py: one deviant process, a warm-up, a cell of
# one process, processes that do not differ) through analyze.  The deviant
# process is flagged and its cell's interval, over processes, is far wider
# than the pooled one; the warm-up's 10 blocks, exactly, are left out; the
# cell of one process says its interval covers its blocks only; the
# processes that do not differ give Cochran's Q = 0; every sampling cell has
# its per-sample cost.
set -u
: "${BIN:?BIN must name the build's bin directory}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/inproc-levels.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else
        fail "$1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
D="$WORK/sweep"
mkdir -p "$D"
{ cat contracts/schema.sql; python3 tests/inproc/mklevels.py; } | sqlite3 -batch "$D/results.db" || fail "building the sweep"
"$BIN/analyze" --quiet --resamples 2000 "$D" 2>"$WORK/err"
expect "analyze exit status" "$?" 0
expect "nothing on stderr" "$(cat "$WORK/err")" ""
CSV="$D/inprocess.csv"
# col NAME LABEL: the field of column NAME in the row of LABEL.
col() { awk -F, -v c="$1" -v l="$2" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next } $2 == l { print $(k[c]) }' "$CSV"; }
expect "the A/A processes do not differ: Q 0, p 1, I^2 0, tau 0, not flagged" \
    "$(for c in level processes q q_p i2 tau heterogeneous; do col $c w/baseline; done | tr '\n' ' ')" "processes 4 0 1 0 0 0 "
expect "the deviant process is flagged" "$(col heterogeneous w/alloc-fixed-32K):$(col level w/alloc-fixed-32K)" "1:processes"
# The Q p-value is its bootstrap one (st_inproc_q_boot_p): the deviant's Q beyond all 2000 resamples' Q*, so
# exactly 1 / 2001 (to the 5 digits inprocess.csv prints; the next possible value is 2 / 2001).
expect "its Q p-value is the smallest its 2000 resamples give" \
    "$(awk -v p="$(col q_p w/alloc-fixed-32K)" 'BEGIN { d = p - 1 / 2001; print (d < 0 ? -d : d) < 1e-4 * p }')" 1
expect "its interval over processes is more than 5 times the pooled one" \
    "$(awk -v a="$(col half_width_pct w/alloc-fixed-32K)" -v b="$(col pooled_half_width_pct w/alloc-fixed-32K)" \
    'BEGIN { print (a > 5 * b) }')" 1
expect "it covers the mean of the processes' offsets, 0.0325 over the A/A's ratio; the pooled one does not" \
    "$(awk -v lo="$(col ratio_lo w/alloc-fixed-32K)" -v hi="$(col ratio_hi w/alloc-fixed-32K)" \
    -v plo="$(col pooled_lo w/alloc-fixed-32K)" -v phi="$(col pooled_hi w/alloc-fixed-32K)" -v aa="$(col ratio w/baseline)" \
    'BEGIN { t = aa * exp(0.0325); print (lo < t && t < hi) ":" (plo < t && t < phi) }')" "1:0"
expect "the warm-up: one process steady after it, its 10 blocks left out" \
    "$(for c in steady_after dropped_blocks kept_blocks no_steady untested; do col $c w/alloc-fixed-1M; done | tr '\n' ' ')" \
    "1 10 230 0 0 "
expect "one process: blocks only" "$(col level w/time-wall-1000):$(col processes w/time-wall-1000):$(col q w/time-wall-1000)" \
    "blocks:1:"
expect "every sampling cell has its per-sample cost with an interval" \
    "$(awk -F, 'NR > 1 && $3 != "baseline" && $15 != "" && $16 != "" && $17 != ""' "$CSV" | wc -l)" 3
MD="$D/summary.md"
expect "summary.md: the flag on the deviant cell's row" "$(grep -c '^| w | w/alloc-fixed-32K | thread | 240 (240) | 4 | processes | .* | \*\*HET\*\* ' "$MD")" 1
expect "summary.md: the cell of one process" "$(grep -c '^| w | w/time-wall-1000 | thread | 60 (60) | 1 | blocks | .* | one process: blocks only |' "$MD")" 1
expect "summary.md: the steady-state counts" \
    "$(grep -c '^Steady state .*: 13 processes, 12 flat, 1 steady after a warm-up (changepoints in their first quarter only; 10 of 780 blocks left out before it), 0 with \*\*no steady state\*\*' "$MD")" 1
expect "summary.md: the heterogeneity counts" \
    "$(grep -c '^Heterogeneity between processes (Cochran.s Q, p < 0.05): 1 of 3 cells with a test .*; on the A/A rows 0 of 1\.$' "$MD")" 1
expect "plot data: the level of every row" "$(awk 'NR > 1 && NF { print $NF }' "$D/plotdata/inprocess.dat" | tr '\n' ' ')" \
    "processes processes processes blocks "
if [ "$FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
echo "$FAILS checks failed"
exit 1
