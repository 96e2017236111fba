#!/bin/sh
# segcheck_test.sh BIN - the segment series conformance checker
# (build/bin/inproc-estimate --check, stats/st_segcheck.c) on good and broken
# series: the series freecheck's runtime writes (and, when it is built, the
# jemalloc peer's) conform, each with its stats record; every kind of
# violation of docs/FORMATS.md's contract, made by changing one thing in a
# good series, is refused with exit 1 and a message naming it; bad arguments
# and unreadable files exit 2.
BIN=$1
. "$(dirname "$0")/lib.sh"
check() { f=$1; shift; "$BIN/inproc-estimate" --check "$f" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A good series of freecheck's own runtime, with its stats record.
SGC_ALTERNATE=alloc SGC_ALLOC_PERIOD=32K SGC_ALT_SEGMENT=1ms SGC_SEED=2 SGC_ALT_OUT="$tmp/good.seg" \
    SGC_STATS="$tmp/good.stats" "$BIN/binarytrees" --size 32 --depth 12 >/dev/null ||
    { fail "binarytrees with SGC_ALTERNATE failed"; exit 1; }
check "$tmp/good.seg" --stats "$tmp/good.stats" --mode alloc >"$tmp/out" ||
    { fail "freecheck's own series does not conform: $(cat "$tmp/out")"; exit 1; }
ok "freecheck's own series conforms, with its stats record"
SGC_ALTERNATE=none SGC_ALT_SEGMENT=1ms SGC_ALT_OUT="$tmp/aa.seg" SGC_STATS="$tmp/aa.stats" \
    "$BIN/gcbench" --size 64 >/dev/null && check "$tmp/aa.seg" --stats "$tmp/aa.stats" --mode none >"$tmp/out" ||
    fail "freecheck's A/A series does not conform: $(cat "$tmp/out")"
if [ -x "$BIN/peers/gcbench-jemalloc" ]; then
    env MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:15 SGC_ALTERNATE=alloc SGC_ALT_SEGMENT=1ms \
        SGC_ALT_OUT="$tmp/je.seg" SGC_STATS="$tmp/je.stats" "$BIN/peers/gcbench-jemalloc" --size 64 >/dev/null &&
        check "$tmp/je.seg" --stats "$tmp/je.stats" --objects --system jemalloc >"$tmp/out" ||
        fail "the jemalloc peer's series does not conform: $(cat "$tmp/out")"
fi

# The lines of the good series, for the changes below.
first_seg=$(grep -n '^seg ' "$tmp/good.seg" | head -n 1 | cut -d: -f1)
nsegs=$(grep -c '^seg ' "$tmp/good.seg")
[ "$nsegs" -ge 9 ] || { fail "the good series has only $nsegs segments"; exit 1; }
pattern=$(sed -n 's/^pattern //p' "$tmp/good.seg")
# Line numbers of segment i (0 = the lead-in).
segline() { echo $((first_seg + $1)); }
# The column number (for awk) of a field of the seg lines.
col() { awk -v f="$1" '$1 == "columns" { for (i = 2; i <= NF; i++) if ($i == f) print i; exit }' "$tmp/good.seg"; }
# setfield LINE FIELD VALUE: the good series with that field of that line replaced.
setfield() {
    awk -v l="$1" -v c="$(col "$2")" -v v="$3" 'NR == l { $c = v } { print }' "$tmp/good.seg"
}
# A segment of kind A (first after the lead-in with that kind), and one of kind B.
aseg=$(awk -v k="$(col kind)" '$1 == "seg" && $2 > 0 && $k == "A" { print $2; exit }' "$tmp/good.seg")
bseg=$(awk -v k="$(col kind)" '$1 == "seg" && $2 > 0 && $k == "B" { print $2; exit }' "$tmp/good.seg")

# expect_bad WHAT WORDS: the series in $tmp/bad.seg is refused, with a message containing WORDS.
expect_bad() {
    check "$tmp/bad.seg" $extra >"$tmp/out" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -q -- "$2" "$tmp/out"; then
        ok "refused: $1"
    else
        fail "not refused (exit $rc, expected 1 and '$2'): $1: $(head -n 3 "$tmp/out")"
    fi
    extra=
}
extra=

sed '1s/.*/sgc-segments 2/' "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "another first line" "first line"
sed "s/^segments .*/segments $((nsegs + 1))/" "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "a wrong segments count" "segment lines"
sed '$d' "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "no segments line" "no 'segments N' line"
{ cat "$tmp/good.seg"; echo "seg 999"; } >"$tmp/bad.seg"
expect_bad "text after the segments line" "after the 'segments' line"
sed 's/^columns \(.*\) alloc_samples /columns \1 alloc_sampled /' "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "a columns line without alloc_samples" "must name alloc_samples"
sed '/^seed /d' "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "no seed line" "header key seed"
other=ABBA; [ "$pattern" = ABBA ] && other=BAAB
sed "s/^pattern .*/pattern $other/" "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "a pattern that is not the seed's" "but seed"
sed 's/^seed .*/seed 1/' "$tmp/good.seg" >"$tmp/bad.seg" # seed 1 is BAAB, seed 2 (the run's) ABBA
expect_bad "a seed whose phase is not the pattern" "but seed 1 gives BAAB"
setfield "$(segline "$aseg")" kind B >"$tmp/bad.seg"
expect_bad "a segment of the wrong kind" "kind B, but"
setfield "$(segline "$aseg")" on 1 >"$tmp/bad.seg"
expect_bad "an off segment marked on" "on 1, expected 0"
setfield "$(segline "$aseg")" alloc_samples 1 >"$tmp/bad.seg"
expect_bad "an off segment with a sample" "an off segment with 1 samples"
setfield "$(segline "$aseg")" sampled_bytes 7 >"$tmp/bad.seg"
expect_bad "an off segment with sampled bytes" "7 sampled bytes"
setfield "$(segline "$bseg")" sampled_bytes 7 >"$tmp/bad.seg"
expect_bad "an on segment that sampled part of its bytes" "samples 7 of its"
setfield "$(segline 3)" end exit >"$tmp/bad.seg"
expect_bad "a segment before the last ending at exit" "only the last segment ends at exit"
setfield "$(segline $((nsegs - 1)))" end gc >"$tmp/bad.seg"
expect_bad "a last segment that does not end at exit" "must end at exit"
setfield "$(segline 3)" end later >"$tmp/bad.seg"
expect_bad "an unknown end" "end 'later' is not one of"
setfield "$(segline 3)" index 4 >"$tmp/bad.seg"
expect_bad "a segment numbered out of order" "index 4"
setfield "$(segline 5)" pos 2 >"$tmp/bad.seg"
expect_bad "a segment at the wrong position" "expected block"
setfield "$(segline 2)" cpu_ns 5 >"$tmp/bad.seg"
expect_bad "a segment that ended before its CPU time" "before segment_cpu_ns"
setfield "$(segline 2)" bytes +5 >"$tmp/bad.seg"
expect_bad "a signed number" "not an unsigned decimal integer"
awk -v l="$(segline 2)" 'NR == l { $NF = "" } { print }' "$tmp/good.seg" | sed 's/ $//' >"$tmp/bad.seg"
expect_bad "a segment line with a field too few" "the columns line names"
sed "s/^columns /unmeasured minor\ncolumns /" "$tmp/good.seg" | awk -v c="$(col minor)" -v l="$(($(segline 2) + 1))" \
    'NR == l { $c = 1 } { print }' >"$tmp/bad.seg"
expect_bad "an unmeasured field that is not 0" "minor is 1, but the series says it is unmeasured"
sed "s/^columns /unmeasured kind\ncolumns /" "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "an unmeasured field that must be measured" "unmeasured names kind"
sed "s/^columns /cpu_clock wall\ncolumns /" "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "a cpu_clock that is not thread or process" "cpu_clock 'wall'"
sed 's/^segment_cpu_ns .*/segment_cpu_ns 0/' "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "no segment length" "exactly one of segment_fills and segment_cpu_ns"
sed "s/^columns /threads 4\ncolumns /" "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "a header key the contract does not have" "'threads' is not a header key"
setfield "$(segline 2)" bytes "0$(awk -v l="$(segline 2)" -v c="$(col bytes)" 'NR == l { print $c }' "$tmp/good.seg")" >"$tmp/bad.seg"
expect_bad "a number with a leading zero" "not an unsigned decimal integer"
sed "s/^columns /system freecheck\ncolumns /" "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "freecheck named on a system line" "freecheck's runtime writes no system line"
cp "$tmp/good.seg" "$tmp/bad.seg"
extra="--system go"
expect_bad "a series of another system than expected" "expected go"
sed 's/\(.\)$/\1/; $s/$/ /' "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "a space at the end of a line" "exactly one space"
printf 'sgc-segments 1\r\n' >"$tmp/bad.seg"; sed 1d "$tmp/good.seg" >>"$tmp/bad.seg"
expect_bad "a carriage return" "first line"
head -c -1 "$tmp/good.seg" >"$tmp/bad.seg"
expect_bad "a file cut inside its last line" "does not end with a line end"

# The stats record must match the series' totals.
cp "$tmp/good.seg" "$tmp/bad.seg"
awk '$1 == "bytes_allocated" { $2 = $2 + 1 } { print }' "$tmp/good.stats" >"$tmp/bad.stats"
extra="--stats $tmp/bad.stats"
expect_bad "a record whose bytes are not the segments' sum" "bytes add up to"
awk '$1 == "alloc_samples" { $2 = $2 + 1 } { print }' "$tmp/good.stats" >"$tmp/bad.stats"
extra="--stats $tmp/bad.stats"
expect_bad "a record whose samples are not the segments' sum" "samples add up to"
awk '$1 == "alloc_period" { $2 = $2 * 2 } { print }' "$tmp/good.stats" >"$tmp/bad.stats"
extra="--stats $tmp/bad.stats"
expect_bad "a record with another period" "alloc_period"
extra="--mode none"
expect_bad "a series of another mode than expected" "expected none"

# Bad arguments and files that cannot be read.
"$BIN/inproc-estimate" --check >/dev/null 2>&1
[ $? = 2 ] || fail "--check without a file: not exit 2"
check "$tmp/good.seg" --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "--check with an unknown option: not exit 2"
check "$tmp/good.seg" --mode sometimes >/dev/null 2>&1
[ $? = 2 ] || fail "--check with a bad --mode: not exit 2"
check "$tmp/absent.seg" >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "cannot read the segment series" "$tmp/out" || fail "--check of a missing file: not exit 2 with the reason"
check "$tmp" >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "not a regular file" "$tmp/out" || fail "--check of a directory: not exit 2 with the reason: $(cat "$tmp/out")"
check "$tmp/good.seg" --stats "$tmp/absent.stats" >/dev/null 2>&1
[ $? = 2 ] || fail "--check with a missing stats record: not exit 2"
# The summary line of a good series: its totals.
check "$tmp/good.seg" --stats "$tmp/good.stats" --summary >"$tmp/out" || fail "--summary of the good series failed"
grep -q "^segments=$nsegs .*pattern=$pattern system=freecheck cpu_clock=thread" "$tmp/out" ||
    fail "--summary of the good series: $(cat "$tmp/out")"

[ $failures = 0 ] && echo "inproc-estimate --check: all checks passed"
exit $((failures > 0))
