#!/bin/sh
# accuracy.sh [OPTIONS] - the accuracy study (`make accuracy`): how far sampled
# allocation profiles are from the exact one, by period, fixed vs poisson.
#
# For every workload: one baseline run (no sampling, timed), two exact runs
# (SGC_ALLOC_PERIOD=8, fixed: every allocation recorded; timed), checked to
# give the same truth table and the stats record's bytes and objects; then
# every period x {fixed, poisson} x N runs: fixed mode with N start offsets
# SGC_ALLOC_OFFSET = (i-1) P / N rounded down to 8 (i = 1..N, so offset 0 is
# one of them), poisson mode with SGC_SEED = i.  Every run must allocate
# exactly the truth's bytes and objects, and a fixed run must take exactly
# floor((bytes + offset) / P) sample points.  `sgcprof accuracy --csv` compares
# every profile with the truth; accuracy/summarize.awk makes the summary, the
# recommendation and the plot data; plots/accuracy.sh draws the figures.
#
# Options:
#   --out DIR          where the results go (default results/accuracy-<UTC time>)
#   --workloads LIST   comma-separated (default: workloads/workloads.list)
#   --periods LIST     comma-separated sizes (default 4K,8K,...,32M)
#   --runs N           offsets / seeds per period and mode (default 10)
#   --sizes LIST       name=size,... workload --size values (default: a
#                      quarter of the reference sweep's calibrated sizes, below)
#   --jobs N           runs at a time (default 2)
#   --bin DIR          the programs (default build/bin)
#   --overhead FILE    overheads by period (default the reference sweep's
#                      results/reference/plotdata/alloc_cells.dat; "none": skip)
#   --no-figures       skip the figures
# Exit status: 0 done, every check held; 1 a run failed or a check did not
# hold (each reported on stderr; the results are still written); 2 bad
# arguments.
set -u
me=accuracy
bin=build/bin
out=""
workloads=""
periods="4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M,8M,16M,32M"
runs=10
jobs=2
figures=1
overhead=results/reference/plotdata/alloc_cells.dat
# A quarter of the sizes results/reference calibrated to about 0.3 s of CPU
# time (binarytrees: 1 of 5), so that the study takes about 40 minutes on
# a busy 2-core machine.  Work is linear in --size, so a run 4 times longer
# takes 4 times the samples at a period: the error of a period here is the
# error of a 4 times larger period there.  Overheads depend on the sampling
# rate, not the run length, so the reference sweep's apply.
sizes="gcbench=178,microbench=450,binarytrees=1,largeobj=9764,deepstack=13564,compute=512,lrucache=182,interp=13618,annotate=2048"

usage() { sed -n '2,/^set -u/{/^set -u/d; s/^# \{0,1\}//p;}' "$0"; }
die() { echo "$me: $*" >&2; exit 2; }

# --run-one is the per-run worker, started by xargs below.
if [ "${1:-}" = "--run-one" ]; then
    shift
    # bin dir w size mode period i offset seed
    b=$1 d=$2 w=$3 size=$4 mode=$5 period=$6 i=$7 off=$8 seed=$9
    name="$d/$w/$mode-$period-$i"
    if [ "$mode" = fixed ]; then
        env SGC_ALLOC_PERIOD="$period" SGC_ALLOC_MODE=fixed SGC_ALLOC_OFFSET="$off" \
            SGC_PROFILE="$name.prof" SGC_STATS="$name.stats" "$b/$w" --size "$size" >/dev/null 2>"$name.err"
    else
        env SGC_ALLOC_PERIOD="$period" SGC_ALLOC_MODE=poisson SGC_SEED="$seed" \
            SGC_PROFILE="$name.prof" SGC_STATS="$name.stats" "$b/$w" --size "$size" >/dev/null 2>"$name.err"
    fi
    rc=$?
    [ $rc -eq 0 ] || { echo "$me: $w $mode $period run $i: exit status $rc: $(head -c 300 "$name.err")" >&2; exit 1; }
    exit 0
fi

while [ $# -gt 0 ]; do
    case "$1" in
        --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
        --workloads) [ $# -ge 2 ] || die "--workloads needs a list"; workloads=$(echo "$2" | tr ',' ' '); shift 2 ;;
        --periods) [ $# -ge 2 ] || die "--periods needs a list"; periods=$2; shift 2 ;;
        --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
        --sizes) [ $# -ge 2 ] || die "--sizes needs name=size,..."; sizes="$sizes,$2"; shift 2 ;;
        --jobs) [ $# -ge 2 ] || die "--jobs needs a number"; jobs=$2; shift 2 ;;
        --bin) [ $# -ge 2 ] || die "--bin needs a directory"; bin=$2; shift 2 ;;
        --overhead) [ $# -ge 2 ] || die "--overhead needs a file"; overhead=$2; shift 2 ;;
        --no-figures) figures=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (try --help)" ;;
    esac
