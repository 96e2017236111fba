#!/bin/sh
# cmdparts.sh - command workloads in the in-process design and in the
# simulated part, end to end, on a real runtime that is not freecheck's
# (tests/harness/tinypeer.c: binarytrees on glibc's malloc with a sampler
# of its own), beside freecheck's own binarytrees:
#  - a system that does not declare inprocess=yes gets no in-process cells
#    (not planned, with the reason), its simulated cells are planned;
#  - the in-process runs get the system's in-process template (its sampler
#    starts switched off: the peer refuses the run otherwise) and segment
#    length, their series are judged by the contract (a series naming
#    another system fails every run with the reason), and stored with the
#    system, the CPU clock and unmeasured fields as NULL;
#  - the simulated runs, and only they, get the system's determinism
#    settings (the peer refuses the run otherwise), and repeat every count;
#  - analyze: the in-process estimates with their CPU clock, "not counted"
#    for a writer without a count, the simulated cells; peers-report: the
#    in-process cost, the exact instructions per sample;
#  - analyze warns when a system's sample count is implausible against
#    bytes / period (a blocked sweep of a stand-in that reports 1/4000 of
#    its samples, beside one that counts them all).
. tests/harness/lib.sh
: "${BIN:?BIN must name the build's bin directory}"
: "${ANALYZE:?ANALYZE must name build/bin/analyze}"
: "${PEERS_REPORT:?PEERS_REPORT must name build/bin/peers-report}"
TINY=$FAKE_BIN/tinypeer
PEER="$(pwd)/tests/harness/fakepeer.sh"
[ -x "$TINY" ] || { fail "$TINY is not built"; finish; }
# csvcols FILE COL...: the named columns of every row of a CSV file (RFC 4180), separated by |.
csvcols() {
    python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows: print("|".join(r[c] for c in sys.argv[2:]))' "$@"
}

IN="TINYPEER_SAMPLE_PERIOD={P} inprocess-alloc-env=TINYPEER_ACTIVE=0"
NC="TINYPEER_NOCOUNT=1"
SYS="TINYPEER_SYSTEM=tinync"
cat > "$WORK/parts.list" <<LIST
system tiny site="a counter in its malloc wrapper" modes=poisson alloc-env=TINYPEER_SAMPLE_PERIOD={P} off-env=TINYPEER_SAMPLE_PERIOD=0 inprocess=yes inprocess-alloc-env=$IN segment=2ms sim-env=TINYPEER_DETERMINISTIC=1
system tinync site=nowhere modes=poisson alloc-env=TINYPEER_SAMPLE_PERIOD={P} alloc-env=$NC alloc-env=$SYS off-env=TINYPEER_SAMPLE_PERIOD=0 off-env=$NC off-env=$SYS inprocess=yes inprocess-alloc-env=$IN inprocess-alloc-env=$NC inprocess-alloc-env=$SYS segment=2ms sim-env=TINYPEER_DETERMINISTIC=1
system liar site=nowhere modes=poisson alloc-env=TINYPEER_SAMPLE_PERIOD={P} off-env=TINYPEER_SAMPLE_PERIOD=0 inprocess=yes inprocess-alloc-env=$IN segment=2ms sim-env=TINYPEER_DETERMINISTIC=1
command bt-tiny system=tiny check=self -- $TINY --size {size} --depth 10
command bt-tinync system=tinync check=self -- $TINY --size {size} --depth 10
command bt-liar system=liar check=self -- $TINY --size {size} --depth 10
binarytrees
LIST
# Small runs: freecheck's binarytrees and the tiny peer (depth 10) about 0.1-0.3 s of CPU (15-60 segments); under
# valgrind a tenth of that.
COMMON="--bin-dir $BIN --list $WORK/parts.list --design inprocess --modes poisson --periods 4K,32K --time-hz none
    --runs 2 --warmup 0 --size 256 --size binarytrees=4 --sim-size 4 --sim-runs 2 --seed 5 --no-progress"

