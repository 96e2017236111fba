#!/bin/sh
# replicates.sh - sweep --replicates K and --sizes-from DIR (docs/HARNESS.md,
# "Replicates"): K schedules with their own shuffles and block orders,
# one replicate after another (--replicate-order sequential, the default)
# or interleaved round by round (round p starts with replicate p mod K),
# blocks numbered in execution order, every run's replicate stored,
# replicate 0 the unreplicated plan, sizes calibrated once for all; a bad
# order refused; --resume continues the same interleaved schedule, also
# from a stored config written before the order was a setting (interleaved
# then); analyze reads the replicates; --sizes-from takes another sweep's
# sizes, and refuses a sweep lacking one.
. tests/harness/lib.sh
common="--backends native --bin-dir $FAKE_BIN --no-progress --workloads fake-ok --periods 32K,1M --time-hz none
    --depths none --runs 2 --warmup 1 --seed 29 --counters none --target 0.05"
# shellcheck disable=SC2086
"$SWEEP" $common --plan >"$WORK/plan1" 2>/dev/null
expect "plan of one replicate: exit status" "$?" 0
# shellcheck disable=SC2086
"$SWEEP" $common --replicates 3 --plan >"$WORK/plan3" 2>/dev/null
expect "plan of three: exit status" "$?" 0
expect "three times the runs" "$(grep -c '^run ' "$WORK/plan3")" "$((3 * $(grep -c '^run ' "$WORK/plan1")))"
expect "the unreplicated plan says no replicate" "$(grep -c ' replicate ' "$WORK/plan1")" 0
# Replicate 0 is the unreplicated plan (its cells, rounds and roles in order).
expect "replicate 0's order is the unreplicated plan's" \
    "$(grep ' replicate 0$' "$WORK/plan3" | awk '{print $4, $6, $12}' | tr '\n' ' ')" \
    "$(awk '/^run / {print $4, $6, $12}' "$WORK/plan1" | tr '\n' ' ')"
expect "replicates 1 and 2 are shuffled otherwise" \
    "$([ "$(grep ' replicate 1$' "$WORK/plan3" | awk '{print $6, $12}')" != "$(grep ' replicate 0$' "$WORK/plan3" | awk '{print $6, $12}')" ] &&
    [ "$(grep ' replicate 2$' "$WORK/plan3" | awk '{print $6, $12}')" != "$(grep ' replicate 1$' "$WORK/plan3" | awk '{print $6, $12}')" ] && echo yes)" yes
# The order: sequential by default, each replicate's 18 runs (its warm-up
# round first) before the next one's; interleaved on request; a bad order refused.
runs_of() { awk '/^run / {print $NF}' "$1" | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' '; }
expect "sequential by default: replicate 0 whole, then 1, then 2" "$(runs_of "$WORK/plan3")" "0x18 1x18 2x18 "
expect "the plan says the order" "$(grep -c '^plan: .* 3 replicates (sequential)' "$WORK/plan3")" 1
# shellcheck disable=SC2086
"$SWEEP" $common --replicates 3 --replicate-order interleaved --plan >"$WORK/plan3i" 2>/dev/null
expect "interleaved: a round (6 runs) of each replicate in turn, round p from replicate p mod 3" \
    "$(runs_of "$WORK/plan3i")" "0x6 1x6 2x6 1x6 2x6 0x6 2x6 0x6 1x6 "
expect "the same runs in either order" "$(grep '^run ' "$WORK/plan3i" | cut -d' ' -f3- | sed 's/block [0-9]* //' | sort | md5sum)" \
    "$(grep '^run ' "$WORK/plan3" | cut -d' ' -f3- | sed 's/block [0-9]* //' | sort | md5sum)"
# shellcheck disable=SC2086
"$SWEEP" $common --replicates 3 --replicate-order bogus --out "$WORK/resbad" >/dev/null 2>"$WORK/errbad"
expect "a bad order: exit 2, said, nothing created" \
    "$?|$(grep -c "replicate-order: 'bogus' is not an order (sequential, interleaved)" "$WORK/errbad")|$([ -e "$WORK/resbad" ] && echo created)" "2|1|"
# shellcheck disable=SC2086
"$SWEEP" $common --replicates 3 --out "$WORK/resseq" >/dev/null 2>"$WORK/errseq"
expect "sequential sweep exit status" "$?" 0
SDB="$WORK/resseq/latest/results.db"
expect "sequential: the runs change replicate twice, in order 0, 1, 2" \
    "$(q "$SDB" "SELECT count(*) FROM runs a JOIN runs b ON b.seq = a.seq + 1 WHERE a.replicate != b.replicate")|$(q "$SDB" \
    "SELECT group_concat(replicate, ' ') FROM (SELECT replicate FROM runs GROUP BY replicate ORDER BY min(seq))")" "2|0 1 2"
expect "sequential: stored in the config and meta" \
    "$(q "$SDB" "SELECT instr(value, 'replicate-order = sequential') > 0 FROM meta WHERE key = 'config'")|$(q "$SDB" \
    "SELECT instr(value, '; sequential, each replicate') > 0 FROM meta WHERE key = 'replicates'")" "1|1"
# shellcheck disable=SC2086
"$SWEEP" $common --replicates 3 --replicate-order interleaved --out "$WORK/res" >"$WORK/out" 2>"$WORK/err"
rc=$?
grep -v '^sweep: run ' "$WORK/err" | head -n 10
expect "sweep exit status" "$rc" 0
DB="$WORK/res/latest/results.db"
n=$(q "$DB" "SELECT count(*) FROM schedule")
expect "every replicate has a third of the runs, each stored with its replicate" \
    "$(q "$DB" "SELECT replicate, count(*) FROM runs GROUP BY replicate" | tr '\n' ' ')" \
    "0|$((n / 3)) 1|$((n / 3)) 2|$((n / 3)) "