done
case "$runs" in ''|*[!0-9]*) die "--runs $runs: not a number";; esac
[ "$runs" -ge 1 ] && [ "$runs" -le 1000 ] || die "--runs $runs: must be 1 to 1000"
case "$jobs" in ''|*[!0-9]*) die "--jobs $jobs: not a number";; esac
[ "$jobs" -ge 1 ] || die "--jobs must be at least 1"
[ "$overhead" = none ] || [ -f "$overhead" ] || die "--overhead $overhead: no such file"
[ -x "$bin/sgcprof" ] || die "$bin/sgcprof: not built (run make)"
if [ -z "$workloads" ]; then
    workloads=$(sed 's/#.*//' workloads/workloads.list | tr -s ' \t' '\n' | grep -v '^$' | tr '\n' ' ')
fi
for w in $workloads; do
    [ -x "$bin/$w" ] || die "workload $w: $bin/$w not found (names: workloads/workloads.list)"
done
# Periods as byte counts (K/M/G powers of 1024), each at least 16 and a
# multiple of 8 (offsets are multiples of 8 below it).
plist=""
for p in $(echo "$periods" | tr ',' ' '); do
    v=$(echo "$p" | awk '{ n = $0; u = 1; if (n ~ /[kK]$/) u = 1024; else if (n ~ /[mM]$/) u = 1048576; else if (n ~ /[gG]$/) u = 1073741824;
        sub(/[kKmMgG]$/, "", n); if (n !~ /^[0-9]+$/) { print "x"; exit } printf "%d\n", n * u }')
    case "$v" in ''|*[!0-9]*) die "--periods: '$p' is not a size such as 4096, 64K or 4M";; esac
    [ "$v" -ge 16 ] && [ $((v % 8)) -eq 0 ] || die "--periods: '$p' must be a multiple of 8 and at least 16"
    plist="$plist $v"
done
[ -n "$plist" ] || die "--periods: empty"
size_of() {
    echo "$sizes" | tr ',' '\n' | awk -F= -v w="$1" '$1 == w { s = $2 } END { print s }'
}
for w in $workloads; do
    s=$(size_of "$w")
    case "$s" in ''|*[!0-9]*) die "workload $w: no --size known; give one with --sizes $w=N";; esac
done

[ -n "$out" ] || out="results/accuracy-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out/work" || { echo "$me: $out: cannot create" >&2; exit 1; }
work="$out/work"
status=0
start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$me: $(echo $workloads | wc -w) workloads x$(echo $plist | wc -w) periods x 2 modes x $runs runs -> $out (load average $load_start)"

# Nanoseconds of wall time of one command (its output discarded).
now_ns() { date +%s%N; }
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

