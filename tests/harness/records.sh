#!/bin/sh
# records.sh - every run's stats record judged by the rules every reader
# uses (runtime/sgc_statsrec.h): a stand-in whose record breaks one rule per
# cell (a junk suffix, CRLF line ends, a required key missing, an unknown
# version, a key twice, alloc_samples -5, run_ns -1, more samples than
# sample points) fails exactly those runs, each with its reason, and stores
# none of their keys; the baseline's runs are ok; analyze analyses the sweep
# (it refused it whole before), and refuses an ok run's stored record that
# breaks a rule, naming it, while a failed run's is not judged.
. tests/harness/lib.sh
: "${ANALYZE:?ANALYZE must name the analyze binary}"

"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --workloads fake-badstats --periods 1K,2K,3K,4K,5K,6K,7K,8K \
    --time-hz none --runs 2 --warmup 0 --size 5 --seed 3 --counters none --design independent --no-progress \
    --out "$WORK/res" >"$WORK/out" 2>"$WORK/err"
expect "exit status: complete, with failed runs" "$?" 3
DB="$WORK/res/latest/results.db"
M="the stats record (SGC_STATS) is malformed"
expect "each cell's runs fail with the rule its record breaks" "$(q "$DB" "SELECT c.label, r.status, count(*),
    r.failure FROM runs r JOIN cells c USING(cell_id) GROUP BY c.cell_id, r.status, r.failure ORDER BY c.cell_id")" \
"fake-badstats/baseline|ok|2|
fake-badstats/alloc-fixed-1K|failed|2|$M: line 31: alloc_period = 1024junk: a whole number from 0 to 18446744073709551615, decimal digits only (type U64)
fake-badstats/alloc-fixed-2K|failed|2|$M: line 1: 'sgc-stats 1': it ends with a carriage return (CRLF line ends): a record's lines end with \\n alone
fake-badstats/alloc-fixed-3K|failed|2|$M: no key run_ns: a record of this runtime has every key of runtime/sgc_stats_keys.h (docs/FORMATS.md)
fake-badstats/alloc-fixed-4K|failed|2|$M: line 1: version '2': this build reads version 1 only (docs/FORMATS.md)
fake-badstats/alloc-fixed-5K|failed|2|$M: line 33: key alloc_samples again: every key appears once (first on line 18)
fake-badstats/alloc-fixed-6K|failed|2|$M: line 18: alloc_samples = -5: a whole number from 0 to 18446744073709551615, decimal digits only (type U64)
fake-badstats/alloc-fixed-7K|failed|2|$M: line 2: run_ns = -1: a whole number from 0 to 18446744073709551615, decimal digits only (type U64)
fake-badstats/alloc-fixed-8K|failed|2|$M: line 18: 3 allocation samples from 2 sample points: an object is sampled only when it hits a sample point"
keys=$(grep -c '^    X(' runtime/sgc_stats_keys.h)
expect "the ok runs' records stored whole, none of the refused ones" "$(q "$DB" "SELECT r.status, count(s.key)
    FROM runs r LEFT JOIN run_stats s USING(run_id) GROUP BY r.status ORDER BY r.status")" "failed|0
ok|$((2 * keys))"

"$ANALYZE" --quiet "$WORK/res/latest" >"$WORK/aout" 2>"$WORK/aerr"
expect "analyze analyses the sweep with its failed runs" "$?|$(cat "$WORK/aerr")" "0|"
expect "analyze counts them failed" "$(awk -F, '/^#/ { next } !h { h = 1; for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["label"] ":" $c["runs"] ":" $c["runs_failed"] }' "$WORK/res/latest/summary.csv" | head -n 3 | tr '\n' ' ')" \
    "fake-badstats/baseline:2:0 fake-badstats/alloc-fixed-1K:0:2 fake-badstats/alloc-fixed-2K:0:2 "

# A failed run's record as an older harness stored it (a junk value):
# analyze does not judge it; the same value in an ok run's record is a
# damaged or edited database, named with the rule.
cp "$DB" "$WORK/old.db"
mkdir -p "$WORK/old" && cp "$DB" "$WORK/old/results.db"
failed=$(q "$WORK/old/results.db" "SELECT min(run_id) FROM runs WHERE status = 'failed'")
q "$WORK/old/results.db" "INSERT INTO run_stats VALUES ($failed, 'alloc_samples', '-5'), ($failed, 'run_ns', '12junk')"
"$ANALYZE" --quiet "$WORK/old" >/dev/null 2>"$WORK/aerr2"
expect "a failed run's bad record is not judged" "$?|$(cat "$WORK/aerr2")" "0|"
ok=$(q "$WORK/old/results.db" "SELECT min(run_id) FROM runs WHERE status = 'ok'")
q "$WORK/old/results.db" "UPDATE run_stats SET value = '65536junk' WHERE run_id = $ok AND key = 'alloc_period'"
"$ANALYZE" --quiet "$WORK/old" >/dev/null 2>"$WORK/aerr3"
expect "an ok run's bad record: refused, naming the rule" "$?|$(cat "$WORK/aerr3")" \
    "2|analyze: $WORK/old/results.db: run $ok (cell fake-badstats/baseline, round 1): stats record alloc_period = 65536junk: impossible (a whole number from 0 to 18446744073709551615, decimal digits only (type U64); the database is damaged or was edited)"
finish
