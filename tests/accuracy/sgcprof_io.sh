#!/bin/sh
# sgcprof_io.sh BIN - what sgcprof reads and what it replaces (runtime/sgcprof/sgcprof_io.h;
# make test-sgcprof-io):
#  1. pprof -o onto a FIFO, a directory, a character device (as root: mknod) or a symbolic
#     link: refused with exit 2 before the profile is read, the thing left as it was, no
#     temporary left; onto the profile being read (however spelled, or a hard link to it):
#     refused, the profile unchanged; a new file and a regular file are written (mode 0666
#     less the umask), into a directory that does not exist: exit 1;
#  2. inputs: /dev/zero, a directory, a FIFO with a profile in it, a 4 GiB + 1 sparse file
#     starting like a profile: refused at once (exit 2) or read (the FIFO: the same report
#     as the file).
set -u
bin=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sgcprof-io.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
SGC_ALLOC_PERIOD=4096 SGC_TIME_HZ=0 SGC_PROFILE="$tmp/p.prof" "$bin/gcbench" --size 5 > /dev/null || fail "gcbench exited $?"
cp "$tmp/p.prof" "$tmp/p.copy"

# ---- 1. pprof -o ---------------------------------------------------------------
: > "$tmp/linked"
for kind in fifo dir dev link; do
    t="$tmp/out-$kind"
    case $kind in
    fifo) mkfifo "$t" ;;
    dir) mkdir "$t" ;;
    dev) mknod "$t" c 1 3 2>/dev/null || { ok "(no character device case: mknod needs root)"; continue; } ;;
    link) ln -s "$tmp/linked" "$t" ;;
    esac
    want=$(case $kind in fifo) echo "a FIFO" ;; dir) echo "a directory" ;; dev) echo "a character device" ;; link) echo "a symbolic link" ;; esac)
    timeout 60 "$bin/sgcprof" pprof "$tmp/p.prof" -o "$t" > /dev/null 2> "$tmp/err"; rc=$?
    intact=0
    case $kind in
    fifo) [ -p "$t" ] && intact=1 ;;
    dir) [ -d "$t" ] && [ -z "$(ls -A "$t")" ] && intact=1 ;;
    dev) [ -c "$t" ] && intact=1 ;;
    link) [ -L "$t" ] && [ ! -s "$tmp/linked" ] && intact=1 ;;
    esac
    if [ $rc -eq 2 ] && [ $intact = 1 ] && [ "$(ls "$tmp" | grep -c '\.tmp\.')" = 0 ] &&
        grep -qx "sgcprof: pprof -o: $t is $want, not a regular file: refusing to replace it with an output file (remove it, or write the outputs elsewhere)" "$tmp/err"; then
        ok "pprof -o $want: exit 2, left as it was"
    else fail "pprof -o $want: exit $rc, intact $intact: $(cat "$tmp/err")"; fi
done
mkdir -p "$tmp/sub"
ln "$tmp/p.prof" "$tmp/sub/hard.prof"
for o in "$tmp/p.prof" "$tmp/./p.prof" "$tmp/sub/../p.prof" "$tmp/sub/hard.prof"; do
    "$bin/sgcprof" pprof "$tmp/p.prof" -o "$o" > /dev/null 2> "$tmp/err"; rc=$?
    if [ $rc -eq 2 ] && cmp -s "$tmp/p.prof" "$tmp/p.copy" &&
        grep -qx "sgcprof: pprof -o: $o is the profile being read ($tmp/p.prof): the output would replace it (give another -o)" "$tmp/err"; then
        ok "pprof -o the input ($o): exit 2, the profile unchanged"
    else fail "pprof -o the input ($o): exit $rc: $(cat "$tmp/err")"; fi