# A system without inprocess=yes: no in-process cells, its simulated ones planned.
{ cat "$WORK/parts.list"; echo "system envsys modes=poisson alloc-env=FAKE_CONF=lg_prof_sample:{log2P} off-env=FAKE_CONF=off"
  echo "command envpeer system=envsys check=self -- $PEER --size {size}"; } > "$WORK/plan.list"
"$SWEEP" $COMMON --backends native,sim --list "$WORK/plan.list" --plan >"$WORK/plan" 2>&1
expect "plan: exit 0" "$?" 0
why="its system does not declare that its programs speak the in-process protocol (inprocess=yes on its system line, docs/WORKLOADS.md): in the in-process design they would write no segment series"
expect "plan: the in-process cells of a system without the protocol are not planned, with the reason" \
    "$(grep '^not planned envpeer/' "$WORK/plan" | sort)" \
"not planned envpeer/alloc-poisson-32K: $why
not planned envpeer/alloc-poisson-4K: $why
not planned envpeer/baseline: $why"
expect "plan: its simulated cells are planned" "$(grep -c '^cell [0-9]* envpeer/sim/' "$WORK/plan")" 3

# The in-process part: freecheck's binarytrees and the tiny peer's systems.
mkdir -p "$WORK/tmp"
"$SWEEP" $COMMON --backends native --out "$WORK/inproc" --tmp "$WORK/tmp" >"$WORK/out" 2>"$WORK/err"
expect "in-process sweep: exit 3 (the series of bt-liar names another system)" "$?" 3
DB="$WORK/inproc/latest/results.db"
[ -f "$DB" ] || { fail "no results.db"; cat "$WORK/err"; finish; }
expect "in-process runs: 12 cells, twice each" "$(q "$DB" "SELECT count(*) FROM runs")" 24
expect "bt-liar's runs fail: its series names system tiny" \
    "$(q "$DB" "SELECT count(*), min(r.failure) = max(r.failure), min(r.failure) FROM runs r JOIN cells c USING(cell_id)
        WHERE c.workload = 'bt-liar' AND r.status = 'failed'")" \
    "6|1|the segment series (SGC_ALT_OUT) breaks the contract of docs/FORMATS.md: system 'tiny', expected liar"
expect "every other run ok (the alloc runs got the in-process template: the peer refuses them otherwise)" \
    "$(q "$DB" "SELECT count(*), sum(r.status = 'ok') FROM runs r JOIN cells c USING(cell_id) WHERE c.workload != 'bt-liar'")" \
    "18|18"
OKSEG="FROM segments s JOIN runs r USING(run_id) JOIN cells c USING(cell_id) WHERE r.status = 'ok'"
expect "stored segments: system and CPU clock of each writer" \
    "$(q "$DB" "SELECT c.workload, s.system, s.cpu_clock, count(DISTINCT s.run_id) $OKSEG GROUP BY 1, 2, 3 ORDER BY 1")" \
"binarytrees|freecheck|thread|6
bt-tiny|tiny|thread|6
bt-tinync|tinync|thread|6"
expect "unmeasured fields are NULL: the tiny driver's alloc_points, and bt-tinync's samples" \
    "$(q "$DB" "SELECT c.workload, sum(s.alloc_points IS NULL), sum(s.alloc_samples IS NULL), count(*) $OKSEG
        GROUP BY 1 ORDER BY 1" |
        awk -F'|' '{ print $1, ($2 == $4 ? "all" : $2 == 0 ? "none" : "some"), ($3 == $4 ? "all" : $3 == 0 ? "none" : "some") }')" \
"binarytrees none none
bt-tiny all none
bt-tinync all all"
expect "every ok run's segments add up to its record's bytes" \
    "$(q "$DB" "SELECT count(*) FROM runs r WHERE r.status = 'ok'
        AND (SELECT sum(bytes) FROM segments s WHERE s.run_id = r.run_id)
          = (SELECT CAST(value AS INTEGER) FROM run_stats t WHERE t.run_id = r.run_id AND t.key = 'bytes_allocated')")" 18
