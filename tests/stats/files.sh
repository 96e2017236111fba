#!/bin/sh
# files.sh BIN SCHEMA FIXTURES WORKDIR - the files of the statistics programs (contracts/ct_out.h,
# make test-stats-files; compare's own cases are in tests/compare/compare.sh):
#  1. analyze, validation and peers-report with one output's path taken by a FIFO, a directory,
#     a character device (as root: mknod) or a symbolic link: exit 2 naming it, the thing left as
#     it was, every output of an earlier run byte for byte as it was, no temporary left; a hard
#     link between two outputs: exit 2 (one would replace the other); plotdata a file: exit 2;
#  2. validation's inputs: params lines it would have skipped or read in part, meta.env setting
#     the spin twice: exit 2 with the line named; a valid params file: exit 0, its size shown;
#  3. inproc-estimate on a FIFO or a directory: exit 2 at once; to a full device: exit 1;
#  4. analyze on measured and simulated cells names what it wrote, and nothing when it wrote nothing.
set -u
bin=$1 schema=$2 fixtures=$3 w=$4
rm -rf "$w" && mkdir -p "$w" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

mksweep() { mkdir -p "$1" && cat "$schema" "$fixtures/small.sql" | sqlite3 "$1/results.db" || { echo "cannot build $1"; exit 1; }; }
mkinproc() { # DIR: two series and a valid params file
    mkdir -p "$1" && cp "$fixtures/../../inproc/fixtures/run1.seg" "$1/run-1.series" &&
        cp "$fixtures/../../inproc/fixtures/run2.seg" "$1/run-2.series" &&
        printf 'workload gcbench\ntime_mode thread\ntime_hz 1000\nspin_ns 0\nspin_clock cpu\nsize 10\nsampler_cpu 0 1\n' > "$1/params"
}
# place KIND PATH: puts a KIND where PATH was; 1 if it cannot (no mknod without root).
place() {
    rm -rf "$2"
    case $1 in
    fifo) mkfifo "$2" ;;
    dir) mkdir "$2" ;;
    dev) mknod "$2" c 1 3 2>/dev/null || return 1 ;;
    link) ln -s "$w/linked" "$2" ;;
    esac
}
still() { # KIND PATH: is it still there as it was?
    case $1 in
    fifo) [ -p "$2" ] ;;
    dir) [ -d "$2" ] && [ -z "$(ls -A "$2")" ] ;;
    dev) [ -c "$2" ] ;;
    link) [ -L "$2" ] && [ ! -s "$w/linked" ] ;;
    esac
}
word() { case $1 in fifo) echo "a FIFO" ;; dir) echo "a directory" ;; dev) echo "a character device" ;; link) echo "a symbolic link" ;; esac; }
# same DIR COPY [EXCEPT]: every regular file of COPY is in DIR byte for byte (EXCEPT: a path left out).
same() {
    (cd "$2" && find . -type f) | while read -r f; do
        [ "$f" = "./${3:-}" ] && continue
        cmp -s "$1/$f" "$2/$f" || { echo "$f changed"; return 1; }
    done
}
notmp() { [ "$(find "$1" -name '*.tmp.*' | wc -l)" = 0 ]; }

# ---- 1. Output paths taken by something else ------------------------------------------
: > "$w/linked"
mksweep "$w/an"
"$bin/analyze" --quiet --resamples 1000 "$w/an" || fail "analyze exited $?"
mksweep "$w/pr"
"$bin/peers-report" --quiet "$w/pr" 2> /dev/null || fail "peers-report exited $?"
mksweep "$w/vs" && mkinproc "$w/vip"
"$bin/validation" --quiet --resamples 200 --inproc "$w/vip" "$w/vout" "$w/vs" || fail "validation exited $?"
grep -q "^| gcbench (--size 10) | thread | 1000 |" "$w/vout/validation.md" && ok "validation: the in-process size shown" ||
    fail "validation: no '(--size 10)' row"