done
(umask 027 && "$bin/sgcprof" pprof "$tmp/p.prof" -o "$tmp/new.pb.gz") 2> "$tmp/err"; rc=$?
mode=$(stat -c %a "$tmp/new.pb.gz" 2>/dev/null)
[ $rc -eq 0 ] && [ "$mode" = 640 ] && gzip -t "$tmp/new.pb.gz" && [ "$(ls "$tmp" | grep -c '\.tmp\.')" = 0 ] &&
    ok "pprof -o a new file: written, mode 640 under umask 027, no temporary left" || fail "pprof -o a new file: exit $rc, mode $mode: $(cat "$tmp/err")"
echo old > "$tmp/old.pb.gz"
"$bin/sgcprof" pprof "$tmp/p.prof" -o "$tmp/old.pb.gz" 2> "$tmp/err"; rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/old.pb.gz" "$tmp/new.pb.gz" && ok "pprof -o a regular file: replaced" ||
    fail "pprof -o a regular file: exit $rc: $(cat "$tmp/err")"
"$bin/sgcprof" pprof "$tmp/p.prof" -o "$tmp/nodir/x.pb.gz" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "^sgcprof: cannot write $tmp/nodir/x.pb.gz (through a temporary file next to it): No such file or directory$" "$tmp/err" &&
    ok "pprof -o into a missing directory: exit 1, said" || fail "pprof -o into a missing directory: exit $rc: $(cat "$tmp/err")"

# ---- 2. Inputs -----------------------------------------------------------------
expect_in() { # what message command...
    what=$1 want=$2; shift 2
    timeout 60 "$@" > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -qxF -- "$want" "$tmp/err" && ok "$what: exit 2" || fail "$what: exit $rc: $(cat "$tmp/err")"
}
expect_in "dump /dev/zero" "sgcprof: /dev/zero: at byte offset 0: not a freecheck profile (bad magic): a character device" \
    "$bin/sgcprof" dump /dev/zero
expect_in "accuracy /dev/zero" "sgcprof: /dev/zero: at byte offset 0: not a freecheck profile (bad magic): a character device" \
    "$bin/sgcprof" accuracy /dev/zero
expect_in "report on a directory" "sgcprof: $tmp/sub: $tmp/sub is a directory, not a profile" "$bin/sgcprof" report "$tmp/sub"
head -c 24 "$tmp/p.prof" > "$tmp/huge.prof" && truncate -s 4294967297 "$tmp/huge.prof"
expect_in "a 4 GiB + 1 profile" "sgcprof: $tmp/huge.prof: $tmp/huge.prof is 4294967297 bytes, more than the 4 GiB sgcprof reads (it holds a profile in memory whole)" \
    "$bin/sgcprof" report "$tmp/huge.prof"
rm -f "$tmp/huge.prof"
"$bin/sgcprof" report "$tmp/p.prof" > "$tmp/report.file" || fail "report exited $?"
mkfifo "$tmp/pipe"
cat "$tmp/p.prof" > "$tmp/pipe" &
timeout 60 "$bin/sgcprof" report "$tmp/pipe" > "$tmp/report.pipe"; rc=$?
wait
[ $rc -eq 0 ] && cmp -s "$tmp/report.file" "$tmp/report.pipe" && ok "a profile through a FIFO: the same report" ||
    fail "a profile through a FIFO: exit $rc"

# Output that cannot be written is an error, for every command.
SGC_ALLOC_PERIOD=8 SGC_PROFILE="$tmp/t.prof" "$bin/gcbench" --size 5 > /dev/null || fail "gcbench (exact) exited $?"
for c in "report $tmp/p.prof" "accuracy $tmp/t.prof $tmp/p.prof"; do
    # shellcheck disable=SC2086
    "$bin/sgcprof" $c > /dev/full 2> "$tmp/err"; rc=$?
    [ $rc -eq 1 ] && grep -q "writing the output failed: No space left on device$" "$tmp/err" &&
        ok "$c to a full device: exit 1, said" || fail "$c to a full device: exit $rc: $(cat "$tmp/err")"
done

echo "$fails failed"
[ $fails -eq 0 ]