expect "the system's segment length (2ms) for its segments, the default (5ms) for freecheck's" \
    "$(q "$DB" "SELECT c.workload = 'binarytrees', min(s.cpu_ns) >= 2000000, min(s.cpu_ns) >= 5000000 $OKSEG
        AND s.end_ != 'exit' GROUP BY 1 ORDER BY 1")" \
"0|1|0
1|1|1"
D=$WORK/inproc/latest
"$ANALYZE" --quiet "$D" >/dev/null 2>"$WORK/an.err"
expect "analyze: exit 0" "$?" 0
expect "inprocess.csv: CPU clock and whether samples were counted, per cell" \
    "$(csvcols "$D/inprocess.csv" kind blocks label cpu_clock samples cost_ns |
        awk -F'|' '$1 == "alloc" && $2 > 0 { print $3, $4, $5, ($6 == "" ? "no-cost" : "cost") }' | sort)" \
"binarytrees/alloc-poisson-32K thread counted cost
binarytrees/alloc-poisson-4K thread counted cost
bt-tiny/alloc-poisson-32K thread counted cost
bt-tiny/alloc-poisson-4K thread counted cost
bt-tinync/alloc-poisson-32K thread not counted no-cost
bt-tinync/alloc-poisson-4K thread not counted no-cost"
expect "summary.md: the writer without a count gets the ratio alone" \
    "$(grep -c '^| bt-tinync | bt-tinync/alloc-poisson-[0-9]*K | thread | .* | not counted | not counted | not counted |$' "$D/summary.md")" 2

# The simulated part: the tiny peer's systems.
grep -v '^command bt-liar\|^binarytrees' "$WORK/parts.list" > "$WORK/sim.list"
"$SWEEP" --bin-dir "$BIN" --list "$WORK/sim.list" --modes poisson --periods 4K,32K --time-hz none --runs 1 --warmup 0 \
    --size 64 --sim-size 4 --sim-runs 2 --seed 5 --no-progress --backends native,sim --out "$WORK/sim" \
    --tmp "$WORK/tmp" >"$WORK/out" 2>"$WORK/err"
expect "sweep with the simulated part: exit 0 (the simulated runs got sim-env and the timed ones not: the peer refuses them otherwise)" "$?" 0
S=$WORK/sim/latest
expect "runs: 6 timed cells, once each in blocks, and 6 simulated, twice each; all ok" \
    "$(q "$S/results.db" "SELECT c.backend, count(*), sum(r.status = 'ok') FROM runs r JOIN cells c USING(cell_id) GROUP BY 1 ORDER BY 1")" \
"native|12|12
sim|12|12"
expect "simulated runs repeat every count" \
    "$(q "$S/results.db" "SELECT count(*) FROM (SELECT r.cell_id, x.event, count(DISTINCT x.raw) AS n FROM run_counters x
        JOIN runs r USING(run_id) JOIN cells c USING(cell_id) WHERE c.backend = 'sim' GROUP BY 1, 2) WHERE n != 1")" 0
