#!/bin/sh
# resumecheck.sh - --resume refuses (exit 2, adding nothing) what it would
# otherwise finish into a sweep of two plans or two builds: a stored config
# edited (env, runs, periods, seed), cells or schedule rows or sizes edited,
# half a block, a database SQLite's integrity check finds damaged, a rebuilt
# sweep or valgrind; and a directory that is not a sweep's, without leaving a
# lock file there.  An untouched copy resumes.
. tests/harness/lib.sh

# A small blocked sweep with its last block gone, as an interruption leaves it.
ARGS="--backends native --bin-dir $FAKE_BIN --workloads fake-ok --periods 64K --time-hz none --runs 2 --warmup 0
    --size 2 --seed 11 --counters none --no-progress"
"$SWEEP" $ARGS --out "$WORK/res" >/dev/null 2>"$WORK/err"
expect "the sweep" "$?" 0
D=$(cd "$WORK/res/latest" && pwd -P)
q "$D/results.db" "CREATE TEMP TABLE gone AS SELECT run_id FROM runs WHERE block = (SELECT max(block) FROM runs);
    DELETE FROM run_stats WHERE run_id IN gone; DELETE FROM runs WHERE run_id IN gone;
    UPDATE meta SET value = 'interrupted' WHERE key = 'status'"
expect "the interrupted sweep" "$(q "$D/results.db" "SELECT count(*) FROM runs")|$(q "$D/results.db" "SELECT count(*) FROM schedule")" "6|8"

# refused NAME SQL MESSAGE: a copy edited by SQL, resumed: exit 2, the
# message, no run added.
n=0
refused() {
    n=$((n + 1))
    rm -rf "$WORK/c$n" && cp -r "$D" "$WORK/c$n"
    q "$WORK/c$n/results.db" "$2"
    runs=$(q "$WORK/c$n/results.db" "SELECT count(*) FROM runs")
    "$SWEEP" --resume "$WORK/c$n" --no-progress >/dev/null 2>"$WORK/e$n"
    expect "$1: refused" "$?|$(cat "$WORK/e$n")|$(q "$WORK/c$n/results.db" "SELECT count(*) FROM runs")" \
        "2|sweep: --resume $WORK/c$n: $3|$runs"
}
cfg() { echo "UPDATE meta SET value = replace(value, '$1', '$2') WHERE key = 'config'"; }
ed="the config was edited, and the runs stored so far were made with the other; start a new sweep"
refused "env added to the config" "$(cfg 'env = none' 'env = SGC_NURSERY=256K')" \
    "its stored config says env SGC_NURSERY=256K, but the sweep started with env none (meta.env): $ed"
refused "the seed edited" "$(cfg 'seed = 11' 'seed = 12')" \
    "its stored config says seed 12, but the sweep started with seed 11 (meta.seed): $ed"
refused "the periods edited" "$(cfg 'periods = 64K' 'periods = 32K')" \
    "cell 2 is fake-ok/alloc-fixed-64K, but the plan of its settings has fake-ok/alloc-fixed-32K there: the database does not hold the plan it claims"
refused "the runs edited" "$(cfg 'runs = 2' 'runs = 3')" \
    "its schedule's run 1 is not the plan's (the plan of its settings, differs there): the schedule was edited, or is another plan's; start a new sweep"
refused "a cell edited" "UPDATE cells SET alloc_period = 131072 WHERE cell_id = 2" \
    "cell 2 is fake-ok/alloc-fixed-64K, but the plan of its settings has fake-ok/alloc-fixed-64K there: the database does not hold the plan it claims"
refused "a schedule row edited" "UPDATE schedule SET block_role = 1 - block_role WHERE seq = 8" \
    "its schedule's run 8 is not the plan's (the plan of its settings, differs there): the schedule was edited, or is another plan's; start a new sweep"
refused "a schedule row added" "INSERT INTO schedule(seq, cell_id, round, block, block_pos, block_role) VALUES (9, 1, 3, 5, 1, 1)" \
    "its schedule's run 9 is not the plan's (the plan of its settings, has no more runs): the schedule was edited, or is another plan's; start a new sweep"
refused "a size edited" "UPDATE cells SET size = 3" \
    "cell fake-ok/baseline has size 3, but its calibration (fake-ok) found 2: the database was edited; start a new sweep"
refused "half a block" "DELETE FROM runs WHERE seq = 6" \
    "it holds half of block 3 (run 5 without the other): a block's two runs are stored together, so the database was edited; start a new sweep"

