#!/bin/sh
# check.sh - scripts/replicate-check.py on a fixture whose answer was
# worked by hand (tests/replicates/fixture: 3 replicates, block-level SE
# 0.01 in every replicate; w/alloc-fixed-32K at log-ratios 0, 0.01, 0.03
# with a between-replicate SD of 0; w/time-1000Hz at 0, 0.02, -0.02 with
# 0.02), then end to end on the synthetic replicated sweep of
# tests/stats/mkreplicated.py (where its recomputation must agree with
# analyze's, and must not once analyze's interval is widened), and its
# refusals of bad input (exit 2).
set -u
: "${ANALYZE:?ANALYZE must name the analyze binary}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/replicate-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else
        fail "$1"; echo "  expected: $3"; echo "  actual:   $2"; fi
}
F=tests/replicates/fixture
python3 scripts/replicate-check.py --csv $F/full.csv $F/r0.csv $F/r1.csv $F/r2.csv >"$WORK/out" 2>"$WORK/err"
expect "fixture: exit 0, nothing on stderr" "$?:$(cat "$WORK/err")" "0:"
# Worked by hand.  w/alloc-fixed-32K: z = -0.01, -0.03, -0.02 over sqrt(2)
# x 0.01 (-0.7071, -2.1213, -1.4142); w/alloc-fixed-1M (0.02, 0, 0.01):
# 1.4142, 0.7071, -0.7071; w/other's RMS sqrt(10 / 6) = 1.2910, SD about
# the mean -0.4714 1.3166; inside |diff| <= 1.96 x 0.01: 2 + 4 of 12,
# predicted 2 Phi(1.96 / sqrt(2)) - 1 = 83.42% (equal SEs: whatever tau).
# Out of sample, 32K takes 1M's Paule-Mandel tau (0: its Q 2 at tau 0 is
# its df), 1M takes 32K's (SS 4.6667e-4 / (1e-4 + tau^2) = 2: tau =
# 0.011547), so 1M's z are 0.02, 0.01, -0.01 over 0.021602, RMS over the
# six sqrt(8.2857 / 6) = 1.1751, and all six of 1M's inside 1.96 x
# 0.015275: 8 of 12.  The family's own Paule-Mandel: (4.6667e-4 + 2e-4) /
# (1e-4 + tau^2) = 4, tau = 0.008165.  w/time: two-level SD sqrt(2 x
# 0.01^2 + 2 x 0.02^2) = 0.031623, z = -0.6325, 0.6325, 1.2649, RMS 0.8944,
# SD 0.9661; every diff (0.02, 0.02, 0.04) within 1.96 x sqrt(0.01^2 +
# 0.02^2) = 0.04383: 6 of 6; blocks only z = -1.414, 1.414, 2.828, RMS
# 2.000, none inside 0.0196; its own tau 8e-4 / 2 - 1e-4: 0.017321; no
# other cell in its family, so no out-of-sample figure.  The RMS range
# under the model: sqrt(chi2_df(0.025, 0.975) / df), df = cells x 2:
# w/other's 4 ([0.484419, 11.1433] / 4: [0.35, 1.67]), w/time's 2
# ([0.0506356, 7.37776] / 2: [0.16, 1.92]), both by SciPy's chi2.ppf.
expect "fixture: w/other" "$(grep '^| w/other ' "$WORK/out")" \
    "| w/other | 2 | 6 | 1.291 | no | [0.35, 1.67] | 1.317 | 50.0% | 83.4% | no | 1.291 | 50.0% / 83.4% | 1.175, 66.7% / 83.4% | 0.0000 [0.0000, 0.0500] | 0.0082 | 0.0100 |"
expect "fixture: w/time" "$(grep '^| w/time ' "$WORK/out")" \
    "| w/time | 1 | 3 | 0.894 | yes | [0.16, 1.92] | 0.966 | 100.0% | 83.4% | no | 2.000 | 0.0% / 83.4% | n/a | 0.0200 [0.0050, 0.0600] | 0.0173 | 0.0100 |"
expect "fixture: the time sampler's row" "$(grep -c '^| w/time-signal | 1 | 3 | 0.894 | yes ' "$WORK/out")" 1
expect "fixture: the targets line" "$(grep '^Targets met' "$WORK/out")" \
    "Targets met (analyze's 2 families): z SD within [0.8, 1.2] in 1 of 2; share inside within 3 points of the prediction in 0 of 2; z's RMS inside the range the model gives it in 2 of 2."
