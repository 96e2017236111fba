#!/bin/sh
# watch.sh - a file the runs depend on changes while a sweep runs: the sweep
# stops before the next run (exit 1) with a message naming the file and both
# hashes, keeps every run stored before it (a block cut in two is not
# stored), and --resume refuses (exit 2) until the file is as it was, then
# finishes with every planned run once.  A touch alone (same content) does
# not stop it.  Two cases: a workload's program replaced by a "rebuild"
# (rename over it, as a linker does), and a command workload's needs= file
# written in place.  Each stand-in counts its runs in a file and makes the
# change after a given run, so the point of the change is exact: with
# --size, the sweep first asks a workload that is not a command its range
# of --size (one run with --help), then calibration is one probe and one
# --check run, then the 8 runs of the schedule (one workload, a baseline and
# an alloc cell, blocked design, 2 rounds, no warm-up: 4 blocks of 2 runs).
. tests/harness/lib.sh

mkdir -p "$WORK/bin" "$WORK/tmp" "$WORK/data"
sha() { sha256sum < "$1" | cut -d' ' -f1; }
COMMON="--backends native --bin-dir $WORK/bin --periods 64K --time-hz none --runs 2 --warmup 0 --size 2 --seed 5
    --counters none --no-progress --tmp $WORK/tmp"

# ---- A program replaced after its 6th run (the 3rd of the schedule) ------
echo 0 > "$WORK/count-a"
cat > "$WORK/bin/fake-ok" <<SH
#!/bin/sh
# a stand-in for fake-ok that "rebuilds" itself after its 6th run
"$FAKE_BIN/fake-ok" "\$@"
rc=\$?
n=\$((\$(cat "$WORK/count-a") + 1))
echo \$n > "$WORK/count-a"
if [ \$n -eq 6 ]; then
    cp "$WORK/bin/fake-ok" "$WORK/new"
    echo '# rebuilt' >> "$WORK/new"
    mv "$WORK/new" "$WORK/bin/fake-ok"
fi
exit \$rc
SH
chmod +x "$WORK/bin/fake-ok"
cp -p "$WORK/bin/fake-ok" "$WORK/fake-ok.orig"
OLD=$(sha "$WORK/bin/fake-ok")
"$SWEEP" $COMMON --workloads fake-ok --out "$WORK/resA" >"$WORK/outA" 2>"$WORK/errA"
expect "program replaced mid-sweep: exit 1" "$?" 1
NEW=$(sha "$WORK/bin/fake-ok")
DB="$WORK/resA/latest/results.db"
[ -f "$DB" ] || { fail "no results.db"; cat "$WORK/errA"; finish; }
expect "it ran 6 times: --help, calibration (2) and the schedule's runs 1..3" "$(cat "$WORK/count-a")" 6
expect "runs kept: the two whole blocks before the change (run 3's block is cut in two)" \
    "$(q "$DB" 'SELECT count(*), min(seq), max(seq) FROM runs')" "2|1|2"
RUN4=$(q "$DB" "SELECT c.label || ' round ' || s.round FROM schedule s JOIN cells c USING(cell_id) WHERE s.seq = 4")
expect "the message names the file and both hashes" "$(grep '^sweep: stopped: ' "$WORK/errA")" \
"sweep: stopped: a file the runs depend on changed since the sweep started, found before run 4 ($RUN4): \
$WORK/bin/fake-ok (fake-ok): sha256 $OLD when the sweep started, $NEW now"
expect "and what to do" "$(grep -c "^sweep: stopped after [0-9a-z]*; 2 of 8 runs recorded, every one with the files \
the sweep started with. Going on would mix two builds in one sweep: put back the build it started with (the same \
files), then finish it with: sweep --resume $WORK/resA/[0-9TZ-]*; or start a new sweep$" "$WORK/errA")" 1
expect "status interrupted, the change in meta" "$(q "$DB" "SELECT value FROM meta WHERE key IN ('status',
    'stopped_by_change') ORDER BY key")" "interrupted
before run 4 ($RUN4): $WORK/bin/fake-ok (fake-ok): sha256 $OLD when the sweep started, $NEW now"
expect "runs.csv has the stored runs" "$(wc -l < "$WORK/resA/latest/runs.csv")" 3
expect "nothing printed on stdout" "$(cat "$WORK/outA")" ""