cp -r "$w/an" "$w/an.before" && cp -r "$w/pr" "$w/pr.before" && cp -r "$w/vout" "$w/vout.before"
# check NAME KIND FILE EXIT-CODE-AND-COMMAND...: KIND in place of FILE, the command refuses it.
check() {
    name=$1 kind=$2 file=$3 dir=$4 before=$5; shift 5
    place "$kind" "$file" || { ok "($name: no character device case: mknod needs root)"; return; }
    timeout 120 "$@" > /dev/null 2> "$w/err"; rc=$?
    rel=${file#"$dir"/}
    if [ $rc -eq 2 ] && still "$kind" "$file" && same "$dir" "$before" "$rel" > "$w/same" && notmp "$dir" &&
        grep -qF "$file is $(word "$kind"), not a regular file: refusing to replace it with an output file (remove it, or write the outputs elsewhere)" "$w/err"; then
        ok "$name with $(word "$kind") at $rel: exit 2, it and every earlier output kept"
    else fail "$name with $(word "$kind") at $rel: exit $rc: $(cat "$w/err" "$w/same")"; fi
    rm -rf "$file" && cp -p "$before/$rel" "$file"
}
for kind in fifo dir dev link; do
    check analyze $kind "$w/an/summary.csv" "$w/an" "$w/an.before" "$bin/analyze" --quiet --resamples 1000 "$w/an"
    check analyze $kind "$w/an/summary.md" "$w/an" "$w/an.before" "$bin/analyze" --quiet --resamples 1000 "$w/an"
    check analyze $kind "$w/an/plotdata/regress.dat" "$w/an" "$w/an.before" "$bin/analyze" --quiet --resamples 1000 "$w/an"
    check peers-report $kind "$w/pr/peers.csv" "$w/pr" "$w/pr.before" "$bin/peers-report" --quiet "$w/pr"
    check validation $kind "$w/vout/aa.csv" "$w/vout" "$w/vout.before" "$bin/validation" --quiet --resamples 200 --inproc "$w/vip" "$w/vout" "$w/vs"
    check validation $kind "$w/vout/inproc.dat" "$w/vout" "$w/vout.before" "$bin/validation" --quiet --resamples 200 --inproc "$w/vip" "$w/vout" "$w/vs"
done
# Two outputs that are one file (a hard link): one would replace the other.
rm "$w/an/summary.md" && ln "$w/an/summary.csv" "$w/an/summary.md"
"$bin/analyze" --quiet --resamples 1000 "$w/an" 2> "$w/err"; rc=$?
[ $rc -eq 2 ] && grep -qF "$w/an/summary.md is the same file as $(cd "$w/an" && pwd -P)/summary.csv, which another output of this run writes: one would replace the other (give each output its own file)" "$w/err" &&
    notmp "$w/an" && cmp -s "$w/an/summary.csv" "$w/an.before/summary.csv" && ok "analyze: two outputs one file: exit 2" ||
    fail "analyze: two outputs one file: exit $rc: $(cat "$w/err")"
rm "$w/an/summary.md" && cp "$w/an.before/summary.md" "$w/an/summary.md"
rm -rf "$w/an/plotdata" && : > "$w/an/plotdata"
"$bin/analyze" --quiet --resamples 1000 "$w/an" 2> "$w/err"; rc=$?
[ $rc -eq 2 ] && grep -qxF "analyze: $w/an/plotdata is not a directory: the plot data files go there (remove it, or move it away)" "$w/err" &&
    cmp -s "$w/an/summary.md" "$w/an.before/summary.md" && ok "analyze: plotdata a file: exit 2" || fail "analyze: plotdata a file: exit $rc: $(cat "$w/err")"
# A sweep with measured and simulated cells whose outputs cannot be written: nothing may be said
# to be written (analyze once closed such a run with "wrote sim.csv and plotdata/sim_*.dat").
mksweep "$w/mixed" && mkdir -p "$w/simpart" && cat "$schema" "$fixtures/sim.sql" | sqlite3 "$w/simpart/results.db" &&
    sqlite3 "$w/simpart/results.db" "UPDATE cells SET cell_id = cell_id + 100; UPDATE runs SET cell_id = cell_id + 100,
      run_id = run_id + 1000, seq = seq + 100000; UPDATE run_stats SET run_id = run_id + 1000;
      UPDATE run_counters SET run_id = run_id + 1000;" &&
    sqlite3 "$w/mixed/results.db" "ATTACH '$w/simpart/results.db' AS s; INSERT INTO cells SELECT * FROM s.cells;
      INSERT INTO runs SELECT * FROM s.runs; INSERT INTO run_stats SELECT * FROM s.run_stats;
      INSERT OR IGNORE INTO events SELECT * FROM s.events; INSERT INTO run_counters SELECT * FROM s.run_counters;
      INSERT INTO sim_native SELECT * FROM s.sim_native;" || { echo "cannot build the mixed sweep"; exit 1; }
"$bin/analyze" --resamples 1000 "$w/mixed" > /dev/null 2> "$w/err" && grep -q "simulated cells, 10 runs ok of 10" "$w/err" &&
    grep -q "wrote $w/mixed/summary.md, summary.csv, summary.json, metrics.csv, regress.csv, sim.csv, plotdata/" "$w/err" &&
    ok "analyze, measured and simulated cells: the files written named" || fail "analyze on the mixed sweep: $(cat "$w/err")"
rm -rf "$w/mixed/plotdata" && : > "$w/mixed/plotdata"
"$bin/analyze" --resamples 1000 "$w/mixed" > /dev/null 2> "$w/err"; rc=$?
[ $rc -eq 2 ] && ! grep -q "wrote" "$w/err" && grep -qxF "analyze: $w/mixed/plotdata is not a directory: the plot data files go there (remove it, or move it away)" "$w/err" &&
    ok "analyze, outputs not written: exit 2, nothing said to be written" || fail "analyze, outputs not written: exit $rc: $(cat "$w/err")"
: > "$w/vfile"
"$bin/validation" --quiet --resamples 200 "$w/vfile" "$w/vs" 2> "$w/err"; rc=$?
[ $rc -eq 2 ] && grep -qxF "validation: $w/vfile: not a directory (it names a file); give a directory for the outputs" "$w/err" &&
    ok "validation: OUT a file: exit 2" || fail "validation: OUT a file: exit $rc: $(cat "$w/err")"

# ---- 2. validation's inputs -----------------------------------------------------------
base='workload gcbench\ntime_mode thread\ntime_hz 1000\nspin_ns 0\nspin_clock cpu\n'
params_bad() { # MESSAGE PRINTF-TEXT
    mkinproc "$w/pp" && printf "$2" > "$w/pp/params"
    "$bin/validation" --quiet --resamples 200 --inproc "$w/pp" "$w/pout" "$w/vs" > /dev/null 2> "$w/err"; rc=$?
    [ $rc -eq 2 ] && grep -qxF -- "validation: $w/pp/params $1" "$w/err" && ok "params refused: $1" ||
        fail "params: exit $rc, want 2 and '$1': $(cat "$w/err")"
}
params_bad "line 6: not one of the keys workload, time_mode, time_hz, spin_ns, spin_clock, sampler_cpu, size" "${base}colour blue\n"
params_bad "line 6: time_hz is given twice" "${base}time_hz 2000\n"
params_bad "line 3: time_hz '1000Hz' is not a rate in Hz (a positive decimal integer)" 'workload gcbench\ntime_mode thread\ntime_hz 1000Hz\nspin_ns 0\nspin_clock cpu\n'
params_bad "line 3: expected 'key value' with one value (sampler_cpu: CPUs separated by one space)" 'workload gcbench\ntime_mode thread\ntime_hz  1000\nspin_ns 0\n'
params_bad "line 4: spin_ns '0x10' is not a time in ns (a non-negative decimal number)" 'workload gcbench\ntime_mode thread\ntime_hz 1000\nspin_ns 0x10\n'
params_bad "line 2: time_mode 'threads' is not signal or thread" 'workload gcbench\ntime_mode threads\n'
params_bad "line 1: workload 'a/b' is not a workload name (letters, digits, _ . -; at most 63)" 'workload a/b\n'
params_bad "line 6: a carriage return or a tab (the file has LF line ends and one space after the key)" "${base}size 10\r\n"
params_bad "line 6: the file ends inside this line" "${base}size 10"
params_bad "line 6: size '-3' is not a workload size (a positive decimal integer)" "${base}size -3\n"
long=$(printf '%0600d' 0)
params_bad "line 6: longer than 511 characters" "${base}sampler_cpu $long\n"
# meta.env that sets the spin twice (which one would it be?).
mksweep "$w/twice"
sqlite3 "$w/twice/results.db" "INSERT INTO meta VALUES ('env', 'SGC_SAMPLE_SPIN_NS=0 SGC_SAMPLE_SPIN_NS=200000')"
"$bin/validation" --quiet --resamples 200 "$w/tout" "$w/twice" > /dev/null 2> "$w/err"; rc=$?
[ $rc -eq 2 ] && grep -qxF "validation: $w/twice: meta.env sets SGC_SAMPLE_SPIN_NS to something that is not a number (or sets it twice)" "$w/err" &&
    ok "validation: meta.env setting the spin twice: exit 2" || fail "validation: spin set twice: exit $rc: $(cat "$w/err")"

# ---- 3. inproc-estimate on things that are not files ----------------------------------
mkfifo "$w/fifo.series"
timeout 60 "$bin/inproc-estimate" "$w/fifo.series" > /dev/null 2> "$w/err"; rc=$?
[ $rc -eq 2 ] && grep -qxF "inproc-estimate: $w/fifo.series: not a regular file (a segment series is one)" "$w/err" &&
    ok "inproc-estimate on a FIFO: exit 2 at once" || fail "inproc-estimate on a FIFO: exit $rc: $(cat "$w/err")"
timeout 60 "$bin/inproc-estimate" "$w" > /dev/null 2> "$w/err"; rc=$?
[ $rc -eq 2 ] && grep -qxF "inproc-estimate: $w: not a regular file (a segment series is one)" "$w/err" &&
    ok "inproc-estimate on a directory: exit 2" || fail "inproc-estimate on a directory: exit $rc: $(cat "$w/err")"

"$bin/inproc-estimate" "$fixtures/../../inproc/fixtures/run1.seg" > /dev/full 2> "$w/err"; rc=$?
[ $rc -eq 1 ] && grep -qxF "inproc-estimate: writing the estimate failed: No space left on device" "$w/err" &&
    ok "inproc-estimate to a full device: exit 1, said" || fail "inproc-estimate to a full device: exit $rc: $(cat "$w/err")"

echo "$fails failed"
[ $fails -eq 0 ]