expect "fixture: the simulated cell is not compared" "$(grep -c 'sim/' "$WORK/out")" 0
# The shared replicate effect, by hand (and by SciPy's f.sf): w/other's
# deviations over SE 0.01 are (-1.3333, -0.3333, 1.6667) and (1, -1, 0);
# the replicates' means over the cells (-0.1667, -0.6667, 0.8333): MS 2 x
# 1.1667 / 2 = 1.1667; the rest's SS 4.3333 on 2 df, MS 2.1667; F =
# 0.5385, p = P(F(2, 2) > 0.5385) = 1 / 1.5385 = 0.65; the shared SD's
# moments (1.1667e-4 - 2.1667e-4) / 2 < 0: 0; the rest's SD sqrt(2.1667e-4)
# = 0.0147; w/time has one cell: no row.
expect "fixture: the shared effect of w/other" "$(grep '^| shared w/other ' "$WORK/out")" \
    "| shared w/other | 2 | 3 | 0.54 | 0.65 | 0.0000 | 0.0147 | 0.0082 |"
expect "fixture: no shared-effect row for a family of one cell" "$(grep -c '^| shared w/time' "$WORK/out")" 0
cp "$WORK/out" "$WORK/out.fixture"

# End to end: a replicated sweep (8 replicates), analysed whole, then each
# replicate alone by the script; the copies it keeps hold one replicate each.
D="$WORK/rep"
mkdir -p "$D"
{ cat contracts/schema.sql; python3 tests/stats/mkreplicated.py; } | sqlite3 -batch "$D/results.db" || fail "building the sweep"
"$ANALYZE" --quiet --resamples 1000 "$D" 2>"$WORK/err"
expect "analyze exit status" "$?" 0
python3 scripts/replicate-check.py --analyze "$ANALYZE" --resamples 1000 --keep "$WORK/keep" "$D" >"$WORK/out" 2>"$WORK/err"
expect "sweep: exit 0, nothing on stderr" "$?:$(cat "$WORK/err")" "0:"
expect "sweep: 8 replicates" "$(grep -c '^Replicates: 8\.' "$WORK/out")" 1
expect "sweep: each copy holds one replicate's runs" \
    "$(for r in 0 1 2 3 4 5 6 7; do sqlite3 "$WORK/keep/r$r/results.db" "SELECT count(DISTINCT replicate) || '=' || min(replicate) FROM runs WHERE replicate IS NOT NULL"; done | tr '\n' ' ')" \
    "1=0 1=1 1=2 1=3 1=4 1=5 1=6 1=7 "
expect "sweep: its replicates' summaries are over one replicate" \
    "$(awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == "replicates") c = i; next } NR > 2 { print $c }' "$WORK/keep/r3/summary.csv" | sort -u)" 1
expect "sweep: both families compared, with their components" \
    "$(grep -c '^| w/other | 3 | 84 \|^| w/time | 1 | 28 ' "$WORK/out")" 2
# mkreplicated.py's replicates differ by 0.02 beyond blocks of SE about
# 0.0015: the block means' between-replicate variance is far above their SEs'.
expect "sweep: the estimators' line says the replicates differ" \
    "$(sed -n 's/.*their mean SD^2 \/ n: \([0-9.]*\) on average.*/\1/p' "$WORK/out" | awk '{ print ($1 > 20) }')" 1
expect "fixture: no estimators' line without results.db" "$(grep -c '^The estimators' "$WORK/out.fixture")" 0
expect "sweep: this script's Paule-Mandel pool is analyze's (to the printed digit)" \
    "$(grep '^| w/other \|^| w/time ' "$WORK/out" | awk -F'|' '{ split($15, a, " "); gsub(/ /, "", $16); print (a[1] == $16) }' | tr -d '\n')" 11
expect "sweep: the script's recomputation agrees with analyze (no disagreement)" \
    "$(grep -c '^Agreement with analyze (4 cells.*; 0 disagreements\.$' "$WORK/out")" 1
# The within-replicate pattern table on the same sweep against SciPy
# (f_oneway over the 12 rounds: F 1.12, p 0.346; ttest_ind of the blocks
# whose compared run went first against second: difference 0.0901 SDs,
# t 0.921, p 0.358), pasted.
expect "sweep: the within-replicate pattern row is SciPy's" "$(grep '^| w | 384 | ' "$WORK/out")" \
    "| w | 384 | 12 | 1.12 | 0.346 | 0.0901 | 0.92 | 0.358 |"
# mkreplicated.py gives each cell its own replicate deviations: nothing is
# shared (F's p above 0.05, shared SD under a quarter of the cells' 0.02);
# with --shared one sequence (sample SD 0.02) for every cell: F's p below
# 1e-6 and the shared SD 0.02 within 5%.
expect "sweep: nothing shared between the cells' replicate deviations" \
    "$(awk -F'|' '/^\| shared w\/other \| 3 \| 8 \| /{ print ($6 > 0.05) ":" ($7 < 0.005) }' "$WORK/out")" "1:1"
