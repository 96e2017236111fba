#!/bin/sh
# soak.sh - `make soak`: runs every workload many times with the sampler
# thread (SGC_TIME_MODE=thread) at each rate, with time sampling on all the
# time and in-process alternated (SGC_ALTERNATE=time: the thread started and
# stopped every few milliseconds), each run pinned to one CPU (the sampler
# thread moves to another, docs/PROFILE.md), and reports per workload and
# alternation: runs, crashes (a run killed by a signal), other failures (a
# non-zero exit, a hang, a stats record that is missing or says another time
# mode or rate), and from the runs' stats records (docs/FORMATS.md) the
# samples, the copies voided by a pop and retried (time_snapshot_retries),
# the periods given up as torn (time_snapshots_torn), the periods missed, and
# the runs whose sampler thread shared the program's CPU
# (time_sampler_cpu -1: no race is possible then).  docs/RUNTIME.md, "Soak".
#
# Settings (environment; make soak passes its variables of the same names):
#   SOAK_RUNS       runs per workload, rate and alternation (default 10)
#   SOAK_RATES      sampler rates in Hz, comma-separated (default 2000,5000,10000)
#   SOAK_ALTERNATE  alternations, comma-separated: off (time sampling on
#                   throughout) and time (SGC_ALTERNATE=time) (default off,time)
#   SOAK_WORKLOADS  workloads, comma-separated (default: workloads/workloads.list)
#   SOAK_SECONDS    a run's length: each workload's --size is calibrated to
#                   about this many seconds without sampling (default 1)
#   SOAK_SIZES      fixed sizes instead, e.g. "interp=2000,gcbench=64"
#   SOAK_CPU        the CPU every run is pinned to (default 1; "none": not pinned)
#   SOAK_TIMEOUT    seconds after which a run counts as hung (default 300)
#   SOAK_OUT        output directory (default build/soak): soak.txt (the
#                   table), failures.log (command, status and output of every
#                   failed run), runs.tsv (one line per run)
#   BIN             the programs (default build/bin)
# Exit status: 0 no run crashed or failed, 1 some did (the table says which),
# 2 bad settings.
set -u
me=soak
bin=${BIN:-build/bin}
runs=${SOAK_RUNS:-10}
rates=${SOAK_RATES:-2000,5000,10000}
alts=${SOAK_ALTERNATE:-off,time}
wls=${SOAK_WORKLOADS:-$(sed 's/#.*//' workloads/workloads.list | tr -s ' \n' ',' | sed 's/^,//; s/,$//')}
secs=${SOAK_SECONDS:-1}
sizes=${SOAK_SIZES:-}
cpu=${SOAK_CPU:-1}
tmo=${SOAK_TIMEOUT:-300}
out=${SOAK_OUT:-build/soak}

bad() { echo "$me: $*" >&2; exit 2; }
whole() { case "$1" in '' | *[!0-9]* | 0*) return 1 ;; esac; }
whole "$runs" || bad "SOAK_RUNS '$runs' is not a whole number above 0"
whole "$tmo" || bad "SOAK_TIMEOUT '$tmo' is not a whole number of seconds above 0"
rates=$(echo "$rates" | tr ',' ' ')
[ -n "$rates" ] || bad "SOAK_RATES is empty: give rates in Hz, e.g. 2000,5000,10000"
for r in $rates; do
    whole "$r" && [ "$r" -le 100000 ] || bad "SOAK_RATES: '$r' is not a rate in Hz from 1 to 100000"
done
alts=$(echo "$alts" | tr ',' ' ')
[ -n "$alts" ] || bad "SOAK_ALTERNATE is empty: give off, time or both (off,time)"
for a in $alts; do
    case "$a" in off | time) ;; *) bad "SOAK_ALTERNATE: '$a' is not off or time" ;; esac
done
echo "$secs" | grep -Eq '^[0-9]*\.?[0-9]+$' && awk -v s="$secs" 'BEGIN { exit !(s > 0 && s <= 600) }' ||
    bad "SOAK_SECONDS '$secs' is not a number of seconds above 0 (at most 600)"