expect "each run has its schedule's replicate" "$(q "$DB" "SELECT count(*) FROM runs r JOIN schedule s USING (seq)
    WHERE s.replicate = r.replicate AND s.cell_id = r.cell_id AND s.round = r.round")" "$n"
expect "interleaved: round p (warm-up 0 first) starts with replicate p mod 3" \
    "$(q "$DB" "SELECT round, replicate FROM schedule WHERE seq IN (SELECT min(seq) FROM schedule GROUP BY round)
    ORDER BY round" | tr '\n' ' ')" "0|0 1|1 2|2 "
expect "each round holds every replicate's round, one replicate after another" \
    "$(q "$DB" "SELECT count(*) FROM schedule a JOIN schedule b ON b.seq = a.seq + 1 WHERE a.replicate != b.replicate")" 8
expect "blocks numbered in execution order, two runs each, one replicate each" \
    "$(q "$DB" "SELECT count(DISTINCT block), min(block), max(block), sum(c != 2), sum(r != 1) FROM (SELECT block,
    count(*) c, count(DISTINCT replicate) r FROM runs GROUP BY block)")" "$((n / 2))|1|$((n / 2))|0|0"
expect "every run its own SGC_SEED" "$(q "$DB" "SELECT count(DISTINCT sgc_seed) FROM runs")" "$n"
expect "sizes calibrated once for all the replicates" "$(q "$DB" "SELECT count(*) FROM calibration")" 1
expect "the setting stored" "$(q "$DB" "SELECT substr(value, 1, 2) = '3 ' FROM meta WHERE key = 'replicates'")|$(q "$DB" \
    "SELECT instr(value, 'replicates = 3') > 0 FROM meta WHERE key = 'config'")" "1|1"
expect "interleaved: stored in the config" \
    "$(q "$DB" "SELECT instr(value, 'replicate-order = interleaved') > 0 FROM meta WHERE key = 'config'")" 1
# --resume after the last rounds' runs are lost: the same interleaved schedule,
# replicates included, from a stored config without the order (as one
# written before the setting existed, when replicates were interleaved).
q "$DB" "UPDATE meta SET value = replace(value, 'replicate-order = interleaved' || char(10), '') WHERE key = 'config'"
expect "the order taken out of the stored config" \
    "$(q "$DB" "SELECT instr(value, 'replicate-order') FROM meta WHERE key = 'config'")" 0
q "$DB" "DELETE FROM run_stats WHERE run_id IN (SELECT run_id FROM runs WHERE seq > $((n - 8)));
    DELETE FROM run_counters WHERE run_id IN (SELECT run_id FROM runs WHERE seq > $((n - 8)));
    DELETE FROM runs WHERE seq > $((n - 8)); UPDATE meta SET value = 'interrupted' WHERE key = 'status'"
"$SWEEP" --resume "$WORK/res/latest" --no-progress >"$WORK/out2" 2>"$WORK/err2"
rc=$?
expect "resume exit status" "$rc" 0
[ "$rc" -eq 0 ] || grep -v '^sweep: run ' "$WORK/err2" | head -n 10
expect "resumed: every run once, with its schedule's replicate" "$(q "$DB" "SELECT count(*), count(DISTINCT seq) FROM runs r
    JOIN schedule s USING (seq) WHERE ifnull(s.replicate, -1) = ifnull(r.replicate, -1)")" "$n|$n"
# analyze: three replicates.
"$BIN/analyze" --quiet --resamples 1000 "$WORK/res/latest" 2>"$WORK/aerr"
expect "analyze exit status" "$?" 0
expect "analyze: every cell over 3 replicates" "$(awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) k[$i] = i; next }
    NR > 2 { print $(k["replicates"]) ":" $(k["paired_level"]) }' "$WORK/res/latest/summary.csv" | sort -u | tr '\n' ' ')" \
    "3:replicates "
# Adaptive rounds of several replicates: refused before anything is created.
# shellcheck disable=SC2086
"$SWEEP" $common --replicates 2 --halfwidth 2% --out "$WORK/res2" >/dev/null 2>"$WORK/err3"
expect "replicates with --halfwidth: exit 2, said" "$?|$(grep -c 'replicates: adaptive rounds' "$WORK/err3")|$([ -e "$WORK/res2" ] && echo created)" "2|1|"
# --sizes-from: the first sweep's sizes, and the method says so.
size=$(q "$DB" "SELECT size FROM calibration WHERE workload = 'fake-ok'")
# shellcheck disable=SC2086
"$SWEEP" $common --sizes-from "$WORK/res/latest" --out "$WORK/res3" >/dev/null 2>"$WORK/err4"
expect "sizes-from: exit status" "$?" 0
expect "sizes-from: the size and the method" "$(q "$WORK/res3/latest/results.db" "SELECT size, method FROM calibration")" \
    "$size|sizes-from"
expect "sizes-from: every cell at that size" "$(q "$WORK/res3/latest/results.db" "SELECT DISTINCT size FROM cells")" "$size"
# shellcheck disable=SC2086
"$SWEEP" $common --workloads fake-ok,fake-alt --sizes-from "$WORK/res/latest" --out "$WORK/res4" >/dev/null 2>"$WORK/err5"
expect "sizes-from a sweep without one of the workloads: exit 2, naming it, nothing created" \
    "$?|$(grep -c 'sizes-from: .* has no calibration for fake-alt' "$WORK/err5")|$([ -e "$WORK/res4" ] && echo created)" "2|1|"
finish