S="$WORK/shared"
mkdir -p "$S"
{ cat contracts/schema.sql; python3 tests/stats/mkreplicated.py --shared; } | sqlite3 -batch "$S/results.db" ||
    fail "building the shared sweep"
"$ANALYZE" --quiet --resamples 1000 "$S" 2>"$WORK/err"
python3 scripts/replicate-check.py --analyze "$ANALYZE" --resamples 1000 "$S" >"$WORK/outs" 2>"$WORK/err"
expect "shared sweep: exit 0; the shared deviation found, its SD 0.02 within 5%" \
    "$?:$(awk -F'|' '/^\| shared w\/other \| 3 \| 8 \| /{ print ($6 < 1e-6) ":" ($7 > 0.019 && $7 < 0.021) }' "$WORK/outs")" "0:1:1"
python3 tests/stats/mkreplicated.py --bad >/dev/null 2>"$WORK/err"
expect "mkreplicated.py refuses an unknown argument" "$?:$(grep -c usage "$WORK/err")" "1:1"

# The per-sample costs over replicates: every timed fit of regress.csv is at
# level replicates, and the script's combination of the replicates' own fits
# (wall and CPU, alloc and time, costs and pairs costs, and the wall-time
# difference: 9 intervals) is analyze's.
expect "sweep: regress.csv's timed fits are over replicates" \
    "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "level") c = i; next } { print $c }' "$D/regress.csv" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" \
    " 4 replicates "
expect "sweep: the per-sample costs over replicates agree with analyze" \
    "$(grep -c '^Agreement with analyze on the per-sample costs (9 intervals .*; 0 disagreements\. ' "$WORK/out")" 1
# mkreplicated.py's replicates differ by 0.02 (of a run's time) beyond their
# blocks, which the pairs cancel and the unpaired fit's run noise hides:
# the pairs' costs differ between replicates far beyond their SEs.
expect "sweep: the replicates' pairs costs differ beyond their SEs" \
    "$(sed -n 's/.*paired_cost \([0-9.]*\) (112 pairs).*/\1/p' "$WORK/out" | awk '{ print ($1 > 5) }')" 1
# The same sweep with one cell's interval over replicates widened by 15% on
# the log scale (as the SE read off the replicates' exact intervals would):
# the script must say so and exit 3.
python3 - "$D/summary.csv" <<'PY'
import csv, math, sys
p = sys.argv[1]
lines = open(p).read().splitlines(keepends=True)
head = [l for l in lines if l.startswith("#")]
rows = list(csv.reader([l for l in lines if not l.startswith("#")]))
c = {k: i for i, k in enumerate(rows[0])}
for r in rows[1:]:
    if r[c["label"]] == "w/alloc-fixed-32K":
        lo, hi = math.log(float(r[c["paired_lo"]])), math.log(float(r[c["paired_hi"]]))
        m, h = (lo + hi) / 2, 1.15 * (hi - lo) / 2
        r[c["paired_lo"]], r[c["paired_hi"]] = f"{math.exp(m - h):.6g}", f"{math.exp(m + h):.6g}"
with open(p, "w", newline="") as f:
    f.writelines(head)
    csv.writer(f, lineterminator="\n").writerows(rows)
PY
python3 scripts/replicate-check.py --analyze "$ANALYZE" --resamples 1000 "$D" >"$WORK/out2" 2>"$WORK/err"
expect "sweep with a widened interval: exit 3, the cell named" \
    "$?:$(grep -c 'disagree on 1 of' "$WORK/err"):$(grep -c '^  disagrees: w/alloc-fixed-32K: ' "$WORK/out2")" "3:1:1"
# And with one fit's cost interval over replicates widened (regress.csv,
# w alloc wall: cost_hi moved up by 15% of the half-width), on a fresh analysis.
"$ANALYZE" --quiet --resamples 1000 "$D" 2>"$WORK/err"
python3 - "$D/regress.csv" <<'PY'
import csv, sys
p = sys.argv[1]
rows = list(csv.reader(open(p)))
c = {k: i for i, k in enumerate(rows[0])}
for r in rows[1:]:
    if r[c["kind"]] == "alloc" and r[c["metric"]] == "wall":
        lo, hi = float(r[c["cost_lo"]]), float(r[c["cost_hi"]])
        r[c["cost_hi"]] = f"{hi + 0.15 * (hi - lo) / 2:.6g}"
