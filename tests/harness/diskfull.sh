#!/bin/sh
# diskfull.sh - results.db on a full disk and the size of its write-ahead log.
#  1. During a sweep of 126 runs the WAL (results.db-wal) never grows past
#     512 KiB: it is checkpointed every 64 pages and cut back (by default it
#     grew past 1 MiB in such a sweep and never shrank).
#  2. A sweep on a tmpfs whose space is used up (a file fills it) after its
#     30th run runs out of space:
#     it exits 1 naming the cause, marks the sweep interrupted (not
#     "running"), writes runs.csv, prints the --resume command; after the
#     file is removed, --resume finishes it with every planned run stored
#     exactly once.  Needs root (mount); skipped with a note otherwise.
. tests/harness/lib.sh

"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-ok --periods 64K,1M --time-hz none --runs 41 \
    --warmup 1 --size 1 --seed 3 --counters none --design independent --out "$WORK/res" \
    >"$WORK/out1" 2>"$WORK/err1" &
pid=$!
max=0
while kill -0 $pid 2>/dev/null; do
    for w in "$WORK"/res/*/results.db-wal; do
        [ -f "$w" ] || continue
        n=$(stat -c %s "$w" 2>/dev/null || echo 0)
        [ "$n" -gt "$max" ] && max=$n
    done
    sleep 0.02
done
wait $pid
expect "sweep of 126 runs" "$?" 0
echo "largest WAL seen: $max bytes"
expect "the WAL stays below 512 KiB" "$([ "$max" -gt 0 ] && [ "$max" -le 524288 ] && echo yes || echo "no ($max)")" "yes"
expect "126 runs stored" "$(q "$WORK/res/latest/results.db" 'SELECT count(*) FROM runs')" 126

if [ "$(id -u)" != 0 ] || ! command -v mount >/dev/null 2>&1; then
    echo "note: not root: the full-disk check needs a small tmpfs and is skipped"
    finish
fi
MNT="$WORK/mnt"
mkdir -p "$MNT"
if ! mount -t tmpfs -o size=8m tmpfs "$MNT" 2>"$WORK/mount.err"; then
    echo "note: cannot mount a tmpfs ($(cat "$WORK/mount.err")): the full-disk check is skipped"
    finish
fi
trap 'umount "$MNT" 2>/dev/null; rm -rf "$WORK"' EXIT
"$SWEEP" --backends native --bin-dir "$FAKE_BIN" --no-progress --workloads fake-ok,fake-alt --periods 64K,1M,4M --time-hz none \
    --runs 100 --warmup 0 --size 1 --seed 5 --counters none --design independent --out "$MNT/res" \
    >"$WORK/out2" 2>"$WORK/err2" &
pid=$!
# Once 30 runs are committed, fill the disk.
DB=""
i=0
while [ $i -lt 8000 ]; do
    [ -z "$DB" ] && [ -e "$MNT/res/latest/results.db" ] && DB="$MNT/res/latest/results.db"
    if [ -n "$DB" ]; then
        n=$(q "$DB" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0)
        [ "${n:-0}" -ge 30 ] && break
    fi
    sleep 0.05
    i=$((i + 1))
done
dd if=/dev/zero of="$MNT/ballast" bs=64k 2>/dev/null
wait $pid
expect "full disk: exit 1" "$?" 1
DIR=$(cd "$MNT/res/latest" && pwd -P)
DB="$DIR/results.db"
expect "full disk: the cause is named" "$(grep -c 'database or disk is full' "$WORK/err2")" 1
expect "full disk: the resume command is printed" \
    "$(grep -c "Once the cause above is fixed, finish the sweep with: sweep --resume $DIR\$" "$WORK/err2")" 1
expect "full disk: status interrupted, not running" "$(q "$DB" "SELECT value FROM meta WHERE key = 'status'")" \
    interrupted
nruns=$(q "$DB" 'SELECT count(*) FROM runs')
expect "full disk: some runs stored, not all" "$([ "$nruns" -ge 30 ] && [ "$nruns" -lt 800 ] && echo yes)" yes
expect "full disk: runs.csv holds the stored runs" "$(($(wc -l < "$DIR/runs.csv") - 1))" "$nruns"
expect "full disk: the count is printed" "$(grep -c "stopped; $nruns of 800 runs are recorded" "$WORK/err2")" 1
expect "full disk: no WAL left" "$([ -e "$DB-wal" ] && echo left || echo none)" none
rm -f "$MNT/ballast"
"$SWEEP" --resume "$DIR" --no-progress >"$WORK/out3" 2>"$WORK/err3"
expect "resumed after freeing space: exit 0" "$?" 0
expect "resumed: every planned run once, status complete" "$(q "$DB" "SELECT (SELECT count(*) FROM runs),
    (SELECT count(DISTINCT seq) FROM runs), (SELECT value FROM meta WHERE key = 'status')")" "800|800|complete"
expect "resumed: the runs stored before are kept" "$(q "$DB" "SELECT count(*) FROM runs WHERE run_id <= $nruns")" \
    "$nruns"
finish