truth_csv="$out/truth.csv"
echo "workload,size,bytes,objects,sites,functions,types,truth_identical,baseline_s,exact_s,exact_ratio,exact_profile_bytes,loadavg" > "$truth_csv"
keys_csv="$out/keys.csv"   # every workload's exact table: bytes and objects per key
echo "workload,dimension,rank,key,bytes,objects,share" > "$keys_csv"
runs_csv="$out/runs.csv"
: > "$work/runs.body"
for w in $workloads; do
    size=$(size_of "$w")
    d="$work/$w"
    rm -rf "$d" && mkdir -p "$d"
    # Baseline and exact runs, one at a time, timed.
    t0=$(now_ns)
    env SGC_STATS="$d/base.stats" "$bin/$w" --size "$size" >/dev/null 2>"$d/base.err" ||
        { echo "$me: $w: baseline run failed: $(head -c 300 "$d/base.err")" >&2; status=1; continue; }
    t1=$(now_ns)
    for k in 1 2; do
        env SGC_ALLOC_PERIOD=8 SGC_ALLOC_MODE=fixed SGC_PROFILE="$d/truth$k.prof" SGC_STATS="$d/truth$k.stats" \
            "$bin/$w" --size "$size" >/dev/null 2>"$d/truth$k.err" ||
            { echo "$me: $w: exact run failed: $(head -c 300 "$d/truth$k.err")" >&2; status=1; continue 2; }
        [ $k -eq 1 ] && t2=$(now_ns)
    done
    la=$(cut -d' ' -f1 /proc/loadavg)
    "$bin/sgcprof" accuracy --csv "$d/truth1.prof" > "$d/truth1.csv" || { status=1; continue; }
    "$bin/sgcprof" accuracy --csv "$d/truth2.prof" > "$d/truth2.csv" || { status=1; continue; }
    identical=1
    cmp -s "$d/truth1.csv" "$d/truth2.csv" || identical=0
    [ $identical -eq 1 ] || { echo "$me: $w: the two exact runs differ (not deterministic); comparing with the first" >&2; status=1; }
    bytes=$(stat_of "$d/base.stats" bytes_allocated); objects=$(stat_of "$d/base.stats" objects_allocated)
    # The truth's totals are the stats record's (every allocation recorded).
    tb=$(awk -F, '$1 == "survival" { b += $4; o += $5 } END { printf "%d %d\n", b, o }' "$d/truth1.csv")
    if [ "$tb" != "$bytes $objects" ] || [ "$(stat_of "$d/truth1.stats" bytes_allocated) $(stat_of "$d/truth1.stats" objects_allocated)" != "$bytes $objects" ]; then
        echo "$me: $w: exact profile totals ($tb) differ from the stats record ($bytes $objects)" >&2; status=1
    fi
    nk() { awk -F, -v d="$1" '$1 == d { n++ } END { print n + 0 }' "$d/truth1.csv"; }
    base_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    exact_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    ratio=$(awk -v a="$base_s" -v b="$exact_s" 'BEGIN { printf "%.2f", b / a }')
    psize=$(wc -c < "$d/truth1.prof")
    echo "$w,$size,$bytes,$objects,$(nk site),$(nk leaf),$(nk type),$identical,$base_s,$exact_s,$ratio,$psize,$la" >> "$truth_csv"
    tail -n +2 "$d/truth1.csv" | sed "s/^/$w,/" >> "$keys_csv"
    rm -f "$d/truth2.prof"

    # The sampled runs, $jobs at a time.
    : > "$d/jobs"
    for p in $plist; do
        i=1
        while [ $i -le "$runs" ]; do
            off=$(( (i - 1) * p / runs / 8 * 8 ))
            echo "$bin $work $w $size fixed $p $i $off 0" >> "$d/jobs"
            echo "$bin $work $w $size poisson $p $i 0 $i" >> "$d/jobs"
            i=$((i + 1))
        done
    done
    xargs -P "$jobs" -L 1 sh "$0" --run-one < "$d/jobs" || { echo "$me: $w: some runs failed" >&2; status=1; }
    # Checks: same allocations as the truth; fixed mode's exact count.
    while read -r _b _d _w _s mode p i off seed; do
        st="$d/$mode-$p-$i.stats"
        [ -f "$st" ] || continue
        rb=$(stat_of "$st" bytes_allocated); ro=$(stat_of "$st" objects_allocated)
        [ "$rb $ro" = "$bytes $objects" ] ||
            { echo "$me: $w $mode $p run $i: allocated $rb bytes / $ro objects, the truth $bytes / $objects" >&2; status=1; }
        if [ "$mode" = fixed ]; then
            pts=$(stat_of "$st" alloc_sample_points); sb=$(stat_of "$st" sampled_bytes)
            want=$(awk -v b="$sb" -v o="$off" -v p="$p" 'BEGIN { printf "%d", int((b + o) / p) }')
            [ "$pts" = "$want" ] ||
                { echo "$me: $w fixed $p offset $off: $pts sample points, floor((bytes + offset) / P) = $want" >&2; status=1; }
        fi
    done < "$d/jobs"
    # One comparison of every profile with the truth; the file name gives
    # mode, period and run, the job list the offset and seed.
    ls "$d"/*-*-*.prof > "$d/profiles" 2>/dev/null
    if [ -s "$d/profiles" ]; then
        # shellcheck disable=SC2046
        "$bin/sgcprof" accuracy --csv "$d/truth1.prof" $(cat "$d/profiles") > "$d/compare.csv" ||
            { echo "$me: $w: sgcprof accuracy failed" >&2; status=1; }
        awk -F, -v w="$w" -v runs="$runs" 'NR == FNR { off[$5 "-" $6 "-" $7] = $8; seed[$5 "-" $6 "-" $7] = $9; next }
            FNR == 1 { next }
            { n = split($1, parts, "/"); key = parts[n]; sub(/\.prof$/, "", key); split(key, k, "-")
              line = w "," k[1] "," k[2] "," k[3] "," off[key] "," seed[key]
              for (j = 4; j <= NF; j++) line = line "," $j
              print line }' \
            FS=' ' "$d/jobs" FS=, "$d/compare.csv" >> "$work/runs.body"
    fi
    rm -f "$d"/*-*-*.prof "$d/truth1.prof"
    echo "$me: $w done ($(( $(date +%s) - start )) s so far; exact run ${exact_s}s vs baseline ${base_s}s)"
done
{
    printf 'workload,mode,period,run,offset,seed,'
    # The comparison's own columns after "file" (same for every workload).
    head -n 1 "$(ls "$work"/*/compare.csv | head -n 1)" | cut -d, -f2- | sed 's/^mode,period,//'
    cat "$work/runs.body"
} > "$runs_csv.tmp" 2>/dev/null && mv "$runs_csv.tmp" "$runs_csv"
rm -f "$work/runs.body"

end=$(date +%s)
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "started $(date -u -d "@$start" +%Y-%m-%dT%H:%M:%SZ)"
    echo "duration_s $((end - start))"
    echo "loadavg_start $load_start"
    echo "loadavg_end $load_end"
    echo "host $(uname -n) $(nproc) cpus"
    echo "cpu $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
    echo "revision $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
    echo "workloads $workloads"
    echo "periods$plist"
    echo "runs $runs"
    echo "jobs $jobs"
    echo "sizes $sizes"
} > "$out/meta.txt"
awk -f accuracy/summarize.awk -v outdir="$out" -v overhead="$overhead" "$out/truth.csv" "$keys_csv" "$runs_csv" || status=1
if [ $figures -eq 1 ]; then
    sh plots/accuracy.sh "$out" || status=1
fi
echo "$me: done in $((end - start)) s (load average $load_start at the start, $load_end at the end): $out/summary.md"
exit $status