# Damaged copies: bytes overwritten in one page after another until SQLite's
# integrity check finds the file damaged while it still opens as a sweep's.
pages=$(( $(wc -c <"$D/results.db") / 4096 ))
p=2 found=0
while [ $p -lt "$pages" ] && [ $found = 0 ]; do
    rm -rf "$WORK/bad" && cp -r "$D" "$WORK/bad"
    printf 'damagedamagedamagedamagedamagedamagedamagedamage' |
        dd of="$WORK/bad/results.db" bs=1 seek=$((p * 4096 + 2000)) conv=notrunc 2>/dev/null
    if [ "$(q "$WORK/bad/results.db" "PRAGMA integrity_check(1)" 2>/dev/null)" != ok ] &&
        q "$WORK/bad/results.db" "SELECT count(*) FROM schedule, calibration, meta" >/dev/null 2>&1; then
        found=1
    fi
    p=$((p + 1))
done
expect "a damaged copy that still opens" "$found" 1
"$SWEEP" --resume "$WORK/bad" --no-progress >/dev/null 2>"$WORK/ebad"
rc=$?
expect "a damaged database: refused" "$rc|$(grep -c "^sweep: --resume $WORK/bad: $WORK/bad/results.db is damaged (SQLite's integrity check: .*); its runs cannot be trusted and resuming would add runs to a file analyze refuses: restore it from a copy, or start a new sweep$" "$WORK/ebad")" "2|1"

# A rebuilt sweep (another file than the one that started the sweep).
cp "$SWEEP" "$WORK/sweep2" && printf 'x' >>"$WORK/sweep2"
rm -rf "$WORK/r" && cp -r "$D" "$WORK/r"
"$WORK/sweep2" --resume "$WORK/r" --no-progress >/dev/null 2>"$WORK/er"
expect "a rebuilt sweep: refused, naming it" "$?|$(grep -c "^  $WORK/sweep2 (harness/sweep): sha256 [0-9a-f]\{64\} when the sweep started, [0-9a-f]\{64\} now$" "$WORK/er")|$(q "$WORK/r/results.db" "SELECT count(*) FROM runs")" "2|1|6"
# The same bytes elsewhere are the same build.
cp "$SWEEP" "$WORK/sweep3"
"$WORK/sweep3" --resume "$WORK/r" --no-progress >/dev/null 2>"$WORK/er3"
expect "the same sweep from another path resumes" "$?|$(q "$WORK/r/results.db" "SELECT count(*) FROM runs")" "0|8"

# A valgrind changed between the interruption and --resume.
if command -v valgrind >/dev/null 2>&1; then
    printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v valgrind)" >"$WORK/vg" && chmod +x "$WORK/vg"
    "$SWEEP" --backends sim --valgrind "$WORK/vg" --bin-dir "$FAKE_BIN" --workloads fake-ok --sim-size fake-ok=1 \
        --periods none --time-hz none --seed 3 --no-progress --out "$WORK/sim" >/dev/null 2>"$WORK/es"
    expect "a simulated sweep" "$?" 0
    S="$WORK/sim/latest"
    q "$S/results.db" "DELETE FROM run_counters WHERE run_id = (SELECT max(run_id) FROM runs);
        DELETE FROM run_stats WHERE run_id = (SELECT max(run_id) FROM runs);
        DELETE FROM runs WHERE run_id = (SELECT max(run_id) FROM runs)"
    printf '# another valgrind\n' >>"$WORK/vg"
    "$SWEEP" --resume "$S" --no-progress >/dev/null 2>"$WORK/es2"
    expect "another valgrind: refused, naming it" "$?|$(grep -c "^  $WORK/vg (harness/valgrind): sha256 [0-9a-f]\{64\} when the sweep started, [0-9a-f]\{64\} now$" "$WORK/es2")" "2|1"
fi

# Not a sweep's directory: refused, and left as it was (no lock file).
mkdir -p "$WORK/empty"
"$SWEEP" --resume "$WORK/empty" --no-progress >/dev/null 2>"$WORK/ee"
expect "not a sweep: refused" "$?|$(cat "$WORK/ee")" \
    "2|sweep: --resume $WORK/empty: not a sweep directory ($WORK/empty/results.db: No such file or directory); give the directory a sweep was started in, e.g. results/latest"
expect "and nothing created there" "$(ls -A "$WORK/empty" | wc -l)" 0

# An untouched copy resumes its missing block.
cp -r "$D" "$WORK/good"
"$SWEEP" --resume "$WORK/good" --no-progress >/dev/null 2>"$WORK/eg"
expect "an untouched copy resumes" "$?|$(grep -c '^sweep: 8 runs planned, 2 to run (resuming)$' "$WORK/eg")|$(q "$WORK/good/results.db" "SELECT count(*) FROM runs")" "0|1|8"
finish