if [ "$cpu" != none ]; then
    case "$cpu" in '' | *[!0-9]*) bad "SOAK_CPU '$cpu' is not a CPU number (or none)" ;; esac
    taskset -c "$cpu" true 2>/dev/null || bad "SOAK_CPU $cpu: cannot pin a process to it (taskset -c $cpu failed)"
    pin="taskset -c $cpu"
else
    pin=
fi
wls=$(echo "$wls" | tr ',' ' ')
[ -n "$wls" ] || bad "SOAK_WORKLOADS is empty"
for w in $wls; do
    [ -x "$bin/$w" ] || bad "no workload $bin/$w: run make first, or name workloads of workloads/workloads.list"
done
for kv in $(echo "$sizes" | tr ',' ' '); do
    w=${kv%%=*}; n=${kv#*=}
    case " $wls " in *" $w "*) ;; *) bad "SOAK_SIZES: '$w' is not one of the workloads soaked ($wls)" ;; esac
    whole "$n" || bad "SOAK_SIZES: $w's size '$n' is not a whole number above 0"
done

mkdir -p "$out" || exit 1
: > "$out/failures.log" && : > "$out/runs.tsv" || exit 1
ulimit -c 0 2>/dev/null # a crash is counted, not dumped
# Only the settings below reach the programs: the caller's SGC_* are dropped.
for v in $(env | sed -n 's/^\([Ss][Gg][Cc]_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

stat() { # KEY FILE: the value of KEY in a stats record
    awk -v k="$1" '$1 == k { print $2; exit }' "$2" 2>/dev/null
}

# Sizes: doubled from 1 until a run without sampling takes a quarter of
# SOAK_SECONDS (the shorter of two runs' run_ns, from their stats records: a
# run slowed by the machine's other work cannot make the size too small),
# then scaled (work is linear in --size, docs/WORKLOADS.md).
size_of() { # WORKLOAD
    for kv in $(echo "$sizes" | tr ',' ' '); do
        [ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return 0; }
    done
    s=1
    while :; do
        best=
        for try in 1 2; do
            rm -f "$out/calibrate.stats"
            SGC_STATS="$out/calibrate.stats" $pin "$bin/$1" --size $s >/dev/null 2>"$out/calibrate.err" || {
                echo "$me: $1 --size $s failed without sampling (exit $?):" >&2; tail -n 5 "$out/calibrate.err" >&2
                return 1; }
            ns=$(stat run_ns "$out/calibrate.stats")
            [ -n "$ns" ] || { echo "$me: $1 wrote no run_ns in its stats record" >&2; return 1; }
            [ -z "$best" ] || [ "$ns" -lt "$best" ] && best=$ns
        done
        if awk -v ns="$best" -v t="$secs" 'BEGIN { exit !(ns >= t * 1e9 / 4) }' || [ $s -ge 16777216 ]; then
            awk -v ns="$best" -v t="$secs" -v s=$s 'BEGIN { n = int(s * t * 1e9 / (ns > 0 ? ns : 1) + 0.5); print n < 1 ? 1 : n }'
            return 0
        fi
        s=$((s * 2))
    done
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
: > "$out/sizes" || exit 1
for w in $wls; do
    n=$(size_of "$w") || exit 1
    echo "$w $n" >> "$out/sizes"
done
total=$(($(echo $wls | wc -w) * runs * $(echo $rates | wc -w) * $(echo $alts | wc -w)))
echo "$me: $total runs into $out ($runs per workload, rate and alternation; rates $rates Hz; alternation $alts;" \
    "CPU $cpu; load average $load0)"
echo "$me: sizes: $(tr ' \n' '= ' < "$out/sizes")"

i=0
for w in $wls; do
    n=$(awk -v w="$w" '$1 == w { print $2 }' "$out/sizes")
    for a in $alts; do
        for r in $rates; do
            k=0
            while [ $k -lt $runs ]; do
                k=$((k + 1)); i=$((i + 1))
                st="$out/run.stats"; rm -f "$st"
                altenv=; [ $a = time ] && altenv="SGC_ALTERNATE=time"
                cmd="SGC_TIME_MODE=thread SGC_TIME_HZ=$r $altenv SGC_STATS=$st $pin timeout -k 10 $tmo $bin/$w --size $n"
                t0=$(date +%s)
                env SGC_TIME_MODE=thread SGC_TIME_HZ=$r $altenv SGC_STATS="$st" $pin timeout -k 10 "$tmo" \
                    "$bin/$w" --size "$n" >"$out/run.out" 2>&1
                rc=$?
                what=ok
                if { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && [ $(($(date +%s) - t0)) -ge "$tmo" ]; then
                    what="hung (no end after $tmo s)"
                elif [ $rc -gt 128 ]; then
                    sig=$((rc - 128))
                    what="crash: signal $sig ($(kill -l $sig 2>/dev/null || echo '?'))"
                elif [ $rc -ne 0 ]; then
                    what="failed: exit $rc"
                elif ! [ -s "$st" ]; then
                    what="failed: no stats record"
                elif [ "$(stat time_mode "$st")" != thread ] || [ "$(stat time_hz "$st")" != "$r" ]; then
                    what="failed: the stats record says time_mode $(stat time_mode "$st"), time_hz $(stat time_hz "$st")"
                fi
                if [ "$what" = ok ]; then
                    printf '%s\t%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\n' "$w" "$a" "$r" "$k" "$(stat time_samples "$st")" \
                        "$(stat time_snapshot_retries "$st")" "$(stat time_snapshots_torn "$st")" \
                        "$(stat time_samples_missed "$st")" "$(stat time_sampler_cpu "$st")" >> "$out/runs.tsv"
                else
                    printf '%s\t%s\t%s\t%s\t%s\n' "$w" "$a" "$r" "$k" "$what" >> "$out/runs.tsv"
                    { echo "== $cmd"; echo "   $what"; sed 's/^/   | /' "$out/run.out" | tail -n 20; } >> "$out/failures.log"
                    echo "$me: run $i of $total: $w, alternate $a, $r Hz: $what"
                fi
            done
        done
    done
    echo "$me: $w done ($i of $total runs, $(($(date +%s) - start)) s)"
done
rm -f "$out/run.stats" "$out/run.out" "$out/calibrate.stats" "$out/calibrate.err" "$out/sizes"

load1=$(cut -d' ' -f1-3 /proc/loadavg)
awk -F'\t' -v load0="$load0" -v load1="$load1" -v secs=$(($(date +%s) - start)) -v rates="$rates" -v cpu="$cpu" '
    { key = $1 "\t" $2; if (!(key in runs)) order[++nk] = key; runs[key]++ }
    $5 == "ok" { samples[key] += $6; retries[key] += $7; torn[key] += $8; missed[key] += $9; if ($10 == -1) shared[key]++ }
    $5 ~ /^crash/ { crashes[key]++ }
    $5 != "ok" && $5 !~ /^crash/ { failed[key]++ }
    END {
        printf "soak: sampler thread at %s Hz, pinned to CPU %s, load average %s at the start, %s at the end, %d s\n", \
            rates, cpu, load0, load1, secs
        printf "%-12s %-9s %6s %8s %7s %10s %9s %6s %10s %7s\n", "workload", "alternate", "runs", "crashes", "failed", \
            "samples", "retries", "torn", "missed", "shared"
        for (i = 1; i <= nk; i++) {
            k = order[i]; split(k, p, "\t")
            printf "%-12s %-9s %6d %8d %7d %10d %9d %6d %10d %7d\n", p[1], p[2], runs[k], crashes[k], failed[k], \
                samples[k], retries[k], torn[k], missed[k], shared[k]
            tr += runs[k]; tc += crashes[k]; tf += failed[k]; ts += samples[k]; tt += retries[k]; tn += torn[k]
            tm += missed[k]; tsh += shared[k]
        }
        printf "%-12s %-9s %6d %8d %7d %10d %9d %6d %10d %7d\n", "all", "", tr, tc, tf, ts, tt, tn, tm, tsh
        printf "(shared: runs whose sampler thread had no CPU of its own; retries: copies voided by a pop and taken again;\n"
        printf " torn: periods given up after 8 voided copies; missed: periods that fell due while the thread was not running)\n"
    }' "$out/runs.tsv" | tee "$out/soak.txt"
if grep -q "	crash\|	failed\|	hung" "$out/runs.tsv"; then
    echo "$me: FAIL: some runs crashed or failed: $out/failures.log has each command and its output"
    exit 1
fi
echo "$me: no run crashed or failed"
exit 0
