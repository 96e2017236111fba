#!/bin/sh
# compat_check.sh SGCPROF BIN DIR WORK - profiles from before the allocation
# sample path's rework (DIR: tests/profile/compat, README.md there) still
# read: today's sgcprof dumps and reports them exactly as the sgcprof of
# their time did; and today's runtime, given the same runs, writes the same
# records (every field but the GC events' resident set size, a kernel count,
# and the byte offsets, which follow from its varint's length).
sgcprof=$1; bin=$2; dir=$3; work=$4
if [ -z "$sgcprof" ] || [ -z "$bin" ] || [ -z "$dir" ] || [ -z "$work" ]; then
    echo "usage: compat_check.sh SGCPROF BIN DIR WORK" >&2
    exit 2
fi
fail() { echo "compat_check: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
for p in gcbench largeobj; do
    "$sgcprof" dump --strict "$dir/$p-v2.prof" >"$work/$p.dump" || fail "$p-v2.prof: sgcprof dump failed"
    cmp -s "$work/$p.dump" "$dir/$p-v2.dump" ||
        { diff "$dir/$p-v2.dump" "$work/$p.dump" | head -n 10; fail "$p-v2.prof is not read as it was"; }
    echo "$p-v2.prof: dumped as before ($(wc -l <"$work/$p.dump") records)"
done
"$sgcprof" report --strict --bytes "$dir/gcbench-v2.prof" >"$work/gcbench.report" || fail "sgcprof report failed"
cmp -s "$work/gcbench.report" "$dir/gcbench-v2.report" ||
    { diff "$dir/gcbench-v2.report" "$work/gcbench.report" | head -n 10; fail "gcbench-v2.prof is not reported as it was"; }
echo "gcbench-v2.prof: reported as before"
# The same runs today (the settings of README.md).
unset $(env | sed -n 's/^\(SGC_[A-Za-z_]*\)=.*/\1/p')
SGC_VIRTUAL_CLOCK=1000 SGC_ALLOC_PERIOD=4096 SGC_ALLOC_MODE=fixed SGC_NURSERY=64K SGC_PROFILE="$work/gcbench.prof" \
    "$bin/gcbench" --size 4 >/dev/null || fail "gcbench failed"
SGC_VIRTUAL_CLOCK=1000 SGC_ALLOC_PERIOD=65536 SGC_ALLOC_MODE=poisson SGC_SEED=7 SGC_NURSERY=64K \
    SGC_PROFILE="$work/largeobj.prof" "$bin/largeobj" --size 300 >/dev/null || fail "largeobj failed"
mask() { sed -e 's/^@[0-9]* //' -e 's/ rss=[0-9]*//' "$1"; }
for p in gcbench largeobj; do
    "$sgcprof" dump --strict "$work/$p.prof" >"$work/$p.new.dump" || fail "today's $p profile: sgcprof dump failed"
    mask "$dir/$p-v2.dump" >"$work/$p.old.masked"
    mask "$work/$p.new.dump" >"$work/$p.new.masked"
    cmp -s "$work/$p.old.masked" "$work/$p.new.masked" ||
        { diff "$work/$p.old.masked" "$work/$p.new.masked" | head -n 10; fail "$p: today's runtime writes other records"; }
    n=$(grep -c ' alloc-sample ' "$work/$p.new.dump")
    [ "$n" -gt 0 ] || fail "$p: no allocation sample"
    echo "$p: today's runtime writes the same records ($n allocation samples)"
done