"$SWEEP" --resume "$WORK/resA/latest" --no-progress >/dev/null 2>"$WORK/errA2"
expect "resume with the new build: exit 2" "$?" 2
expect "resume names the file and both hashes" "$(sed -n 2p "$WORK/errA2")" \
    "  $WORK/bin/fake-ok (fake-ok): sha256 $OLD when the sweep started, $NEW now"
expect "resume ran nothing" "$(q "$DB" 'SELECT count(*) FROM runs')|$(cat "$WORK/count-a")" "2|6"

cp "$WORK/fake-ok.orig" "$WORK/bin/fake-ok" # the build it started with (another inode, another mtime)
"$SWEEP" --resume "$WORK/resA/latest" --no-progress >/dev/null 2>"$WORK/errA3"
expect "resume with the build it started with: exit 0" "$?" 0
expect "it ran exactly the missing runs" "$(grep -c '^sweep: 8 runs planned, 6 to run (resuming)' "$WORK/errA3")" 1
expect "every planned run exactly once, blocks whole" "$(q "$DB" "SELECT count(*), count(DISTINCT seq),
    count(DISTINCT block) FROM runs")|$(q "$DB" "SELECT value FROM meta WHERE key = 'status'")" "8|8|4|complete"

# ---- A command's needs= file written in place after its 6th run ----------
# (and its program touched, content unchanged, after its 3rd: no stop)
echo 0 > "$WORK/count-b"
printf 'table 1\n' > "$WORK/data/table.txt"
cat > "$WORK/bin/needer.sh" <<SH
#!/bin/sh
# a command workload whose data file changes after its 6th run
"$FAKE_BIN/fake-ok" "\$@"
rc=\$?
n=\$((\$(cat "$WORK/count-b") + 1))
echo \$n > "$WORK/count-b"
[ \$n -eq 3 ] && touch "$WORK/bin/needer.sh"
[ \$n -eq 6 ] && printf 'table 2\n' >> "$WORK/data/table.txt"
exit \$rc
SH
chmod +x "$WORK/bin/needer.sh"
cat > "$WORK/cmds.list" <<LIST
command needer system=freecheck check=flag needs=$WORK/data/table.txt -- $WORK/bin/needer.sh --size {size}
LIST
OLD=$(sha "$WORK/data/table.txt")
"$SWEEP" $COMMON --list "$WORK/cmds.list" --workloads needer --out "$WORK/resB" >/dev/null 2>"$WORK/errB"
expect "needs= file changed mid-sweep: exit 1" "$?" 1
NEW=$(sha "$WORK/data/table.txt")
DB="$WORK/resB/latest/results.db"
[ -f "$DB" ] || { fail "no results.db"; cat "$WORK/errB"; finish; }
expect "the program and its needs= file are recorded" "$(q "$DB" "SELECT key, value FROM meta
    WHERE key LIKE 'sha256:needer%' ORDER BY key")" "sha256:needer|$(sha "$WORK/bin/needer.sh")
sha256:needer:table.txt|$OLD"
expect "it ran 6 times; the touch did not stop it" "$(cat "$WORK/count-b")" 6
expect "runs kept: the 4 before the change, two whole blocks" \
    "$(q "$DB" 'SELECT count(*), count(DISTINCT block), max(seq) FROM runs')" "4|2|4"
RUN5=$(q "$DB" "SELECT c.label || ' round ' || s.round FROM schedule s JOIN cells c USING(cell_id) WHERE s.seq = 5")
expect "the message names the needs= file and both hashes" "$(grep '^sweep: stopped: ' "$WORK/errB")" \
"sweep: stopped: a file the runs depend on changed since the sweep started, found before run 5 ($RUN5): \
$WORK/data/table.txt (needer:table.txt): sha256 $OLD when the sweep started, $NEW now"

"$SWEEP" --resume "$WORK/resB/latest" --no-progress >/dev/null 2>"$WORK/errB2"
expect "resume with the changed needs= file: exit 2" "$?" 2
expect "resume names it" "$(sed -n 2p "$WORK/errB2")" \
    "  $WORK/data/table.txt (needer:table.txt): sha256 $OLD when the sweep started, $NEW now"
printf 'table 1\n' > "$WORK/data/table.txt" # the same content again, written anew
"$SWEEP" --resume "$WORK/resB/latest" --no-progress >/dev/null 2>"$WORK/errB3"
expect "resume with the file as it was: exit 0" "$?" 0
expect "every planned run exactly once" "$(q "$DB" "SELECT count(*), count(DISTINCT seq), sum(status = 'ok')
    FROM runs")|$(cat "$WORK/count-b")" "8|8|8|10"
finish
