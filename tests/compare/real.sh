#!/bin/sh
# real.sh - compare on two real sweeps, back to back: A plain, B with the runtime's validation
# spin (every allocation and time sample busy-waits 200 us more of CPU: SGC_SAMPLE_SPIN_NS,
# SGC_SAMPLE_SPIN_CLOCK=cpu).  Each is the quick plan cut down to microbench at --size 60 with
# the periods 32K and 32M (4 cells, 10 rounds, a few seconds).  The overhead gate must exit 1 and
# call microbench/alloc-fixed-32K slower (its ~570 samples cost ~110 ms on a ~9 ms run), call no
# baseline anything but ungated, and flag only sampling cells; with wall and with CPU times.
# Usage: SWEEP=build/bin/sweep COMPARE=build/bin/compare sh tests/compare/real.sh WORKDIR
set -u
W=${1:?work directory}
: "${SWEEP:?}" "${COMPARE:?}"
rm -rf "$W" && mkdir -p "$W/locks"
# A private sweep lock: other sweeps on the machine do not hold this test up.
FREECHECK_LOCK_DIR="$W/locks"
export FREECHECK_LOCK_DIR
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# --timeout 600: the automatic per-run timeout (20 x the calibrated CPU time + 5 s of wall
# time) is calibrated without the spin, which makes B's 32K runs about 13 times longer; on a
# busy machine (load 24) they were killed at 5.4 s.  The timeout only guards against a hang here.
# --runs 10: the verdict "slower" also needs the Mann-Whitney test significant after the
# Benjamini-Hochberg adjustment over the 3 sampling cells; with the quick plan's 5 pairs a cell,
# complete separation gives p = 2/252 = 0.0079, adjusted 0.024, one pair out of order 0.048 and
# two 0.095, so two stalled runs on a busy machine make the wall-time verdict "inconclusive"
# (seen at load 3.5).  With 10 pairs complete separation gives p = 1.1e-5 and it takes 19 pairs out of
# order of the 100 to pass 0.05 adjusted (exact two-sided p, 19: 0.056).
plan="--quick --backends native --no-progress --workloads microbench --periods 32K,32M --size microbench=60 --seed 11
    --runs 10 --timeout 600"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
"$SWEEP" $plan --out "$W/A" >"$W/A.out" 2>&1 || { fail "sweep A: exit $?"; tail -n 5 "$W/A.out"; }
# shellcheck disable=SC2086
"$SWEEP" $plan --env SGC_SAMPLE_SPIN_NS=200000 --env SGC_SAMPLE_SPIN_CLOCK=cpu --out "$W/B" >"$W/B.out" 2>&1 \
    || { fail "sweep B: exit $?"; tail -n 5 "$W/B.out"; }

for t in wall cpu; do
    "$COMPARE" --gate overhead --time "$t" --out "$W/$t" "$W/A/latest" "$W/B/latest" 2>"$W/$t.err"
    rc=$?
    [ $rc = 1 ] && ok "$t time, overhead gate: exit 1" || { fail "$t time, overhead gate: exit $rc, expected 1"; cat "$W/$t.err"; }
    python3 - "$W/$t/compare.json" <<'PY' && ok "$t time: microbench/alloc-fixed-32K slower, only sampling cells slower, baselines ungated" \
        || fail "$t time: verdicts"
import json, sys
j = json.load(open(sys.argv[1]))
v = {c["label"]: c["verdict"] for c in j["cells"]}
kind = {c["label"]: c["kind"] for c in j["cells"]}
bad = []
if len(v) != 4: bad.append("%d cells, expected 4" % len(v))
if v.get("microbench/alloc-fixed-32K") != "slower": bad.append("32K: %r" % v.get("microbench/alloc-fixed-32K"))
if v.get("microbench/baseline") != "ungated": bad.append("baseline: %r" % v.get("microbench/baseline"))
bad += ["%s (%s) slower" % (l, kind[l]) for l in v if v[l] == "slower" and kind[l] == "baseline"]
if j["counts"]["slower"] != sum(x == "slower" for x in v.values()): bad.append("counts %r" % j["counts"])
for c in j["cells"]:
    print(c["label"], c["verdict"], c["a_median_ns"], c["b_median_ns"], c["overhead_change"], c["overhead_change_lo"], c["overhead_change_hi"])
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
    grep -q "REGRESSION microbench/alloc-fixed-32K: overhead change" "$W/$t.err" && ! grep -q "REGRESSION microbench/baseline" "$W/$t.err" \
        && ok "$t time: the regression named on stderr" || fail "$t time: stderr $(cat "$W/$t.err")"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$fails failed"
[ $fails -eq 0 ]