with open(p, "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows(rows)
PY
python3 scripts/replicate-check.py --analyze "$ANALYZE" --resamples 1000 "$D" >"$WORK/out3" 2>"$WORK/err"
expect "sweep with a widened cost interval: exit 3, the fit named" \
    "$?:$(grep -c 'disagree on 1 of' "$WORK/err"):$(grep -c '^  disagrees: w/alloc/wall cost: ' "$WORK/out3")" "3:1:1"

# The coverage simulation on the same sweep, small: 2 experiments of each
# family, every cell judged once per experiment (w/other's 3, w/time's 1);
# mkreplicated.py's truth-centred replicates give an interval per cell.
python3 scripts/replicate-check.py --coverage 2 20 "$D" >"$WORK/cov" 2>"$WORK/err"
expect "coverage: exit 0, nothing on stderr" "$?:$(cat "$WORK/err")" "0:"
expect "coverage: judged per family and in all" \
    "$(awk -F'|' '/^\| /{ gsub(/ /, ""); print $2 ":" $3 }' "$WORK/cov" | tr '\n' ' ')" \
    "family:intervals w/other:6 w/time:2 all:8 "
expect "coverage: a column per rule, analyze's first" \
    "$(awk -F'|' '/^\| family/{ gsub(/ /, ""); print $4 ":" $5 ":" $6 ":" $7 ":" $8 ":" $9 ":" NF }' "$WORK/cov")" \
    "analyze:bootstrap-SE:equal-if-0:inverse-variance:df-blocks:t-replicates:10"
# The smoothed bootstrap: the same cells judged, and the header says how the blocks were drawn.
python3 scripts/replicate-check.py --coverage 2 20 --smooth "$D" >"$WORK/covs" 2>"$WORK/err"
expect "smoothed coverage: exit 0, the same cells judged, the header names it" \
    "$?:$(awk -F'|' '/^\| /{ gsub(/ /, ""); print $2 ":" $3 }' "$WORK/covs" | tr '\n' ' '):$(grep -c 'kernel density estimate (--smooth)' "$WORK/covs")" \
    "0:family:intervals w/other:6 w/time:2 all:8 :1"
python3 scripts/replicate-check.py --smooth "$D" >/dev/null 2>"$WORK/err"
expect "--smooth without --coverage: exit 2" "$?:$(grep -c 'go with --coverage' "$WORK/err")" "2:1"
# Three distinct replicates of the eight, each centred and shifted by a
# shared N(0, tau^2) (tau the family's as analyze estimated it, a number):
# the same cells judged, the header says how.
python3 scripts/replicate-check.py --coverage 2 20 --draw 3 --centred family "$D" >"$WORK/covd" 2>"$WORK/err"
expect "coverage, 3 of 8 drawn, centred: exit 0, the same cells judged, the header names both" \
    "$?:$(awk -F'|' '/^\| /{ gsub(/ /, ""); print $2 ":" $3 }' "$WORK/covd" | tr '\n' ' '):$(grep -c '3 distinct replicates of 8 drawn' "$WORK/covd"):$(grep -c 'tau the family SD analyze estimated' "$WORK/covd")" \
    "0:family:intervals w/other:6 w/time:2 all:8 :1:1"
# With truth-centred replicates and no shift (--centred 0) and 3 of the 8
# drawn, every interval of this sweep covers: its blocks' SEs (about
# 0.0015) over 3 replicates against no spread between them.
python3 scripts/replicate-check.py --coverage 3 20 --draw 3 --centred 0 "$D" >"$WORK/cov0" 2>"$WORK/err"
expect "coverage at tau 0, centred: every interval covers" \
    "$?:$(awk -F'|' '/^\| all /{ gsub(/ /, ""); print $3 ":" $4 }' "$WORK/cov0")" "0:12:1.000"
for bad in "--draw 8" "--draw 1" "--draw x" "--centred -1" "--centred nan" "--centred y"; do
    # shellcheck disable=SC2086
    python3 scripts/replicate-check.py --coverage 2 20 $bad "$D" >/dev/null 2>"$WORK/err"
    expect "coverage $bad: exit 2 with the reason" "$?:$(grep -c "^replicate-check: --" "$WORK/err")" "2:1"
done
python3 scripts/replicate-check.py --draw 3 "$D" >/dev/null 2>"$WORK/err"
expect "--draw without --coverage: exit 2" "$?:$(grep -c 'go with --coverage' "$WORK/err")" "2:1"
# The same rules on synthetic families, small: 6 settings of 1 experiment of 8 cells.
python3 scripts/replicate-check.py --coverage-synthetic 1 10 >"$WORK/syn" 2>"$WORK/err"
expect "synthetic coverage: exit 0, 6 settings of 8 intervals" \
    "$?:$(awk -F'|' '/^\| (normal|t3) /{ gsub(/ /, ""); print $2 "/" $3 ":" $4 }' "$WORK/syn" | tr '\n' ' ')" \
    "0:normal/0.0:8 normal/0.01:8 normal/0.03:8 t3/0.0:8 t3/0.01:8 t3/0.03:8 "
python3 scripts/replicate-check.py --coverage 2 "$D" >/dev/null 2>"$WORK/err"
expect "coverage without its resamples: exit 2" "$?:$(grep -c 'not whole numbers\|needs EXPERIMENTS' "$WORK/err")" "2:1"

# The SEs of a median the unpaired bench compares, against SciPy
# (gaussian_kde with Silverman's bandwidth as a factor of the SD, evaluated at
# the median; median_abs_deviation(scale='normal')), pasted: 12 values.
expect "the kernel and MAD SEs of a median are SciPy's (1e-12)" "$(python3 - <<'PY'
import importlib.util
spec = importlib.util.spec_from_file_location("rc", "scripts/replicate-check.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
v = [0.1, 0.3, 0.35, 0.4, 0.42, 0.5, 0.61, 0.9, 1.3, 0.2, 0.45, 0.47]
print(abs(m.median_kernel_se(v) - 0.06300035359581847) < 1e-12, abs(m.median_mad_se(v) - 0.05900470539268385) < 1e-12)
PY
)" "True True"
# The unpaired bench on the synthetic sweep: its 3 compared cells (the
# baseline is not compared with itself), both families, every column a figure.
python3 scripts/replicate-check.py --unpaired-se 3 20 "$D" >"$WORK/up" 2>"$WORK/err"
expect "unpaired SE bench: exit 0, 3 cells of 8 replicates, both families and all, 6 figures a row" \
    "$?:$(grep -c '^The SE of .* 3 cells, 8 replicates, 3 random splits' "$WORK/up"):$(awk -F'|' '/^\| (w\/|all)/{ n = 0; for (i = 3; i < NF; i++) n += ($i ~ /^ [0-9]+\.[0-9][0-9][0-9] $/); print $2 n }' "$WORK/up" | tr -d ' ' | tr '\n' ' ')" \
    "0:1:w/other6 w/time6 all6 "
# Its runs are i.i.d. within a replicate (a uniform slowness and normal
# noise): there the bootstrap SE of a median of 12 is about right, so the
# splits' z RMS is near 1 (1.011 at these seeds; a missing factor or a
# wrong side would move it beyond 0.85-1.15).
expect "unpaired SE bench: the bootstrap's splits z RMS near 1 on i.i.d. runs" \
    "$(awk -F'|' '/^\| all /{ print ($4 > 0.85 && $4 < 1.15) }' "$WORK/up")" 1
python3 scripts/replicate-check.py --unpaired-se 3 "$D" >/dev/null 2>"$WORK/err"
expect "unpaired SE bench without its resamples: exit 2" "$?:$(grep -c 'not whole numbers\|needs SPLITS' "$WORK/err")" "2:1"
python3 scripts/replicate-check.py --unpaired-se 3 20 --coverage 2 20 "$D" >/dev/null 2>"$WORK/err"
expect "unpaired SE bench with --coverage: exit 2" "$?:$(grep -c 'without --coverage' "$WORK/err")" "2:1"

# Bad input: exit 2 with the reason.
python3 scripts/replicate-check.py --csv $F/full.csv $F/r0.csv >/dev/null 2>"$WORK/err"
expect "one replicate: exit 2" "$?:$(grep -c '2 or more replicates' "$WORK/err")" "2:1"
python3 scripts/replicate-check.py --csv $F/full.csv $F/r0.csv "$WORK/none.csv" >/dev/null 2>"$WORK/err"
expect "a missing file: exit 2" "$?:$(grep -c "none.csv: No such file or directory" "$WORK/err")" "2:1"
cut -d, -f1-5 $F/r1.csv >"$WORK/cut.csv"
python3 scripts/replicate-check.py --csv $F/full.csv $F/r0.csv "$WORK/cut.csv" >/dev/null 2>"$WORK/err"
expect "a missing column: exit 2" "$?:$(grep -c "cut.csv: no column paired " "$WORK/err")" "2:1"
python3 scripts/replicate-check.py "$WORK/none" >/dev/null 2>"$WORK/err"
expect "not a sweep: exit 2" "$?:$(grep -c "no results.db" "$WORK/err")" "2:1"
if [ "$FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
echo "$FAILS checks failed"; exit 1