"$ANALYZE" --quiet "$S" >/dev/null 2>"$WORK/an.err"
expect "analyze of the simulated sweep: exit 0" "$?" 0
"$PEERS_REPORT" --quiet --inprocess "$D" "$S" 2>"$WORK/pr.err"
expect "peers-report --inprocess: exit 0" "$?" 0
expect "peers.csv: the in-process period and the simulated part per row" \
    "$(csvcols "$S/peers.csv" base system inproc_period inproc_samples sim_cells sim_exact sim_ir_per_sample |
        awk -F'|' '{ print $1 "/" $2, $3, $4, $5, $6, ($7 > 0 ? "ir" : "none") }')" \
"bt/tiny 4096 counted 2 exact ir
bt/tinync 4096 not counted 2 exact none"
# The tiny sampler's own work per sample (hash, gap draw: a few hundred
# instructions) is what its rounds agree on to the instruction.
expect "peers.csv: the tiny peer's instructions per sample, the same in both rounds" \
    "$(csvcols "$S/peers.csv" system sim_ir_round_lo sim_ir_round_hi sim_ir_per_sample |
        awk -F'|' '$1 == "tiny" { print ($2 == $3), ($4 > 50 && $4 < 5000) }')" "1 1"
expect "peers.md: the in-process cost with its interval, and exact instructions" \
    "$(grep -c '^| bt | tiny | a counter in its malloc wrapper | counted | [0-9-]* \[[0-9-]*, [0-9-]*\] at 4K, [0-9]* blocks, thread CPU | [0-9.]*% ([0-9]* blocks) | [0-9,]* (exact; fixed [0-9,-]*) |' "$S/peers.md")" 1
expect "peers.md: the writer without a count" \
    "$(grep -c '^| bt | tinync | nowhere | not counted | not counted (ratio [0-9.]* \[[0-9.]*, [0-9.]*\]) at 4K, [0-9]* blocks, thread CPU | [0-9.]*% ([0-9]* blocks) | not counted |' "$S/peers.md")" 1
"$PEERS_REPORT" --quiet --inprocess "$S" "$S" 2>"$WORK/pr.err"
expect "peers-report --inprocess of a sweep without series: exit 2" "$?" 2
expect "peers-report --inprocess of a sweep without series: message" "$(cat "$WORK/pr.err")" \
    "peers-report: --inprocess $S: that sweep has no segment series (not the in-process design)"

# The implausible-count warning: a blocked sweep of two stand-ins, one that
# reports 1/4000 of its samples.
cat > "$WORK/few.list" <<LIST
system fair modes=poisson alloc-env=FAKE_CONF=lg_prof_sample:{log2P} off-env=FAKE_CONF=off
system undercount modes=poisson alloc-env=FAKE_CONF=lg_prof_sample:{log2P} alloc-env=FAKE_SAMPLES_DIV=4000 off-env=FAKE_CONF=off
command fairpeer system=fair check=self -- $PEER --size {size}
command fewpeer system=undercount check=self -- $PEER --size {size}
LIST
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --list "$WORK/few.list" --modes poisson --periods 4K,64K --time-hz none \
    --runs 2 --warmup 0 --size 64 --seed 3 --no-progress --out "$WORK/few" --tmp "$WORK/tmp" >"$WORK/out" 2>"$WORK/err"
expect "implausible counts: the sweep ran" "$?" 0
"$ANALYZE" "$WORK/few/latest" >/dev/null 2>"$WORK/an.err"
expect "implausible counts: analyze exit 0" "$?" 0
expect "implausible counts: warned on the terminal, for the undercounting system's cells only" \
    "$(grep '^analyze: warning: .* samples per run where bytes / period is' "$WORK/an.err")" \
"analyze: warning: fewpeer/alloc-poisson-4K (system undercount): 4 samples per run where bytes / period is 16384 (4.1e+03 times too few): a count that misses samples makes the per-sample cost far too large (summary.md)
analyze: warning: fewpeer/alloc-poisson-64K (system undercount): 0 samples per run where bytes / period is 1024 (none of them): a count that misses samples makes the per-sample cost far too large (summary.md)"
expect "implausible counts: and in summary.md" \
    "$(grep -c '^- fewpeer/alloc-poisson-\(4K\|64K\) (system undercount): ' "$WORK/few/latest/summary.md") $(grep -c '^\*\*Implausible sample counts: 2 allocation cells\*\*' "$WORK/few/latest/summary.md")" "2 1"
finish
